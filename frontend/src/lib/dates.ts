/** Dates as people in Chile write them: 21-05-2025, "miércoles, 21 de mayo de 2025". */

const LOCALE = 'es-CL'
const TIME_ZONE = 'America/Santiago'

/** A calendar date (`YYYY-MM-DD`) or an instant, as dd-mm-yyyy. */
export function formatDate(value: string | Date): string {
  const date = toDate(value)
  const plainDay = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)
  return new Intl.DateTimeFormat(LOCALE, {
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    timeZone: plainDay ? 'UTC' : TIME_ZONE,
  }).format(date)
}

/** Long form, e.g. "miércoles, 21 de mayo de 2025". */
export function formatLongDate(value: string | Date): string {
  const plainDay = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)
  return new Intl.DateTimeFormat(LOCALE, {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: plainDay ? 'UTC' : TIME_ZONE,
  }).format(toDate(value))
}

/** An instant as Chile reads it, e.g. "29-11-2026 14:05". */
export function formatDateTime(value: string | Date): string {
  const time = new Intl.DateTimeFormat(LOCALE, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: TIME_ZONE }).format(toDate(value))
  return `${formatDate(value)} ${time}`
}

function toDate(value: string | Date): Date {
  if (value instanceof Date) return value
  // A plain calendar day is midnight UTC, shown in UTC so it never shifts a day.
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(value)
}

// Calendar arithmetic on plain days (`YYYY-MM-DD`). Days are computed in UTC, where every day
// has 24 hours, so Chile's clock changes never move a date; "today" is Chile's.

/** A plain calendar day, `YYYY-MM-DD`. */
export type IsoDay = string

const DAY_MS = 86_400_000
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/

/** Today in Chile (America/Santiago), whatever the device's time zone. */
export function chileToday(now: Date = new Date()): IsoDay {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now)
}

function dayToUtc(day: IsoDay): number {
  const match = ISO_DAY.exec(day)
  if (!match) throw new RangeError(`not a YYYY-MM-DD day: ${day}`)
  const [, year, month, date] = match
  const time = Date.UTC(Number(year), Number(month) - 1, Number(date))
  if (new Date(time).toISOString().slice(0, 10) !== day) throw new RangeError(`no such day: ${day}`)
  return time
}

function utcToDay(time: number): IsoDay {
  return new Date(time).toISOString().slice(0, 10)
}

/** Whether `value` is an existing calendar day written `YYYY-MM-DD`. */
export function isIsoDay(value: string): boolean {
  try {
    dayToUtc(value)
    return true
  } catch {
    return false
  }
}

/** `day` moved by `days` (negative goes back). */
export function addDays(day: IsoDay, days: number): IsoDay {
  return utcToDay(dayToUtc(day) + days * DAY_MS)
}

/** Days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: IsoDay, to: IsoDay): number {
  return Math.round((dayToUtc(to) - dayToUtc(from)) / DAY_MS)
}

/** ISO weekday: 1 lunes … 7 domingo. */
export function isoWeekday(day: IsoDay): number {
  const weekday = new Date(dayToUtc(day)).getUTCDay()
  return weekday === 0 ? 7 : weekday
}

/** The Monday of `day`'s week (weeks start on Monday in Chile). */
export function startOfWeek(day: IsoDay): IsoDay {
  return addDays(day, 1 - isoWeekday(day))
}

/** The `count` days from `first` on. */
export function dayRange(first: IsoDay, count: number): IsoDay[] {
  return Array.from({ length: count }, (_, index) => addDays(first, index))
}

/** The weeks (Monday to Sunday) that cover a month, for a month view: 4 to 6 rows of 7 days. */
export function monthWeeks(year: number, month: number): IsoDay[][] {
  const first = utcToDay(Date.UTC(year, month - 1, 1))
  const last = utcToDay(Date.UTC(year, month, 0))
  const weeks: IsoDay[][] = []
  for (let monday = startOfWeek(first); monday <= last; monday = addDays(monday, 7)) {
    weeks.push(dayRange(monday, 7))
  }
  return weeks
}

/** Whether `day` is within `from`…`to`, both included. */
export function isWithin(day: IsoDay, from: IsoDay, to: IsoDay): boolean {
  return from <= day && day <= to
}

/** "lun 3", "mié 21": a day's short label for week and month views. */
export function formatShortDay(day: IsoDay): string {
  const weekday = new Intl.DateTimeFormat(LOCALE, { weekday: 'short', timeZone: 'UTC' })
    .format(new Date(dayToUtc(day)))
    .replace('.', '')
  return `${weekday} ${Number(day.slice(8, 10))}`
}

/** "lun 19 may": a class's date in a list, short enough for a phone. */
export function formatClassDay(day: IsoDay): string {
  const month = new Intl.DateTimeFormat(LOCALE, { month: 'short', timeZone: 'UTC' })
    .format(new Date(dayToUtc(day)))
    .replace('.', '')
  return `${formatShortDay(day)} ${month}`
}

/** "mayo de 2025": a month view's title. */
export function formatMonth(year: number, month: number): string {
  return new Intl.DateTimeFormat(LOCALE, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(Date.UTC(year, month - 1, 1)),
  )
}

/** The first day of the month `months` after (or before) `day`'s month. */
export function addMonths(day: IsoDay, months: number): IsoDay {
  const date = new Date(dayToUtc(day))
  return utcToDay(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1))
}

/** "del 19 al 25 de mayo de 2025" (or across months: "del 28 de abril al 4 de mayo de 2025"). */
export function formatDayRange(from: IsoDay, to: IsoDay): string {
  const format = (day: IsoDay, options: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat(LOCALE, { ...options, timeZone: 'UTC' }).format(new Date(dayToUtc(day)))
  const end = format(to, { day: 'numeric', month: 'long', year: 'numeric' })
  const start = from.slice(0, 7) === to.slice(0, 7) ? String(Number(from.slice(8, 10))) : format(from, { day: 'numeric', month: 'long' })
  return `del ${start} al ${end}`
}
