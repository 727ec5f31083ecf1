/**
 * Horario: the teacher's week of classes on her school day's grid. She creates blocks on
 * free hours, moves and resizes them (mouse, touch or keyboard), sets up her day (start,
 * hours, breaks) and prints the week. Every change is shown at once and put back if the
 * database refuses it; the reason is always said in Spanish.
 */
import { CalendarDays, Printer, Settings2 } from 'lucide-react'
import { Suspense, useState } from 'react'
import { Link } from 'react-router'
import { Button, buttonClass } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { useCourseLabels, type CourseLabel } from '@/features/courses'
import { useTourRunning } from '@/features/tour'
import { EXAMPLE_LABELS, exampleBlocks } from './schedule-example'
import { displayFullName, useProfile } from '@/features/profile'
import {
  WEEKDAYS,
  WEEKDAY_NAMES,
  useCreateBlock,
  useDeleteBlock,
  useSaveSchoolDay,
  useScheduleBlocks,
  useSchoolDay,
  useUpdateBlock,
  BlockDialog,
  DayDialog,
  PrintWeek,
  WeekGrid,
  describePlace,
  isExample,
  type BlockEditing,
  type ScheduleBlock,
} from '@/features/schedule'
import { useAuth } from '@/lib/auth/auth-provider'
import { cn } from '@/lib/cn'
import { chileToday, isoWeekday } from '@/lib/dates'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { useMediaQuery } from '@/lib/use-media-query'

function refusal(error: unknown): string {
  return isDatabaseError(error) ? databaseErrorMessage(error) : 'No se pudo guardar el horario. Inténtalo de nuevo.'
}

export default function ScheduleRoute() {
  const blocks = useScheduleBlocks()
  const day = useSchoolDay()
  const courses = useCourseLabels()
  const create = useCreateBlock()
  const update = useUpdateBlock()
  const remove = useDeleteBlock()
  const saveDay = useSaveSchoolDay()
  const wide = useMediaQuery('(min-width: 640px)')
  const today = isoWeekday(chileToday())
  const [phoneDay, setPhoneDay] = useState(today <= 5 ? today : 1)
  const [editing, setEditing] = useState<BlockEditing | null>(null)
  const [deleting, setDeleting] = useState<ScheduleBlock | null>(null)
  const [dayOpen, setDayOpen] = useState(false)
  const [saveError, setSaveError] = useState<string | null>(null)
  const [status, setStatus] = useState('')
  // While the page's tour runs, an example week fills the free hours; it is never saved.
  const touring = useTourRunning(paths.schedule)

  if (blocks.isPending || day.isPending || courses.isPending) return <Skeleton className="h-96 w-full" />
  if (blocks.isError || day.isError || courses.isError || !courses.labels) {
    return (
      <p role="alert" className="text-bad">
        No se pudo cargar tu horario.
      </p>
    )
  }
  const shape = day.data
  const examples = touring ? exampleBlocks(shape, blocks.data) : []
  const labels = touring ? new Map([...courses.labels, ...EXAMPLE_LABELS.map((label) => [label.id, label] as const)]) : courses.labels
  const shownBlocks = examples.length > 0 ? [...blocks.data, ...examples] : blocks.data
  const days = wide ? [...WEEKDAYS] : [phoneDay]

  const announce = (message: string) => {
    setStatus(message)
    if (message.startsWith('No se')) notify.warning(message)
  }
  const openEditor = (next: BlockEditing) => {
    setSaveError(null)
    setEditing(next)
  }

  return (
    <div data-testid="schedule-page">
      <div className="print:hidden">
        <PageHeader
          title="Horario"
          description="Tu semana de clases. Haz clic en una hora libre (o arrastra sobre varias) para crear un bloque; arrastra un bloque para moverlo o su borde inferior para cambiar su duración."
        >
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" onClick={() => setDayOpen(true)} data-testid="edit-day" data-tour="edit-day">
              <Settings2 aria-hidden="true" className="size-4" /> Configurar jornada
            </Button>
            <Button variant="secondary" onClick={() => window.print()} disabled={blocks.data.length === 0} data-testid="print-schedule" data-tour="print-schedule">
              <Printer aria-hidden="true" className="size-4" /> Imprimir
            </Button>
            <Link to={paths.calendar} className={buttonClass('ghost')}>
              <CalendarDays aria-hidden="true" className="size-4" /> Ver calendario
            </Link>
          </div>
        </PageHeader>

        {courses.labels.size === 0 && !touring ? (
          <EmptyState
            icon={CalendarDays}
            title="Primero crea tus cursos"
            description="El horario se arma con tus cursos: crea al menos uno en Mis Cursos y vuelve para ubicar sus horas en la semana."
          >
            <Link to={paths.courses} className={buttonClass('primary')}>
              Ir a Mis Cursos
            </Link>
          </EmptyState>
        ) : (
          <>
            <WeeklyHours blocks={shownBlocks} labels={labels} />
            {!wide ? (
              <div role="tablist" aria-label="Día de la semana" className="mb-3 grid grid-cols-5 gap-1">
                {WEEKDAYS.map((weekday) => (
                  <button
                    key={weekday}
                    type="button"
                    role="tab"
                    aria-selected={weekday === phoneDay}
                    className={cn(
                      'min-h-11 rounded-lg text-sm font-medium',
                      weekday === phoneDay ? 'bg-brand text-brand-ink' : 'bg-surface text-ink ring-1 ring-line',
                    )}
                    onClick={() => setPhoneDay(weekday)}
                  >
                    {WEEKDAY_NAMES[weekday]?.slice(0, 3)}
                  </button>
                ))}
              </div>
            ) : null}
            <WeekGrid
              shape={shape}
              blocks={shownBlocks}
              labels={labels}
              days={days}
              onCreate={(place) => openEditor({ mode: 'create', place })}
              onOpen={(block) => (isExample(block.id) ? undefined : openEditor({ mode: 'edit', block }))}
              onAnnounce={announce}
              onMove={(block, place) => {
                if (isExample(block.id)) return
                if (!wide) setPhoneDay(place.weekday)
                setStatus(`${labels.get(block.courseId)?.name ?? 'Bloque'}: ${describePlace(place)}.`)
                update.mutate(
                  { id: block.id, draft: { courseId: block.courseId, room: block.room, weekday: place.weekday, start: place.start, hours: place.hours } },
                  { onError: (error) => notify.error('No se movió el bloque', refusal(error)) },
                )
              }}
            />
            <p role="status" aria-live="polite" className="mt-2 min-h-5 text-sm text-ink-muted" data-testid="schedule-status">
              {status}
            </p>
          </>
        )}
      </div>

      <PrintTitle blocks={blocks.data} labels={courses.labels} shape={shape} />

      <Suspense fallback={null}>
        {editing ? (
          <BlockDialog
            editing={editing}
            shape={shape}
            blocks={blocks.data}
            labels={courses.labels}
            saving={create.isPending || update.isPending}
            saveError={saveError}
            onClose={() => setEditing(null)}
            onDelete={(block) => {
              setEditing(null)
              setDeleting(block)
            }}
            onSave={(draft) => {
              const done = {
                onSuccess: () => {
                  notify.success(editing.mode === 'edit' ? 'Bloque actualizado' : 'Bloque creado', `${labels.get(draft.courseId)?.name ?? ''}, ${describePlace(draft)}`)
                  setEditing(null)
                },
                onError: (error: unknown) => setSaveError(refusal(error)),
              }
              if (editing.mode === 'edit') update.mutate({ id: editing.block.id, draft }, done)
              else create.mutate(draft, done)
            }}
          />
        ) : null}
        {deleting ? (
          <ConfirmDialog
            title="¿Eliminar este bloque?"
            description={`${labels.get(deleting.courseId)?.name ?? 'El bloque'}, ${describePlace(deleting)}. Las clases ya creadas en el calendario se mantienen.`}
            confirmLabel="Eliminar bloque"
            confirmTestId="confirm-delete-block"
            onClose={() => setDeleting(null)}
            onConfirm={() =>
              remove.mutate(deleting.id, {
                onSuccess: () => notify.success('Bloque eliminado'),
                onError: (error) => notify.error('No se pudo eliminar el bloque', refusal(error)),
              })
            }
          />
        ) : null}
        {dayOpen ? (
          <DayDialog
            shape={shape}
            saving={saveDay.isPending}
            saveError={saveError}
            onClose={() => setDayOpen(false)}
            onSave={(next) => {
              setSaveError(null)
              saveDay.mutate(next, {
                onSuccess: () => {
                  notify.success('Jornada guardada')
                  setDayOpen(false)
                },
                onError: (error) => setSaveError(refusal(error)),
              })
            }}
          />
        ) : null}
      </Suspense>
    </div>
  )
}

/** Hours per week of each course: the legend of the grid's colours. */
function WeeklyHours({ blocks, labels }: { blocks: ScheduleBlock[]; labels: Map<string, CourseLabel> }) {
  const hours = new Map<string, number>()
  for (const block of blocks) hours.set(block.courseId, (hours.get(block.courseId) ?? 0) + block.hours)
  const total = [...hours.values()].reduce((sum, value) => sum + value, 0)
  return (
    <section aria-label="Horas semanales por curso" className="mb-4 flex flex-wrap items-center gap-2 text-sm" data-testid="weekly-hours" data-tour="weekly-hours">
      {[...labels.values()].map((label) => (
        <span key={label.id} className="inline-flex items-center gap-2 rounded-full border border-line bg-surface px-3 py-1">
          <span aria-hidden="true" className="size-3 rounded-full" style={{ backgroundColor: label.color }} />
          {label.name}
          <strong className="font-semibold">{hours.get(label.id) ?? 0} h</strong>
        </span>
      ))}
      <span className="text-ink-muted">
        {total === 0 ? 'Aún no tienes bloques en la semana.' : `${total} horas pedagógicas a la semana.`}
      </span>
    </section>
  )
}

function PrintTitle(props: Omit<React.ComponentProps<typeof PrintWeek>, 'title'>) {
  const { user } = useAuth()
  const profile = useProfile()
  const name = displayFullName(profile.data, user?.email)
  return <PrintWeek {...props} title={`Horario 2025 · ${name}`} />
}
