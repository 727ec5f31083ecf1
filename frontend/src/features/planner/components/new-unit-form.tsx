/**
 * Starting a unit (Plan. Secuencial): the course, its title and curriculum unit, how many
 * classes (2–40) and how long each is, the first class of the calendar it starts on (the next
 * free classes of the course follow), and its OAs in the order to work them. The unit is made
 * whole in the database and opened.
 */
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import type { Course, CourseLabel } from '@/features/courses'
import { chileToday, formatClassDay } from '@/lib/dates'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { useCourseClasses, useObjectives } from '@/features/planner/api/plans'
import { useCreateUnit } from '@/features/planner/api/units'
import { UNIT_CLASSES, UNIT_GENERATION, unitDates } from '@/features/planner/sequence'
import { ObjectivePicker } from './objective-picker'

export interface NewUnitFormProps {
  courses: Course[]
  labels: Map<string, CourseLabel>
  onCreated: (planId: string) => void
}

export function NewUnitForm({ courses, labels, onCreated }: NewUnitFormProps) {
  const [courseId, setCourseId] = useState(courses.length === 1 ? (courses[0]?.id ?? '') : '')
  const course = courses.find((c) => c.id === courseId)
  const classes = useCourseClasses(courseId || null)
  const objectives = useObjectives(course?.level_code, course?.subject_code)
  const create = useCreateUnit()
  const today = chileToday()
  const [title, setTitle] = useState('')
  const [unitName, setUnitName] = useState('')
  const [count, setCount] = useState(6)
  const [firstId, setFirstId] = useState<string | null>(null)
  const [blocks, setBlocks] = useState<number | null>(null)
  const [chosen, setChosen] = useState<string[]>([])
  const [problems, setProblems] = useState<Record<string, string>>({})
  const [saveError, setSaveError] = useState<string | null>(null)
  const ids = { course: useId(), title: useId(), unit: useId(), count: useId(), first: useId(), blocks: useId() }

  const free = (classes.data ?? []).filter((c) => !c.planned && c.status !== 'Cancelada')
  // The first class offered: the next free one from today, else the first free one.
  const first = firstId ?? (free.find((c) => c.session_date >= today) ?? free[0])?.id ?? null
  const dates = unitDates(classes.data ?? [], first, count)
  const effectiveBlocks = blocks ?? Math.min(dates[0]?.pedagogical_hours ?? 2, 8)
  const label = course ? labels.get(course.id) : undefined
  const defaultTitle = `${label?.subject ?? 'Unidad'} · unidad de ${count} clases`

  function toggle(id: string) {
    setChosen((current) => (current.includes(id) ? current.filter((x) => x !== id) : current.length >= UNIT_GENERATION.maxObjectives ? current : [...current, id]))
  }

  function submit(event: FormEvent) {
    event.preventDefault()
    const found: Record<string, string> = {}
    if (!courseId) found.course = 'Elige el curso.'
    const finalTitle = (title.trim() || defaultTitle).trim()
    if (finalTitle.length > 200) found.title = 'El título puede tener hasta 200 caracteres.'
    if (!Number.isInteger(count) || count < UNIT_CLASSES.min || count > UNIT_CLASSES.max)
      found.count = `Una unidad tiene de ${UNIT_CLASSES.min} a ${UNIT_CLASSES.max} clases.`
    if (chosen.length === 0) found.objectives = 'Elige al menos un OA.'
    setProblems(found)
    setSaveError(null)
    if (Object.keys(found).length > 0) return
    // The OAs in the curriculum's order: the order the unit works them.
    const ordered = (objectives.data ?? []).filter((o) => chosen.includes(o.id)).map((o) => o.id)
    create.mutate(
      {
        courseId,
        title: finalTitle,
        unitName: unitName.trim() || null,
        classCount: count,
        objectiveIds: ordered,
        classSessionIds: dates.map((c) => c.id),
        classBlocks: effectiveBlocks,
      },
      {
        onSuccess: (planId) => onCreated(planId),
        onError: (error) => setSaveError(isDatabaseError(error) ? databaseErrorMessage(error) : 'No se pudo crear la unidad.'),
      },
    )
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-5" data-testid="new-unit-form">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={ids.course} label="Curso" problem={problems.course}>
          <select
            id={ids.course}
            className={fieldClass}
            value={courseId}
            onChange={(event) => {
              setCourseId(event.target.value)
              setFirstId(null)
              setChosen([])
            }}
          >
            <option value="">Elige un curso</option>
            {[...labels.values()].map((option) => (
              <option key={option.id} value={option.id}>
                {option.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id={ids.title} label="Título" problem={problems.title}>
          <input id={ids.title} className={fieldClass} value={title} maxLength={200} placeholder={defaultTitle} onChange={(event) => setTitle(event.target.value)} />
        </Field>
        <Field id={ids.unit} label="Unidad del programa (opcional)">
          <input id={ids.unit} className={fieldClass} value={unitName} maxLength={200} placeholder="Ej.: Unidad 2: Números enteros" onChange={(event) => setUnitName(event.target.value)} />
        </Field>
        <Field id={ids.count} label="Número de clases" problem={problems.count}>
          <input
            id={ids.count}
            type="number"
            inputMode="numeric"
            min={UNIT_CLASSES.min}
            max={UNIT_CLASSES.max}
            className={fieldClass}
            value={Number.isNaN(count) ? '' : count}
            onChange={(event) => setCount(event.target.valueAsNumber)}
          />
        </Field>
        <Field id={ids.first} label="Primera clase">
          <select id={ids.first} className={fieldClass} value={first ?? ''} disabled={!courseId || free.length === 0} onChange={(event) => setFirstId(event.target.value || null)}>
            {free.length === 0 ? <option value="">Sin clases libres en el calendario</option> : null}
            {free.map((option) => (
              <option key={option.id} value={option.id}>
                {formatClassDay(option.session_date)} · {option.start_time.slice(0, 5)}
                {option.session_date < today ? ' (pasada)' : ''}
              </option>
            ))}
          </select>
        </Field>
        <Field id={ids.blocks} label="Duración de cada clase">
          <select id={ids.blocks} className={fieldClass} value={effectiveBlocks} onChange={(event) => setBlocks(Number(event.target.value))}>
            {Array.from({ length: 8 }, (_, index) => index + 1).map((n) => (
              <option key={n} value={n}>
                {n} {n === 1 ? 'bloque' : 'bloques'} de 45 min ({n * 45} min)
              </option>
            ))}
          </select>
        </Field>
      </div>

      {courseId ? (
        <section aria-label="Fechas de la unidad" className="rounded-card border border-line bg-surface-muted p-3 text-sm" data-testid="unit-dates">
          {dates.length === 0 ? (
            <p className="text-ink-muted">Las clases quedarán sin fecha: completa tu calendario en Calendario → «Completar con mi horario» para darles fecha.</p>
          ) : (
            <>
              <p className="font-medium text-ink">
                {dates.length === count ? `Las ${count} clases, en tu calendario:` : `${dates.length} de las ${count} clases tienen fecha en tu calendario; las demás quedan sin fecha:`}
              </p>
              <p className="mt-1 text-ink-muted">{dates.map((c) => formatClassDay(c.session_date)).join(' · ')}</p>
            </>
          )}
        </section>
      ) : null}

      <ObjectivePicker
        objectives={course ? objectives : null}
        chosen={chosen}
        max={UNIT_GENERATION.maxObjectives}
        onToggle={toggle}
        problem={problems.objectives}
        legend={`Objetivos de aprendizaje de la unidad (hasta ${UNIT_GENERATION.maxObjectives})`}
      />

      <FormError message={saveError} testId="new-unit-error" />
      <div className="flex justify-end">
        <Button type="submit" disabled={create.isPending} data-testid="create-unit">
          {create.isPending ? 'Creando…' : 'Crear unidad'}
        </Button>
      </div>
    </form>
  )
}
