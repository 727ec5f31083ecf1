/**
 * One class of the calendar: its course, day and hours, its state with only the changes the
 * database allows now (Programada → Realizada once its day has come, or → Cancelada with a
 * reason; Cancelada → Programada), and its plan — opened, or created for it.
 */
import { CalendarCheck, CalendarX, FileText, RotateCcw } from 'lucide-react'
import { useId, useState } from 'react'
import { Link } from 'react-router'
import { Button, buttonClass } from '@/components/ui/button'
import { AppDialog } from '@/components/ui/dialog'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import { paths } from '@/config/paths'
import type { CourseLabel } from '@/features/courses'
import { formatLongDate, type IsoDay } from '@/lib/dates'
import type { ClassSession } from '@/features/calendar/api/calendar'
import { nextStatuses, transitionProblem, type ClassStatus } from '@/features/calendar/transitions'
import { StatusBadge } from './calendar-views'

export interface ClassDialogProps {
  session: ClassSession
  label: CourseLabel | undefined
  today: IsoDay
  saving: boolean
  saveError: string | null
  onChangeStatus: (status: ClassStatus, reason?: string) => void
  onClose: () => void
}

export function ClassDialog({ session, label, today, saving, saveError, onChangeStatus, onClose }: ClassDialogProps) {
  const [cancelling, setCancelling] = useState(false)
  const [reason, setReason] = useState('')
  const [problem, setProblem] = useState<string | undefined>()
  const reasonId = useId()
  const status = session.status as ClassStatus
  const allowed = nextStatuses(status, session.session_date, today)
  const start = session.start_time.slice(0, 5)

  function change(to: ClassStatus, why?: string) {
    const refused = transitionProblem(status, to, session.session_date, today, why)
    setProblem(refused ?? undefined)
    if (!refused) onChangeStatus(to, why)
  }

  return (
    <AppDialog
      title={label?.name ?? 'Clase'}
      description={`${formatLongDate(session.session_date)} · ${start} · ${session.pedagogical_hours} ${session.pedagogical_hours === 1 ? 'hora pedagógica' : 'horas pedagógicas'}`}
      onClose={onClose}
      testId="class-dialog"
    >
      <div className="flex flex-col gap-4">
        <div className="flex flex-wrap items-center gap-2 text-sm text-ink">
          Estado: <StatusBadge status={status} />
        </div>
        {status === 'Cancelada' && session.cancellation_reason ? (
          <p className="rounded-lg bg-bad-soft p-3 text-sm text-bad" data-testid="cancellation-reason">
            Motivo: {session.cancellation_reason}
          </p>
        ) : null}
        {status === 'Realizada' ? <p className="text-sm text-ink-muted">Una clase realizada queda registrada así.</p> : null}
        {status === 'Programada' && !allowed.includes('Realizada') ? (
          <p className="text-sm text-ink-muted">Podrás marcarla como realizada desde el día de la clase.</p>
        ) : null}

        {cancelling ? (
          <form
            className="flex flex-col gap-3"
            onSubmit={(event) => {
              event.preventDefault()
              change('Cancelada', reason)
            }}
          >
            <Field id={reasonId} label="¿Por qué se canceló?" problem={problem}>
              <textarea
                id={reasonId}
                className={`${fieldClass} min-h-20 py-2`}
                value={reason}
                maxLength={500}
                onChange={(event) => setReason(event.target.value)}
                placeholder="Ej.: Acto del aniversario del colegio"
              />
            </Field>
            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <Button variant="secondary" onClick={() => setCancelling(false)}>
                Volver
              </Button>
              <Button type="submit" variant="danger" disabled={saving} data-testid="confirm-cancel-class">
                Cancelar clase
              </Button>
            </div>
          </form>
        ) : (
          <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap">
            {allowed.includes('Realizada') ? (
              <Button onClick={() => change('Realizada')} disabled={saving} data-testid="mark-done">
                <CalendarCheck aria-hidden="true" className="size-4" /> Marcar como realizada
              </Button>
            ) : null}
            {allowed.includes('Cancelada') ? (
              <Button variant="secondary" onClick={() => setCancelling(true)} disabled={saving} data-testid="cancel-class">
                <CalendarX aria-hidden="true" className="size-4" /> Cancelar clase
              </Button>
            ) : null}
            {allowed.includes('Programada') ? (
              <Button variant="secondary" onClick={() => change('Programada')} disabled={saving} data-testid="reschedule-class">
                <RotateCcw aria-hidden="true" className="size-4" /> Volver a programar
              </Button>
            ) : null}
          </div>
        )}
        {!cancelling && problem ? (
          <p role="alert" className="text-sm text-bad">
            {problem}
          </p>
        ) : null}
        <FormError message={saveError} testId="class-error" />

        <div className="border-t border-line pt-4">
          {session.planId ? (
            <Link to={session.planLink ?? paths.plan(session.planId)} className={buttonClass('secondary', 'w-full sm:w-auto')} data-testid="open-plan">
              <FileText aria-hidden="true" className="size-4" /> Ver planificación
            </Link>
          ) : (
            <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
              <p className="text-sm text-ink-muted">Esta clase aún no tiene planificación.</p>
              <Link to={paths.planForClass(session.id)} className={buttonClass('primary')} data-testid="plan-class">
                <FileText aria-hidden="true" className="size-4" /> Planificar esta clase
              </Link>
            </div>
          )}
        </div>
      </div>
    </AppDialog>
  )
}
