/**
 * Creating or editing one block of the week: course, day, first hour, length and room. The
 * place is checked as the teacher changes it (the same overlap and day rules the database
 * enforces), so the reason shows before anything is sent; a refusal that still comes back
 * from the database is shown in the dialog.
 */
import { Trash2 } from 'lucide-react'
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { AppDialog } from '@/components/ui/dialog'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import type { CourseLabel } from '@/features/courses'
import {
  MAX_BLOCK_HOURS,
  WEEKDAYS,
  WEEKDAY_NAMES,
  dayRows,
  formatTime,
  hoursUntilBreak,
  type DayShape,
  type TimedBlock,
} from '@/features/schedule/grid'
import type { BlockDraft, ScheduleBlock } from '@/features/schedule/api/schedule'
import { placeProblem } from './week-grid'

export type BlockEditing = { mode: 'create'; place: TimedBlock } | { mode: 'edit'; block: ScheduleBlock }

export interface BlockDialogProps {
  editing: BlockEditing
  shape: DayShape
  blocks: ScheduleBlock[]
  labels: Map<string, CourseLabel>
  saving: boolean
  saveError: string | null
  onSave: (draft: BlockDraft) => void
  onDelete: (block: ScheduleBlock) => void
  onClose: () => void
}

export function BlockDialog({ editing, shape, blocks, labels, saving, saveError, onSave, onDelete, onClose }: BlockDialogProps) {
  const initial = editing.mode === 'edit' ? editing.block : editing.place
  const courses = [...labels.values()].sort((a, b) => a.name.localeCompare(b.name, 'es'))
  const [courseId, setCourseId] = useState(editing.mode === 'edit' ? editing.block.courseId : (courses.length === 1 ? courses[0]?.id ?? '' : ''))
  const [weekday, setWeekday] = useState(initial.weekday)
  const [start, setStart] = useState(initial.start)
  const [hours, setHours] = useState(initial.hours)
  const [room, setRoom] = useState(editing.mode === 'edit' ? (editing.block.room ?? '') : '')
  const [courseProblem, setCourseProblem] = useState<string | undefined>()
  const ids = { course: useId(), day: useId(), start: useId(), hours: useId(), room: useId() }

  const hourRows = dayRows(shape).filter((row) => row.kind === 'hour')
  const startOptions = hourRows.some((row) => row.start === start)
    ? hourRows.map((row) => ({ value: row.start, label: `${row.hour}ª hora · ${formatTime(row.start)}` }))
    : [{ value: start, label: `${formatTime(start)} (fuera de la jornada)` }, ...hourRows.map((row) => ({ value: row.start, label: `${row.hour}ª hora · ${formatTime(row.start)}` }))]
  const maxHours = hoursUntilBreak(shape, start) || MAX_BLOCK_HOURS
  const place: TimedBlock = { weekday, start, hours, ...(editing.mode === 'edit' ? { id: editing.block.id } : {}) }
  const problem = placeProblem(shape, blocks, labels, place)

  function submit(event: FormEvent) {
    event.preventDefault()
    if (!courseId) {
      setCourseProblem('Elige el curso de este bloque.')
      return
    }
    if (room.trim().length > 60) return
    if (problem) return
    onSave({ courseId, weekday, start, hours, room: room.trim() || null })
  }

  return (
    <AppDialog
      title={editing.mode === 'edit' ? 'Editar bloque' : 'Nuevo bloque'}
      description="Un bloque se repite cada semana del año escolar."
      onClose={onClose}
      testId="block-dialog"
    >
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <Field id={ids.course} label="Curso" problem={courseProblem}>
          <select
            id={ids.course}
            className={fieldClass}
            value={courseId}
            onChange={(event) => {
              setCourseId(event.target.value)
              setCourseProblem(undefined)
            }}
          >
            <option value="">Elige un curso</option>
            {courses.map((course) => (
              <option key={course.id} value={course.id}>
                {course.name}
              </option>
            ))}
          </select>
        </Field>
        <div className="grid grid-cols-2 gap-3">
          <Field id={ids.day} label="Día">
            <select id={ids.day} className={fieldClass} value={weekday} onChange={(event) => setWeekday(Number(event.target.value))}>
              {WEEKDAYS.map((day) => (
                <option key={day} value={day}>
                  {WEEKDAY_NAMES[day]}
                </option>
              ))}
            </select>
          </Field>
          <Field id={ids.start} label="Desde">
            <select
              id={ids.start}
              className={fieldClass}
              value={start}
              onChange={(event) => {
                const next = Number(event.target.value)
                setStart(next)
                setHours((current) => Math.min(current, hoursUntilBreak(shape, next) || MAX_BLOCK_HOURS))
              }}
            >
              {startOptions.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <div className="grid grid-cols-2 gap-3">
          <Field id={ids.hours} label="Duración">
            <select id={ids.hours} className={fieldClass} value={hours} onChange={(event) => setHours(Number(event.target.value))}>
              {Array.from({ length: Math.max(maxHours, hours) }, (_, index) => index + 1).map((count) => (
                <option key={count} value={count}>
                  {count} {count === 1 ? 'hora' : 'horas'} ({count * 45} min)
                </option>
              ))}
            </select>
          </Field>
          <Field id={ids.room} label="Sala (opcional)" problem={room.trim().length > 60 ? 'Hasta 60 caracteres.' : undefined}>
            <input id={ids.room} className={fieldClass} value={room} onChange={(event) => setRoom(event.target.value)} placeholder="Ej.: Sala 12" autoComplete="off" />
          </Field>
        </div>
        {problem ? (
          <p role="alert" className="rounded-lg bg-wait-soft p-3 text-sm text-wait" data-testid="block-problem">
            {problem}
          </p>
        ) : null}
        <FormError message={saveError} testId="block-error" />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:items-center">
          {editing.mode === 'edit' ? (
            <Button variant="ghost" className="text-bad sm:mr-auto" onClick={() => onDelete(editing.block)} data-testid="delete-block">
              <Trash2 aria-hidden="true" className="size-4" /> Eliminar bloque
            </Button>
          ) : null}
          <Button variant="secondary" className="sm:ml-auto" onClick={onClose}>
            Cancelar
          </Button>
          <Button type="submit" disabled={saving || problem !== null} data-testid="save-block">
            {saving ? 'Guardando…' : editing.mode === 'edit' ? 'Guardar cambios' : 'Crear bloque'}
          </Button>
        </div>
      </form>
    </AppDialog>
  )
}
