/**
 * The calendar's three views of the same data: a month of weeks (Monday first), a week of
 * days and one day. Each day says why it has no classes (a holiday, the winter break, outside
 * the school year); classes carry their course colour and state, events their kind. Choosing
 * a class or an event opens it; choosing a day in the month opens that day.
 */
import { Check, FileText, X } from 'lucide-react'
import type { CourseLabel } from '@/features/courses'
import { cn } from '@/lib/cn'
import { dayRange, formatLongDate, formatShortDay, monthWeeks, startOfWeek, type IsoDay } from '@/lib/dates'
import type { ClassSession, SchoolEvent } from '@/features/calendar/api/calendar'
import { dayFacts, EVENT_KIND_LABELS, type DayFacts, type Holiday, type SchoolYear } from '@/features/calendar/year'

export type CalendarView = 'month' | 'week' | 'day'

export interface ViewProps {
  day: IsoDay
  today: IsoDay
  year: SchoolYear | undefined
  holidays: Holiday[]
  sessions: ClassSession[]
  events: SchoolEvent[]
  labels: Map<string, CourseLabel>
  onOpenClass: (session: ClassSession) => void
  onOpenEvent: (event: SchoolEvent) => void
  onOpenDay: (day: IsoDay) => void
}

const time = (value: string | null) => value?.slice(0, 5) ?? ''

function endTime(session: ClassSession): string {
  const [hours = 0, minutes = 0] = session.start_time.split(':').map(Number)
  const end = hours * 60 + minutes + 45 * session.pedagogical_hours
  return `${String(Math.floor(end / 60)).padStart(2, '0')}:${String(end % 60).padStart(2, '0')}`
}

function eventsOn(events: SchoolEvent[], day: IsoDay) {
  return events.filter((event) => event.starts_on <= day && day <= event.ends_on)
}

function sessionsOn(sessions: ClassSession[], day: IsoDay) {
  return sessions.filter((session) => session.session_date === day)
}

/** Why a day has no classes, in a few words; `null` on a school day. */
export function noClassReason(facts: DayFacts): string | null {
  if (facts.holiday) return `Feriado: ${facts.holiday}`
  if (facts.winterBreak) return 'Vacaciones de invierno'
  if (facts.outsideYear) return 'Sin clases (fuera del año escolar)'
  return null
}

const STATUS_STYLE: Record<string, string> = {
  Programada: 'bg-surface-muted text-ink',
  Realizada: 'bg-ok-soft text-ok',
  Cancelada: 'bg-bad-soft text-bad',
}

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={cn('inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium', STATUS_STYLE[status])} data-testid="class-status">
      {status === 'Realizada' ? <Check aria-hidden="true" className="size-3" /> : status === 'Cancelada' ? <X aria-hidden="true" className="size-3" /> : null}
      {status}
    </span>
  )
}

export function ClassCard({ session, label, onOpen, compact = false }: { session: ClassSession; label: CourseLabel | undefined; onOpen: () => void; compact?: boolean }) {
  const cancelled = session.status === 'Cancelada'
  return (
    <button
      type="button"
      onClick={onOpen}
      className="flex w-full flex-col gap-1 rounded-lg border-l-4 px-2 py-1.5 text-left text-ink shadow-sm hover:brightness-95 focus-visible:outline-2 focus-visible:outline-brand"
      style={{
        borderLeftColor: label?.color ?? '#2563eb',
        backgroundColor: `color-mix(in srgb, ${label?.color ?? '#2563eb'} 14%, var(--color-surface))`,
      }}
      data-testid="calendar-class"
      data-course={label?.name}
      data-day={session.session_date}
      aria-label={`${label?.name ?? 'Clase'}, ${formatLongDate(session.session_date)}, ${time(session.start_time)} a ${endTime(session)}, ${session.status}${session.cancellation_reason ? ` (${session.cancellation_reason})` : ''}`}
      title={session.cancellation_reason ? `Cancelada: ${session.cancellation_reason}` : undefined}
    >
      <span className="flex items-center justify-between gap-2 text-xs text-ink-muted">
        <span>
          {time(session.start_time)}–{endTime(session)}
        </span>
        {session.planId ? <FileText aria-label="Con planificación" className="size-3.5 text-brand" /> : null}
      </span>
      <span className={cn('truncate text-sm font-semibold', cancelled && 'line-through')}>{label?.subject ?? 'Clase'}</span>
      {!compact ? <span className="truncate text-xs">{label?.group}</span> : null}
      <StatusBadge status={session.status} />
    </button>
  )
}

function EventCard({ event, onOpen }: { event: SchoolEvent; onOpen: () => void }) {
  return (
    <button
      type="button"
      onClick={onOpen}
      className="flex w-full flex-col rounded-lg border border-wait-line bg-wait-soft px-2 py-1 text-left text-xs text-wait hover:brightness-95 focus-visible:outline-2 focus-visible:outline-brand"
      data-testid="calendar-event"
    >
      <span className="font-semibold">{event.title}</span>
      <span>
        {EVENT_KIND_LABELS[event.kind]}
        {event.start_time ? ` · ${time(event.start_time)}–${time(event.end_time)}` : ''}
        {event.suspends_classes ? ' · sin clases' : ''}
      </span>
    </button>
  )
}

function DayBanner({ facts }: { facts: DayFacts }) {
  const reason = noClassReason(facts)
  if (!reason) return null
  return (
    <p className={cn('rounded-md px-2 py-1 text-xs font-medium', facts.holiday ? 'bg-bad-soft text-bad' : 'bg-surface-muted text-ink-muted')} data-testid="day-banner">
      {reason}
    </p>
  )
}

/** One day's column or section: banner, events, classes by time. */
function DayColumn({ day, props, heading }: { day: IsoDay; props: ViewProps; heading: 'short' | 'long' }) {
  const facts = dayFacts(day, props.year, props.holidays)
  const classes = sessionsOn(props.sessions, day)
  const events = eventsOn(props.events, day)
  const isToday = day === props.today
  return (
    <section className="flex min-w-0 flex-col gap-2 rounded-card border border-line bg-surface p-2" aria-label={formatLongDate(day)} data-testid="calendar-day" data-day={day}>
      <h3 className={cn('text-sm font-semibold capitalize', isToday ? 'text-brand' : 'text-ink')}>
        {heading === 'short' ? formatShortDay(day) : formatLongDate(day)}
        {isToday ? <span className="ml-1 text-xs font-normal">(hoy)</span> : null}
      </h3>
      <DayBanner facts={facts} />
      {events.map((event) => (
        <EventCard key={event.id} event={event} onOpen={() => props.onOpenEvent(event)} />
      ))}
      {classes.map((session) => (
        <ClassCard key={session.id} session={session} label={props.labels.get(session.course_id)} onOpen={() => props.onOpenClass(session)} />
      ))}
      {classes.length === 0 && events.length === 0 && !noClassReason(facts) ? <p className="text-xs text-ink-muted">Sin clases.</p> : null}
    </section>
  )
}

export function WeekView(props: ViewProps) {
  const monday = startOfWeek(props.day)
  const days = dayRange(monday, 7).filter(
    (day, index) => index < 5 || sessionsOn(props.sessions, day).length > 0 || eventsOn(props.events, day).length > 0,
  )
  return (
    <div className="grid gap-2 sm:grid-cols-[repeat(auto-fit,minmax(9rem,1fr))]" data-testid="week-view">
      {days.map((day) => (
        <DayColumn key={day} day={day} props={props} heading="short" />
      ))}
    </div>
  )
}

export function DayView(props: ViewProps) {
  return (
    <div data-testid="day-view">
      <DayColumn day={props.day} props={props} heading="long" />
    </div>
  )
}

const WEEKDAY_HEADERS = ['Lun', 'Mar', 'Mié', 'Jue', 'Vie', 'Sáb', 'Dom']

export function MonthView(props: ViewProps) {
  const year = Number(props.day.slice(0, 4))
  const month = Number(props.day.slice(5, 7))
  const weeks = monthWeeks(year, month)
  return (
    <div className="overflow-hidden rounded-card border border-line bg-surface" data-testid="month-view">
      <div className="grid grid-cols-7 border-b border-line text-center text-xs font-semibold text-ink-muted">
        {WEEKDAY_HEADERS.map((name) => (
          <div key={name} className="py-2">
            {name}
          </div>
        ))}
      </div>
      {weeks.map((week) => (
        <div key={week[0]} className="grid grid-cols-7 border-b border-line last:border-b-0">
          {week.map((day) => {
            const facts = dayFacts(day, props.year, props.holidays)
            const classes = sessionsOn(props.sessions, day)
            const events = eventsOn(props.events, day)
            const inMonth = Number(day.slice(5, 7)) === month
            const reason = noClassReason(facts)
            return (
              <button
                key={day}
                type="button"
                onClick={() => props.onOpenDay(day)}
                className={cn(
                  'flex min-h-20 min-w-0 flex-col gap-1 border-l border-line p-1 text-left first:border-l-0 hover:bg-surface-muted focus-visible:outline-2 focus-visible:outline-brand sm:min-h-28',
                  !inMonth && 'opacity-45',
                  facts.winterBreak && 'bg-surface-muted',
                )}
                aria-label={`${formatLongDate(day)}: ${classes.length} ${classes.length === 1 ? 'clase' : 'clases'}${reason ? `, ${reason}` : ''}`}
                data-testid="month-day"
                data-day={day}
              >
                <span className={cn('text-xs font-semibold', day === props.today ? 'text-brand' : facts.holiday ? 'text-bad' : 'text-ink')}>
                  {Number(day.slice(8, 10))}
                </span>
                {facts.holiday ? <span className="hidden truncate text-[11px] text-bad sm:block">{facts.holiday}</span> : null}
                {facts.winterBreak ? <span className="hidden truncate text-[11px] text-ink-muted sm:block">Vacaciones</span> : null}
                {events.slice(0, 1).map((event) => (
                  <span key={event.id} className="hidden truncate rounded bg-wait-soft px-1 text-[11px] text-wait sm:block">
                    {event.title}
                  </span>
                ))}
                <span className="hidden flex-col gap-0.5 sm:flex">
                  {classes.slice(0, 3).map((session) => (
                    <span key={session.id} className={cn('flex items-center gap-1 truncate text-[11px]', session.status === 'Cancelada' && 'line-through opacity-70')}>
                      <span aria-hidden="true" className="size-2 shrink-0 rounded-full" style={{ backgroundColor: props.labels.get(session.course_id)?.color }} />
                      {time(session.start_time)} {props.labels.get(session.course_id)?.subject}
                    </span>
                  ))}
                  {classes.length > 3 ? <span className="text-[11px] text-ink-muted">+{classes.length - 3} más</span> : null}
                </span>
                {/* Phones: a dot per event and per class, in its course's colour. */}
                <span className="flex flex-wrap gap-0.5 sm:hidden" aria-hidden="true">
                  {events.length > 0 ? <span className="size-1.5 rounded-full bg-wait" /> : null}
                  {classes.slice(0, 6).map((session) => (
                    <span key={session.id} className="size-1.5 rounded-full" style={{ backgroundColor: props.labels.get(session.course_id)?.color }} />
                  ))}
                </span>
              </button>
            )
          })}
        </div>
      ))}
    </div>
  )
}
