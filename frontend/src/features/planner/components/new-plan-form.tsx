/**
 * Starting a class plan: the course, the calendar class it is for (or none), its title and
 * length in 45-minute blocks, and its OAs chosen in a browser of the course's curriculum
 * (by eje, code or words, with the official text). The plan is created whole in the database
 * and opened in the editor.
 */
import { Search } from 'lucide-react'
import { useId, useMemo, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import type { Course, CourseLabel } from '@/features/courses'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { chileToday, formatShortDay, formatDate } from '@/lib/dates'
import { cn } from '@/lib/cn'
import { useCourseClasses, useCreatePlan, useObjectives, type Objective } from '@/features/planner/api/plans'

export const MAX_PLAN_OBJECTIVES = 5

/** What the form gathered, for a caller that makes the plan its own way (a draft's promotion). */
export interface PlanChoice {
  courseId: string
  title: string
  objectiveIds: string[]
  classSessionId: string | null
  classBlocks: number
}

export interface NewPlanFormProps {
  courses: Course[]
  labels: Map<string, CourseLabel>
  initialCourseId: string | null
  initialClassId: string | null
  onCreated: (planId: string) => void
  /** Makes the plan instead of `create_simple_plan` (answers its id); the title is then not asked. */
  make?: (choice: PlanChoice) => Promise<string>
  submitLabel?: string
}

/** Objectives matching the browser's words (code, statement or eje) and eje. */
export function filterObjectives(objectives: readonly Objective[], words: string, eje: string): Objective[] {
  const needle = words
    .trim()
    .toLocaleLowerCase('es')
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
  return objectives.filter((objective) => {
    if (eje && objective.eje !== eje) return false
    if (!needle) return true
    const haystack = `${objective.code} ${objective.statement} ${objective.eje ?? ''}`
      .toLocaleLowerCase('es')
      .normalize('NFD')
      .replace(/\p{Diacritic}/gu, '')
    return needle.split(/\s+/).every((word) => haystack.includes(word))
  })
}

export function NewPlanForm({ courses, labels, initialCourseId, initialClassId, onCreated, make, submitLabel = 'Crear planificación' }: NewPlanFormProps) {
  const [courseId, setCourseId] = useState(initialCourseId ?? (courses.length === 1 ? (courses[0]?.id ?? '') : ''))
  const course = courses.find((c) => c.id === courseId)
  const classes = useCourseClasses(courseId || null)
  const objectives = useObjectives(course?.level_code, course?.subject_code)
  const create = useCreatePlan()
  const today = chileToday()
  const [classId, setClassId] = useState<string | null>(initialClassId)
  const [title, setTitle] = useState('')
  const [blocks, setBlocks] = useState<number | null>(null)
  const [chosen, setChosen] = useState<string[]>([])
  const [words, setWords] = useState('')
  const [eje, setEje] = useState('')
  const [problems, setProblems] = useState<Record<string, string>>({})
  const [saveError, setSaveError] = useState<string | null>(null)
  const [making, setMaking] = useState(false)
  const ids = { course: useId(), class: useId(), title: useId(), blocks: useId(), search: useId(), eje: useId() }

  const open = (classes.data ?? []).filter((c) => !c.planned || c.id === classId)
  const chosenClass = (classes.data ?? []).find((c) => c.id === classId)
  const effectiveBlocks = blocks ?? chosenClass?.pedagogical_hours ?? 2
  const ejes = useMemo(() => [...new Set((objectives.data ?? []).map((o) => o.eje).filter((e): e is string => Boolean(e)))], [objectives.data])
  const shown = filterObjectives(objectives.data ?? [], words, eje)
  const label = course ? labels.get(course.id) : undefined
  const defaultTitle = chosenClass ? `${label?.subject ?? 'Clase'} · ${formatDate(chosenClass.session_date)}` : `${label?.subject ?? 'Clase'} · nueva clase`

  function toggle(id: string) {
    setChosen((current) => (current.includes(id) ? current.filter((x) => x !== id) : current.length >= MAX_PLAN_OBJECTIVES ? current : [...current, id]))
  }

  function submit(event: FormEvent) {
    event.preventDefault()
    const found: Record<string, string> = {}
    if (!courseId) found.course = 'Elige el curso.'
    const finalTitle = (title.trim() || defaultTitle).trim()
    if (finalTitle.length > 200) found.title = 'El título puede tener hasta 200 caracteres.'
    if (chosen.length === 0) found.objectives = 'Elige al menos un OA.'
    setProblems(found)
    setSaveError(null)
    if (Object.keys(found).length > 0) return
    const choice = { courseId, title: finalTitle, objectiveIds: chosen, classSessionId: classId, classBlocks: effectiveBlocks }
    const refused = (error: unknown) => setSaveError(isDatabaseError(error) ? databaseErrorMessage(error) : 'No se pudo crear la planificación.')
    if (make) {
      setMaking(true)
      make(choice)
        .then(onCreated, refused)
        .finally(() => setMaking(false))
      return
    }
    create.mutate(choice, { onSuccess: (planId) => onCreated(planId), onError: refused })
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-5" data-testid="new-plan-form">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={ids.course} label="Curso" problem={problems.course}>
          <select
            id={ids.course}
            className={fieldClass}
            value={courseId}
            onChange={(event) => {
              setCourseId(event.target.value)
              setClassId(null)
              setChosen([])
              setEje('')
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
        <Field id={ids.class} label="Clase del calendario">
          <select id={ids.class} className={fieldClass} value={classId ?? ''} disabled={!courseId} onChange={(event) => setClassId(event.target.value || null)}>
            <option value="">Sin clase del calendario</option>
            {open.map((option) => (
              <option key={option.id} value={option.id}>
                {formatShortDay(option.session_date)} {formatDate(option.session_date)} · {option.start_time.slice(0, 5)}
                {option.session_date < today ? ' (pasada)' : ''}
              </option>
            ))}
          </select>
        </Field>
        {make ? null : (
          <Field id={ids.title} label="Título" problem={problems.title}>
            <input id={ids.title} className={fieldClass} value={title} maxLength={200} placeholder={defaultTitle} onChange={(event) => setTitle(event.target.value)} />
          </Field>
        )}
        <Field id={ids.blocks} label="Duración">
          <select id={ids.blocks} className={fieldClass} value={effectiveBlocks} onChange={(event) => setBlocks(Number(event.target.value))}>
            {Array.from({ length: 8 }, (_, index) => index + 1).map((count) => (
              <option key={count} value={count}>
                {count} {count === 1 ? 'bloque' : 'bloques'} de 45 min ({count * 45} min)
              </option>
            ))}
          </select>
        </Field>
      </div>

      <fieldset className="flex flex-col gap-3" disabled={!course}>
        <legend className="text-base font-semibold text-ink">Objetivos de aprendizaje (hasta {MAX_PLAN_OBJECTIVES})</legend>
        {chosen.length > 0 ? (
          <ul className="flex flex-wrap gap-2" aria-label="OA elegidos">
            {chosen.map((id) => (
              <li key={id}>
                <button type="button" onClick={() => toggle(id)} className="rounded-full bg-brand-soft px-3 py-1 text-sm font-medium text-brand-strong" aria-label={`Quitar ${objectives.data?.find((o) => o.id === id)?.code}`}>
                  {objectives.data?.find((o) => o.id === id)?.code} ×
                </button>
              </li>
            ))}
          </ul>
        ) : null}
        {problems.objectives ? (
          <p role="alert" className="text-sm text-bad">
            {problems.objectives}
          </p>
        ) : null}
        <div className="grid gap-2 sm:grid-cols-[1fr_14rem]">
          <label htmlFor={ids.search} className="relative">
            <span className="sr-only">Buscar OA por código o palabras</span>
            <Search aria-hidden="true" className="absolute top-3 left-3 size-5 text-ink-muted" />
            <input id={ids.search} className={cn(fieldClass, 'pl-10')} value={words} onChange={(event) => setWords(event.target.value)} placeholder="Buscar por código o palabras (ej.: fracciones)" />
          </label>
          <label htmlFor={ids.eje}>
            <span className="sr-only">Eje</span>
            <select id={ids.eje} className={fieldClass} value={eje} onChange={(event) => setEje(event.target.value)}>
              <option value="">Todos los ejes</option>
              {ejes.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        </div>
        {!course ? (
          <p className="text-sm text-ink-muted">Elige el curso para ver sus OA.</p>
        ) : objectives.isPending ? (
          <p className="text-sm text-ink-muted">Cargando los OA…</p>
        ) : (
          <ul className="flex max-h-96 flex-col gap-1 overflow-y-auto rounded-lg border border-line p-1" aria-label="OA del currículum" data-testid="objective-list">
            {shown.length === 0 ? <li className="p-3 text-sm text-ink-muted">Ningún OA coincide con la búsqueda.</li> : null}
            {shown.map((objective) => {
              const selected = chosen.includes(objective.id)
              return (
                <li key={objective.id}>
                  <label className={cn('flex cursor-pointer gap-3 rounded-md p-2 hover:bg-surface-muted', selected && 'bg-brand-soft')}>
                    <input
                      type="checkbox"
                      className="mt-1 size-4 shrink-0"
                      checked={selected}
                      disabled={!selected && chosen.length >= MAX_PLAN_OBJECTIVES}
                      onChange={() => toggle(objective.id)}
                    />
                    <span className="text-sm">
                      <strong className="text-ink">{objective.code}</strong>
                      {objective.eje ? <span className="ml-2 text-xs text-ink-muted">{objective.eje}</span> : null}
                      <span className="block text-ink">{objective.statement}</span>
                    </span>
                  </label>
                </li>
              )
            })}
          </ul>
        )}
      </fieldset>

      <FormError message={saveError} testId="new-plan-error" />
      <div className="flex justify-end">
        <Button type="submit" disabled={create.isPending || making} data-testid="create-plan">
          {create.isPending || making ? 'Creando…' : submitLabel}
        </Button>
      </div>
    </form>
  )
}
