/**
 * Starting a class plan: the course, the calendar class it is for (or none), its title and
 * length in 45-minute blocks, and its OAs chosen in a browser of the course's curriculum
 * (by eje, code or words, with the official text). The plan is created whole in the database
 * and opened in the editor.
 */
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import type { Course, CourseLabel } from '@/features/courses'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { chileToday, formatClassDay, formatDate } from '@/lib/dates'
import { useCourseClasses, useCreatePlan, useObjectives } from '@/features/planner/api/plans'
import { MAX_PLAN_OBJECTIVES } from '@/features/planner/generation'
import { ObjectivePicker } from './objective-picker'

const ON_DATE = 'otra-fecha'

/** Why a date and hour cannot hold a class (the calendar's rules: Monday to Saturday, from 07:00). */
export function classDateProblem(date: string, start: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return 'Elige la fecha de la clase.'
  if (new Date(`${date}T12:00:00Z`).getUTCDay() === 0) return 'Las clases son de lunes a sábado.'
  if (!/^\d{2}:\d{2}/.test(start) || start < '07:00') return 'La clase empieza a las 07:00 o después.'
  return null
}

/** What the form gathered, for a caller that makes the plan its own way (a draft's promotion). */
export interface PlanChoice {
  courseId: string
  title: string
  objectiveIds: string[]
  classSessionId: string | null
  classBlocks: number
  /** A date (and hour) the calendar has no class on: the class is made with the plan. */
  classDate?: string | null
  classStart?: string | null
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

export function NewPlanForm({ courses, labels, initialCourseId, initialClassId, onCreated, make, submitLabel = 'Crear planificación' }: NewPlanFormProps) {
  const [courseId, setCourseId] = useState(initialCourseId ?? (courses.length === 1 ? (courses[0]?.id ?? '') : ''))
  const course = courses.find((c) => c.id === courseId)
  const classes = useCourseClasses(courseId || null)
  const objectives = useObjectives(course?.level_code, course?.subject_code)
  const create = useCreatePlan()
  const today = chileToday()
  const [classId, setClassId] = useState<string | null>(initialClassId)
  const [onDate, setOnDate] = useState(false)
  const [date, setDate] = useState('')
  const [start, setStart] = useState('08:00')
  const [title, setTitle] = useState('')
  const [blocks, setBlocks] = useState<number | null>(null)
  const [chosen, setChosen] = useState<string[]>([])
  const [problems, setProblems] = useState<Record<string, string>>({})
  const [saveError, setSaveError] = useState<string | null>(null)
  const [making, setMaking] = useState(false)
  const ids = { course: useId(), class: useId(), title: useId(), blocks: useId(), date: useId(), start: useId() }

  const open = (classes.data ?? []).filter((c) => !c.planned || c.id === classId)
  const chosenClass = (classes.data ?? []).find((c) => c.id === classId)
  const effectiveBlocks = blocks ?? chosenClass?.pedagogical_hours ?? 2
  const label = course ? labels.get(course.id) : undefined
  const day = chosenClass?.session_date ?? (onDate && date ? date : null)
  const defaultTitle = day ? `${label?.subject ?? 'Clase'} · ${formatDate(day)}` : `${label?.subject ?? 'Clase'} · nueva clase`

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
    if (onDate) {
      const problem = classDateProblem(date, start)
      if (problem) found.date = problem
    }
    setProblems(found)
    setSaveError(null)
    if (Object.keys(found).length > 0) return
    const choice = {
      courseId,
      title: finalTitle,
      objectiveIds: chosen,
      classSessionId: onDate ? null : classId,
      classBlocks: effectiveBlocks,
      ...(onDate ? { classDate: date, classStart: start } : {}),
    }
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
          <select
            id={ids.class}
            className={fieldClass}
            value={onDate ? ON_DATE : (classId ?? '')}
            disabled={!courseId}
            onChange={(event) => {
              setOnDate(event.target.value === ON_DATE)
              setClassId(event.target.value && event.target.value !== ON_DATE ? event.target.value : null)
            }}
          >
            <option value="">Sin clase del calendario</option>
            {make ? null : <option value={ON_DATE}>Otra fecha…</option>}
            {open.map((option) => (
              <option key={option.id} value={option.id}>
                {formatClassDay(option.session_date)} · {option.start_time.slice(0, 5)}
                {option.session_date < today ? ' (pasada)' : ''}
              </option>
            ))}
          </select>
        </Field>
        {onDate ? (
          <div className="grid grid-cols-[1fr_8rem] gap-2 sm:col-span-2" data-testid="plan-date">
            <Field id={ids.date} label="Fecha de la clase" problem={problems.date}>
              <input id={ids.date} type="date" className={fieldClass} value={date} min="2025-01-01" max="2025-12-31" onChange={(event) => setDate(event.target.value)} />
            </Field>
            <Field id={ids.start} label="Hora">
              <input id={ids.start} type="time" className={fieldClass} value={start} min="07:00" step={300} onChange={(event) => setStart(event.target.value)} />
            </Field>
          </div>
        ) : null}
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

      <ObjectivePicker
        objectives={course ? objectives : null}
        chosen={chosen}
        max={MAX_PLAN_OBJECTIVES}
        onToggle={toggle}
        problem={problems.objectives}
      />

      <FormError message={saveError} testId="new-plan-error" />
      <div className="flex justify-end">
        <Button type="submit" disabled={create.isPending || making} data-testid="create-plan">
          {create.isPending || making ? 'Creando…' : submitLabel}
        </Button>
      </div>
    </form>
  )
}
