/**
 * Calendario: the school year by month, week or day — holidays where the school is, the
 * region's winter break, the teacher's events and the classes made from her Horario, each
 * with its state and plan. The view and day live in the address (`?vista=mes&fecha=…`), so a
 * reload or a shared link opens the same place; without them the calendar opens on today, or
 * on the nearest class day when today is outside the school year.
 */
import { CalendarPlus, ChevronLeft, ChevronRight, Wand2 } from 'lucide-react'
import { Suspense, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { Button, buttonClass } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import {
  ClassDialog,
  DayView,
  EventDialog,
  FillDialog,
  MonthView,
  WeekView,
  fillRange,
  isInSchoolYear,
  openingDay,
  useClassSessions,
  useDeleteEvent,
  useFillCalendar,
  useNearestClassDays,
  useSaveEvent,
  useSchoolEvents,
  useSchoolYear,
  useSetClassStatus,
  weekRange,
  type CalendarView,
  type ClassSession,
  type EventEditing,
} from '@/features/calendar'
import { useCourseLabels } from '@/features/courses'
import { useScheduleBlocks } from '@/features/schedule'
import { cn } from '@/lib/cn'
import {
  addDays,
  addMonths,
  chileToday,
  formatDate,
  formatDayRange,
  formatLongDate,
  formatMonth,
  isIsoDay,
  monthWeeks,
  type IsoDay,
} from '@/lib/dates'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'

const VIEW_PARAM: Record<string, CalendarView> = { mes: 'month', semana: 'week', dia: 'day' }
const VIEW_NAME: Record<CalendarView, string> = { month: 'mes', week: 'semana', day: 'dia' }
const VIEW_LABEL: Record<CalendarView, string> = { month: 'Mes', week: 'Semana', day: 'Día' }

function refusal(error: unknown, fallback: string): string {
  return isDatabaseError(error) ? databaseErrorMessage(error) : fallback
}

function rangeOf(view: CalendarView, day: IsoDay): { from: IsoDay; to: IsoDay } {
  if (view === 'day') return { from: day, to: day }
  if (view === 'week') return weekRange(day)
  const weeks = monthWeeks(Number(day.slice(0, 4)), Number(day.slice(5, 7)))
  return { from: weeks[0]?.[0] ?? day, to: weeks.at(-1)?.[6] ?? day }
}

function title(view: CalendarView, day: IsoDay): string {
  if (view === 'month') return formatMonth(Number(day.slice(0, 4)), Number(day.slice(5, 7)))
  if (view === 'day') return formatLongDate(day)
  const { from, to } = weekRange(day)
  return `Semana ${formatDayRange(from, addDays(to, -2))}`
}

export default function CalendarRoute() {
  const today = chileToday()
  const [params, setParams] = useSearchParams()
  const schoolYear = useSchoolYear()
  const nearest = useNearestClassDays(today)
  const courses = useCourseLabels()
  const blocks = useScheduleBlocks()
  const view = VIEW_PARAM[params.get('vista') ?? ''] ?? 'week'
  const asked = params.get('fecha')
  const opening = schoolYear.data && nearest.data ? openingDay(today, schoolYear.data.year, nearest.data) : undefined
  const day = asked && isIsoDay(asked) ? asked : (opening ?? today)
  const range = rangeOf(view, day)
  const sessions = useClassSessions(range.from, range.to)
  const events = useSchoolEvents(range.from, range.to)
  const setStatus = useSetClassStatus()
  const fill = useFillCalendar()
  const saveEvent = useSaveEvent()
  const deleteEvent = useDeleteEvent()
  const [openClass, setOpenClass] = useState<ClassSession | null>(null)
  const [eventEditing, setEventEditing] = useState<EventEditing | null>(null)
  const [deletingEvent, setDeletingEvent] = useState<EventEditing | null>(null)
  const [filling, setFilling] = useState(false)
  const [saveError, setSaveError] = useState<string | null>(null)

  const go = (next: { view?: CalendarView; day?: IsoDay }) =>
    setParams({ vista: VIEW_NAME[next.view ?? view], fecha: next.day ?? day }, { replace: false })
  const step = (direction: 1 | -1) =>
    go({ day: view === 'month' ? addMonths(day, direction) : addDays(day, direction * (view === 'week' ? 7 : 1)) })

  if (schoolYear.isPending || nearest.isPending || courses.isPending || blocks.isPending) return <Skeleton className="h-96 w-full" />
  if (schoolYear.isError || nearest.isError || courses.isError || blocks.isError || !courses.labels) {
    return (
      <p role="alert" className="text-bad">
        No se pudo cargar tu calendario.
      </p>
    )
  }
  const labels = courses.labels
  const year = schoolYear.data.year
  // The session in the dialog follows the cache, so a change of state shows at once.
  const shownClass = openClass ? (sessions.data?.find((session) => session.id === openClass.id) ?? openClass) : null
  const viewProps = {
    day,
    today,
    year,
    holidays: schoolYear.data.holidays,
    sessions: sessions.data ?? [],
    events: events.data ?? [],
    labels,
    onOpenClass: (session: ClassSession) => {
      setSaveError(null)
      setOpenClass(session)
    },
    onOpenEvent: (event: NonNullable<typeof events.data>[number]) => {
      setSaveError(null)
      setEventEditing({ mode: 'edit', event })
    },
    onOpenDay: (next: IsoDay) => go({ view: 'day', day: next }),
  }
  const outsideYear = year !== undefined && !isInSchoolYear(today, year)

  return (
    <div data-testid="calendar-page">
      <PageHeader title="Calendario" description="Tu año escolar: clases, feriados, vacaciones y evaluaciones.">
        <div className="flex flex-wrap gap-2">
          <Button onClick={() => (setSaveError(null), setFilling(true))} disabled={labels.size === 0} data-testid="fill-calendar">
            <Wand2 aria-hidden="true" className="size-4" /> Completar con mi horario
          </Button>
          <Button variant="secondary" onClick={() => (setSaveError(null), setEventEditing({ mode: 'create', day }))} data-testid="new-event">
            <CalendarPlus aria-hidden="true" className="size-4" /> Nuevo evento
          </Button>
        </div>
      </PageHeader>

      {labels.size === 0 ? (
        <EmptyState icon={CalendarPlus} title="Primero crea tus cursos" description="Con tus cursos y tu horario, Cielo llena el calendario del año con tus clases, saltando feriados y vacaciones.">
          <Link to={paths.courses} className={buttonClass('primary')}>
            Ir a Mis Cursos
          </Link>
        </EmptyState>
      ) : blocks.data.length === 0 && !nearest.data.before && !nearest.data.after ? (
        <p className="mb-4 rounded-card border border-line bg-surface p-4 text-sm text-ink" data-testid="calendar-hint">
          Tu calendario aún no tiene clases. Arma tu semana en{' '}
          <Link to={paths.schedule} className="font-medium text-brand underline">
            Horario
          </Link>{' '}
          y luego usa «Completar con mi horario».
        </p>
      ) : null}

      {outsideYear && !asked ? (
        <p className="mb-4 rounded-card bg-brand-soft p-3 text-sm text-ink" data-testid="outside-year">
          Hoy ({formatDate(today)}) está fuera del año escolar {year.academicYear}. Te mostramos {nearest.data.before || nearest.data.after ? 'la semana más cercana con clases' : 'el año escolar más cercano'}.
        </p>
      ) : null}

      <div className="mb-4 flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <div className="flex flex-wrap items-center gap-2">
          <Button variant="secondary" className="px-3" aria-label="Anterior" onClick={() => step(-1)} data-testid="calendar-previous">
            <ChevronLeft aria-hidden="true" className="size-4" />
          </Button>
          <Button variant="secondary" onClick={() => go({ day: today })}>
            Hoy
          </Button>
          <Button variant="secondary" className="px-3" aria-label="Siguiente" onClick={() => step(1)} data-testid="calendar-next">
            <ChevronRight aria-hidden="true" className="size-4" />
          </Button>
          <h2 className="order-first w-full text-lg font-semibold text-ink first-letter:uppercase sm:order-none sm:ml-1 sm:w-auto" data-testid="calendar-title">
            {title(view, day)}
          </h2>
        </div>
        <div role="group" aria-label="Vista" className="inline-flex self-start rounded-lg border border-line bg-surface p-0.5">
          {(['month', 'week', 'day'] as const).map((option) => (
            <button
              key={option}
              type="button"
              aria-pressed={option === view}
              onClick={() => go({ view: option })}
              className={cn('min-h-10 rounded-md px-4 text-sm font-medium', option === view ? 'bg-brand text-brand-ink' : 'text-ink hover:bg-surface-muted')}
            >
              {VIEW_LABEL[option]}
            </button>
          ))}
        </div>
      </div>

      {sessions.isError || events.isError ? (
        <p role="alert" className="text-bad">
          No se pudieron cargar las clases de estas fechas.
        </p>
      ) : view === 'month' ? (
        <MonthView {...viewProps} />
      ) : view === 'week' ? (
        <WeekView {...viewProps} />
      ) : (
        <DayView {...viewProps} />
      )}

      <Suspense fallback={null}>
        {shownClass ? (
          <ClassDialog
            session={shownClass}
            label={labels.get(shownClass.course_id)}
            today={today}
            saving={setStatus.isPending}
            saveError={saveError}
            onClose={() => setOpenClass(null)}
            onChangeStatus={(status, reason) => {
              setSaveError(null)
              setStatus.mutate(
                { id: shownClass.id, status, ...(reason === undefined ? {} : { reason }) },
                {
                  onSuccess: () => notify.success(status === 'Realizada' ? 'Clase realizada' : status === 'Cancelada' ? 'Clase cancelada' : 'Clase programada de nuevo'),
                  onError: (error) => setSaveError(refusal(error, 'No se pudo cambiar el estado de la clase.')),
                },
              )
            }}
          />
        ) : null}
        {eventEditing ? (
          <EventDialog
            editing={eventEditing}
            labels={labels}
            saving={saveEvent.isPending}
            saveError={saveError}
            onClose={() => setEventEditing(null)}
            onDelete={() => {
              setDeletingEvent(eventEditing)
              setEventEditing(null)
            }}
            onSave={(draft) => {
              setSaveError(null)
              saveEvent.mutate(
                { ...(eventEditing.mode === 'edit' ? { id: eventEditing.event.id } : {}), draft },
                {
                  onSuccess: () => {
                    notify.success(eventEditing.mode === 'edit' ? 'Evento actualizado' : 'Evento creado', draft.title.trim())
                    setEventEditing(null)
                  },
                  onError: (error) => setSaveError(refusal(error, 'No se pudo guardar el evento.')),
                },
              )
            }}
          />
        ) : null}
        {deletingEvent?.mode === 'edit' ? (
          <ConfirmDialog
            title={`¿Eliminar «${deletingEvent.event.title}»?`}
            description="El evento sale de tu calendario. Las clases de esos días no cambian."
            confirmLabel="Eliminar evento"
            confirmTestId="confirm-delete-event"
            onClose={() => setDeletingEvent(null)}
            onConfirm={() =>
              deleteEvent.mutate(deletingEvent.event.id, {
                onSuccess: () => notify.success('Evento eliminado'),
                onError: (error) => notify.error('No se pudo eliminar el evento', refusal(error, 'Inténtalo de nuevo.')),
              })
            }
          />
        ) : null}
        {filling ? (
          <FillDialog
            year={year}
            regionName={schoolYear.data.regionName}
            initial={year ? fillRange(year) : weekRange(day)}
            saving={fill.isPending}
            saveError={saveError}
            onClose={() => setFilling(false)}
            onFill={(range) => {
              setSaveError(null)
              fill.mutate(range, {
                onSuccess: (created) => {
                  notify.success(
                    created === 0 ? 'No había clases nuevas que crear' : `Se ${created === 1 ? 'creó 1 clase' : `crearon ${created} clases`}`,
                    created === 0 ? 'Tu calendario ya tenía las clases de tu horario en esas fechas.' : undefined,
                  )
                  setFilling(false)
                },
                onError: (error) => setSaveError(refusal(error, 'No se pudo completar el calendario.')),
              })
            }}
          />
        ) : null}
      </Suspense>
    </div>
  )
}
