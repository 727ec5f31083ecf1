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

function toDate(value: string | Date): Date {
  if (value instanceof Date) return value
  // A plain calendar day is midnight UTC, shown in UTC so it never shifts a day.
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(value)
}
