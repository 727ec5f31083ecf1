/**
 * The school year as data: which days have no classes (public holidays where the school is,
 * the region's winter break, days before classes start or after they end), which day the
 * calendar opens on, and the rules a school event must follow (the same the database checks).
 * All days are plain `YYYY-MM-DD` strings of Chile's calendar.
 */
import { addDays, daysBetween, isIsoDay, isWithin, startOfWeek, type IsoDay } from '@/lib/dates'

/** A region's school calendar for one year (`school_calendars`). */
export interface SchoolYear {
  academicYear: number
  regionCode: number
  studentsStart: IsoDay
  winterBreakStart: IsoDay
  winterBreakEnd: IsoDay
  /** End of classes (jornada escolar completa). */
  classesEnd: IsoDay
}

export interface Holiday {
  date: IsoDay
  name: string
}

/** What a day of the year is, for drawing it and for saying why it has no classes. */
export interface DayFacts {
  holiday: string | null
  winterBreak: boolean
  outsideYear: boolean
}

export function dayFacts(day: IsoDay, year: SchoolYear | undefined, holidays: Holiday[]): DayFacts {
  return {
    holiday: holidays.find((holiday) => holiday.date === day)?.name ?? null,
    winterBreak: year ? isWithin(day, year.winterBreakStart, year.winterBreakEnd) : false,
    outsideYear: year ? !isWithin(day, year.studentsStart, year.classesEnd) : false,
  }
}

/** Whether `today` falls between the first and last day of classes. */
export function isInSchoolYear(today: IsoDay, year: SchoolYear): boolean {
  return isWithin(today, year.studentsStart, year.classesEnd)
}

/**
 * The day the calendar opens on: today during the school year; otherwise the class day
 * nearest to today (the last one before it or the first one after it), or, without classes,
 * the nearest end of the school year.
 */
export function openingDay(
  today: IsoDay,
  year: SchoolYear | undefined,
  nearest: { before: IsoDay | null; after: IsoDay | null },
): IsoDay {
  if (!year || isInSchoolYear(today, year)) return today
  const { before, after } = nearest
  if (before && after) return daysBetween(before, today) <= daysBetween(today, after) ? before : after
  if (before ?? after) return (before ?? after) as IsoDay
  return today < year.studentsStart ? year.studentsStart : year.classesEnd
}

/** The school year to show: the one running today, else the latest that has ended, else the first. */
export function currentSchoolYear(years: SchoolYear[], today: IsoDay): SchoolYear | undefined {
  const sorted = [...years].sort((a, b) => a.academicYear - b.academicYear)
  const thisYear = Number(today.slice(0, 4))
  return (
    sorted.find((year) => year.academicYear === thisYear && today <= year.classesEnd) ??
    [...sorted].reverse().find((year) => year.classesEnd < today) ??
    sorted[0]
  )
}

/** The range `schedule_classes` fills by default: the year's days of classes. */
export function fillRange(year: SchoolYear): { from: IsoDay; to: IsoDay } {
  return { from: year.studentsStart, to: year.classesEnd }
}

/** Why the database would refuse to fill this range, in Spanish; `null` when it would not. */
export function fillRangeProblem(from: string, to: string): string | null {
  if (!isIsoDay(from) || !isIsoDay(to)) return 'Elige las dos fechas.'
  if (to < from) return 'La fecha final debe ser posterior a la inicial.'
  if (daysBetween(from, to) > 366) return 'El rango puede abarcar hasta un año.'
  return null
}

export type EventKind = 'evaluacion' | 'reunion' | 'acto' | 'jornada' | 'salida_pedagogica' | 'suspension' | 'otro'

export const EVENT_KIND_LABELS: Record<EventKind, string> = {
  evaluacion: 'Evaluación',
  reunion: 'Reunión',
  acto: 'Acto',
  jornada: 'Jornada',
  salida_pedagogica: 'Salida pedagógica',
  suspension: 'Suspensión de clases',
  otro: 'Otro',
}

export interface EventDraft {
  title: string
  kind: EventKind
  starts_on: IsoDay
  ends_on: IsoDay
  start_time: string | null
  end_time: string | null
  course_id: string | null
  suspends_classes: boolean
  description: string | null
}

export type EventProblems = Partial<Record<'title' | 'starts_on' | 'ends_on' | 'time' | 'description', string>>

/** What is wrong with an event, by field, with the database's rules; empty when nothing. */
export function eventProblems(draft: EventDraft): EventProblems {
  const problems: EventProblems = {}
  const title = draft.title.trim()
  if (title.length < 1) problems.title = 'Escribe un título.'
  else if (title.length > 160) problems.title = 'El título puede tener hasta 160 caracteres.'
  if (!isIsoDay(draft.starts_on)) problems.starts_on = 'Elige la fecha.'
  if (!isIsoDay(draft.ends_on)) problems.ends_on = 'Elige la fecha de término.'
  else if (isIsoDay(draft.starts_on)) {
    if (draft.ends_on < draft.starts_on) problems.ends_on = 'Termina antes de empezar.'
    else if (daysBetween(draft.starts_on, draft.ends_on) > 92) problems.ends_on = 'Un evento dura hasta 93 días.'
  }
  if ((draft.start_time === null) !== (draft.end_time === null)) problems.time = 'Indica la hora de inicio y de término.'
  else if (draft.start_time !== null && draft.end_time !== null) {
    if (draft.end_time <= draft.start_time) problems.time = 'La hora de término debe ser posterior a la de inicio.'
    else if (draft.starts_on !== draft.ends_on) problems.time = 'Un evento con horario dura un solo día.'
  }
  if ((draft.description ?? '').length > 4000) problems.description = 'La descripción puede tener hasta 4000 caracteres.'
  return problems
}

/** The Monday-to-Sunday weeks a view needs, as the range to read: [from, to]. */
export function weekRange(day: IsoDay): { from: IsoDay; to: IsoDay } {
  const monday = startOfWeek(day)
  return { from: monday, to: addDays(monday, 6) }
}

/** A `holidays` row as read. */
export interface HolidayRow {
  holiday_date: string
  name: string
  scope: 'nacional' | 'regional' | 'comunal'
  region_code: number | null
  comunas: string[]
}

/** The holidays that apply at a school: national ones, its region's and its comuna's. */
export function holidaysAt(rows: HolidayRow[], regionCode: number, comuna: string | null): Holiday[] {
  return rows
    .filter(
      (row) =>
        row.scope === 'nacional' ||
        (row.region_code === regionCode && (row.scope === 'regional' || (comuna !== null && row.comunas.includes(comuna)))),
    )
    .map((row) => ({ date: row.holiday_date, name: row.name }))
}
