/**
 * A school event of the teacher's own (an evaluation, a meeting, an outing…): create, edit or
 * delete it, optionally for one course, all day or with hours, and whether it suspends
 * classes. Events of the whole school (written by its directivo) open read-only.
 */
import { Trash2 } from 'lucide-react'
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { AppDialog } from '@/components/ui/dialog'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import type { CourseLabel } from '@/features/courses'
import { formatLongDate, type IsoDay } from '@/lib/dates'
import type { SchoolEvent } from '@/features/calendar/api/calendar'
import { EVENT_KIND_LABELS, eventProblems, type EventDraft, type EventKind, type EventProblems } from '@/features/calendar/year'

export type EventEditing = { mode: 'create'; day: IsoDay } | { mode: 'edit'; event: SchoolEvent }

export interface EventDialogProps {
  editing: EventEditing
  labels: Map<string, CourseLabel>
  saving: boolean
  saveError: string | null
  onSave: (draft: EventDraft) => void
  onDelete: (event: SchoolEvent) => void
  onClose: () => void
}

export function EventDialog({ editing, labels, saving, saveError, onSave, onDelete, onClose }: EventDialogProps) {
  const event = editing.mode === 'edit' ? editing.event : null
  if (event && event.school_rbd !== null) return <SchoolEventView event={event} onClose={onClose} />
  return <OwnEventForm {...{ editing, labels, saving, saveError, onSave, onDelete, onClose }} />
}

function OwnEventForm({ editing, labels, saving, saveError, onSave, onDelete, onClose }: EventDialogProps) {
  const event = editing.mode === 'edit' ? editing.event : null
  const day = editing.mode === 'create' ? editing.day : (event?.starts_on ?? '')
  const [title, setTitle] = useState(event?.title ?? '')
  const [kind, setKind] = useState<EventKind>(event?.kind ?? 'evaluacion')
  const [startsOn, setStartsOn] = useState(event?.starts_on ?? day)
  const [endsOn, setEndsOn] = useState(event?.ends_on ?? day)
  const [timed, setTimed] = useState(Boolean(event?.start_time))
  const [startTime, setStartTime] = useState(event?.start_time?.slice(0, 5) ?? '08:00')
  const [endTime, setEndTime] = useState(event?.end_time?.slice(0, 5) ?? '09:30')
  const [courseId, setCourseId] = useState(event?.course_id ?? '')
  const [suspends, setSuspends] = useState(event?.suspends_classes ?? false)
  const [description, setDescription] = useState(event?.description ?? '')
  const [problems, setProblems] = useState<EventProblems>({})
  const ids = { title: useId(), kind: useId(), starts: useId(), ends: useId(), start: useId(), end: useId(), course: useId(), description: useId() }
  const courses = [...labels.values()].sort((a, b) => a.name.localeCompare(b.name, 'es'))

  function submit(formEvent: FormEvent) {
    formEvent.preventDefault()
    const draft: EventDraft = {
      title,
      kind,
      starts_on: startsOn,
      ends_on: timed ? startsOn : endsOn,
      start_time: timed ? startTime : null,
      end_time: timed ? endTime : null,
      course_id: courseId || null,
      suspends_classes: suspends,
      description: description || null,
    }
    const found = eventProblems(draft)
    setProblems(found)
    if (Object.keys(found).length === 0) onSave(draft)
  }

  return (
    <AppDialog title={event ? 'Editar evento' : 'Nuevo evento'} description="Pruebas, reuniones, actos o salidas: quedan en tu calendario." onClose={onClose} testId="event-dialog">
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <Field id={ids.title} label="Título" problem={problems.title}>
          <input id={ids.title} className={fieldClass} value={title} maxLength={160} onChange={(e) => setTitle(e.target.value)} placeholder="Ej.: Prueba de fracciones" />
        </Field>
        <div className="grid grid-cols-2 gap-3">
          <Field id={ids.kind} label="Tipo">
            <select id={ids.kind} className={fieldClass} value={kind} onChange={(e) => setKind(e.target.value as EventKind)}>
              {Object.entries(EVENT_KIND_LABELS).map(([value, text]) => (
                <option key={value} value={value}>
                  {text}
                </option>
              ))}
            </select>
          </Field>
          <Field id={ids.course} label="Curso (opcional)">
            <select id={ids.course} className={fieldClass} value={courseId} onChange={(e) => setCourseId(e.target.value)}>
              <option value="">Todos mis cursos</option>
              {courses.map((course) => (
                <option key={course.id} value={course.id}>
                  {course.name}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <label className="flex items-center gap-2 text-sm text-ink">
          <input type="checkbox" className="size-4" checked={timed} onChange={(e) => setTimed(e.target.checked)} />
          Con horario (un solo día)
        </label>
        <div className="grid grid-cols-2 gap-3">
          <Field id={ids.starts} label={timed ? 'Fecha' : 'Desde'} problem={problems.starts_on}>
            <input id={ids.starts} type="date" className={fieldClass} value={startsOn} onChange={(e) => setStartsOn(e.target.value)} />
          </Field>
          {timed ? null : (
            <Field id={ids.ends} label="Hasta" problem={problems.ends_on}>
              <input id={ids.ends} type="date" className={fieldClass} value={endsOn} onChange={(e) => setEndsOn(e.target.value)} />
            </Field>
          )}
        </div>
        {timed ? (
          <div className="grid grid-cols-2 gap-3">
            <Field id={ids.start} label="Hora de inicio" problem={problems.time}>
              <input id={ids.start} type="time" className={fieldClass} value={startTime} onChange={(e) => setStartTime(e.target.value)} />
            </Field>
            <Field id={ids.end} label="Hora de término">
              <input id={ids.end} type="time" className={fieldClass} value={endTime} onChange={(e) => setEndTime(e.target.value)} />
            </Field>
          </div>
        ) : null}
        <label className="flex items-start gap-2 text-sm text-ink">
          <input type="checkbox" className="mt-0.5 size-4" checked={suspends} onChange={(e) => setSuspends(e.target.checked)} />
          <span>
            Suspende las clases
            <span className="block text-xs text-ink-muted">Al completar el calendario no se crean clases en estos días.</span>
          </span>
        </label>
        <Field id={ids.description} label="Descripción (opcional)" problem={problems.description}>
          <textarea id={ids.description} className={`${fieldClass} min-h-20 py-2`} value={description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
        <FormError message={saveError} testId="event-error" />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:items-center">
          {event ? (
            <Button variant="ghost" className="text-bad sm:mr-auto" onClick={() => onDelete(event)} data-testid="delete-event">
              <Trash2 aria-hidden="true" className="size-4" /> Eliminar
            </Button>
          ) : null}
          <Button variant="secondary" className="sm:ml-auto" onClick={onClose}>
            Cancelar
          </Button>
          <Button type="submit" disabled={saving} data-testid="save-event">
            {saving ? 'Guardando…' : event ? 'Guardar cambios' : 'Crear evento'}
          </Button>
        </div>
      </form>
    </AppDialog>
  )
}

function SchoolEventView({ event, onClose }: { event: SchoolEvent; onClose: () => void }) {
  const when =
    event.starts_on === event.ends_on
      ? formatLongDate(event.starts_on)
      : `Del ${formatLongDate(event.starts_on)} al ${formatLongDate(event.ends_on)}`
  return (
    <AppDialog title={event.title} description={`${EVENT_KIND_LABELS[event.kind]} del establecimiento`} onClose={onClose} size="small" testId="event-dialog">
      <div className="flex flex-col gap-2 text-sm text-ink">
        <p className="first-letter:uppercase">{when}</p>
        {event.start_time ? (
          <p>
            {event.start_time.slice(0, 5)}–{event.end_time?.slice(0, 5)}
          </p>
        ) : null}
        {event.suspends_classes ? <p className="font-medium text-bad">No hay clases.</p> : null}
        {event.description ? <p className="whitespace-pre-line text-ink-muted">{event.description}</p> : null}
        <p className="text-xs text-ink-muted">Lo publicó la dirección del establecimiento.</p>
      </div>
    </AppDialog>
  )
}
