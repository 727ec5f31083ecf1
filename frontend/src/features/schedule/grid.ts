/**
 * The weekly grid's time arithmetic. A school day is a run of 45-minute pedagogical hours
 * from a start time, with breaks (recreos, almuerzo) after some of them; a block of the
 * schedule starts at an hour and lasts 1 to 4 contiguous hours (the database stores its start
 * and length and computes its end). Times are minutes after midnight.
 */
import type { Json } from '@/lib/database.types'

/** Minutes in a pedagogical hour. */
export const PEDAGOGICAL_HOUR = 45

/** Ids of blocks that are only an example (Horario's tour): never saved, never edited. */
export const EXAMPLE_PREFIX = 'ejemplo-'

export const isExample = (id: string | undefined) => Boolean(id?.startsWith(EXAMPLE_PREFIX))
/** Earliest start and latest end the database accepts. */
export const EARLIEST_START = 7 * 60
export const LATEST_END = 23 * 60
export const MAX_BLOCK_HOURS = 4
/** Monday to Friday are shown; Saturday (6) is accepted by the database too. */
export const WEEKDAYS = [1, 2, 3, 4, 5] as const
const LAST_WEEKDAY = 5
export const WEEKDAY_NAMES: Record<number, string> = {
  1: 'Lunes',
  2: 'Martes',
  3: 'Miércoles',
  4: 'Jueves',
  5: 'Viernes',
  6: 'Sábado',
}

export interface Break {
  /** The break comes after this many pedagogical hours of the day. */
  afterHour: number
  minutes: number
  label: string
}

/** The shape of the school day: when it starts, how many hours it has, its breaks. */
export interface DayShape {
  start: number
  hours: number
  breaks: Break[]
}

/** A usual Chilean jornada escolar completa: 08:00, eight hours, two recreos and lunch. */
export const DEFAULT_DAY: DayShape = {
  start: 8 * 60,
  hours: 8,
  breaks: [
    { afterHour: 2, minutes: 15, label: 'Recreo' },
    { afterHour: 4, minutes: 15, label: 'Recreo' },
    { afterHour: 6, minutes: 45, label: 'Almuerzo' },
  ],
}

export type Row =
  | { kind: 'hour'; hour: number; start: number; end: number }
  | { kind: 'break'; label: string; start: number; end: number }

/** The day's rows in order: its hours (numbered from 1) and breaks. */
export function dayRows(shape: DayShape): Row[] {
  const rows: Row[] = []
  let time = shape.start
  for (let hour = 1; hour <= shape.hours; hour += 1) {
    rows.push({ kind: 'hour', hour, start: time, end: time + PEDAGOGICAL_HOUR })
    time += PEDAGOGICAL_HOUR
    for (const pause of shape.breaks.filter((b) => b.afterHour === hour && hour < shape.hours)) {
      rows.push({ kind: 'break', label: pause.label, start: time, end: time + pause.minutes })
      time += pause.minutes
    }
  }
  return rows
}

/** "08:00:00" or "08:00" as minutes after midnight. */
export function parseTime(value: string): number {
  const match = /^(\d{1,2}):(\d{2})(?::\d{2})?$/.exec(value.trim())
  if (!match) throw new RangeError(`not a time: ${value}`)
  const minutes = Number(match[1]) * 60 + Number(match[2])
  if (Number(match[2]) > 59 || minutes >= 24 * 60) throw new RangeError(`not a time: ${value}`)
  return minutes
}

/** Minutes after midnight as "08:00". */
export function formatTime(minutes: number): string {
  const hours = Math.floor(minutes / 60)
  return `${String(hours).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
}

/** A block of the week: where it is and how long. */
export interface TimedBlock {
  id?: string
  weekday: number
  start: number
  hours: number
}

export function blockEnd(block: TimedBlock): number {
  return block.start + PEDAGOGICAL_HOUR * block.hours
}

/** Whether two blocks share any minute of the same day (touching is fine). */
export function overlaps(a: TimedBlock, b: TimedBlock): boolean {
  return a.weekday === b.weekday && a.start < blockEnd(b) && b.start < blockEnd(a)
}

/** The first other block `candidate` would overlap, as the database's exclusion refuses. */
export function findConflict<T extends TimedBlock>(blocks: T[], candidate: TimedBlock): T | undefined {
  return blocks.find((block) => (candidate.id === undefined || block.id !== candidate.id) && overlaps(block, candidate))
}

/** Why the database would refuse the block's own values, in Spanish; `null` when it would not. */
export function blockProblem(block: TimedBlock): string | null {
  if (!Number.isInteger(block.weekday) || block.weekday < 1 || block.weekday > 6) {
    return 'El bloque debe ir de lunes a sábado.'
  }
  if (!Number.isInteger(block.hours) || block.hours < 1 || block.hours > MAX_BLOCK_HOURS) {
    return `Un bloque dura de 1 a ${MAX_BLOCK_HOURS} horas pedagógicas.`
  }
  if (block.start < EARLIEST_START) return 'Los bloques empiezan a las 07:00 o después.'
  if (blockEnd(block) > LATEST_END) return 'Los bloques terminan a las 23:00 a más tardar.'
  return null
}

/** The hour row that starts at `minutes`, if any. */
export function hourStartingAt(shape: DayShape, minutes: number): Extract<Row, { kind: 'hour' }> | undefined {
  return dayRows(shape).find((row): row is Extract<Row, { kind: 'hour' }> => row.kind === 'hour' && row.start === minutes)
}

/**
 * How many hours a block starting at `start` can last before a break or the end of the
 * day interrupts it (at most 4; 0 when `start` is not the start of an hour).
 */
export function hoursUntilBreak(shape: DayShape, start: number): number {
  const rows = dayRows(shape)
  const first = rows.findIndex((row) => row.kind === 'hour' && row.start === start)
  if (first < 0) return 0
  let hours = 0
  for (const row of rows.slice(first)) {
    if (row.kind !== 'hour' || hours === MAX_BLOCK_HOURS) break
    hours += 1
  }
  return hours
}

/** The start of the hour row that contains `minutes` (a pointer over the grid), if any. */
export function snapToHour(shape: DayShape, minutes: number): number | undefined {
  const row = dayRows(shape).find((r) => r.kind === 'hour' && r.start <= minutes && minutes < r.end)
  return row?.start
}

export type Move = 'up' | 'down' | 'left' | 'right' | 'longer' | 'shorter'

/**
 * A block moved by the keyboard: up or down to the nearest hour where it fits whole (a
 * two-hour block jumps over a recreo rather than straddle it), to the previous or next
 * weekday, or one hour longer or shorter. `undefined` when it cannot go there (the edge of
 * the day or week, a break, 1 or 4 hours); conflicts are checked apart.
 */
export function moveBlock(shape: DayShape, block: TimedBlock, move: Move): TimedBlock | undefined {
  const hours = dayRows(shape).filter((row) => row.kind === 'hour')
  const at = hours.findIndex((row) => row.start === block.start)
  const whole = (row: { start: number }) => hoursUntilBreak(shape, row.start) >= block.hours
  const previous = at > 0 ? hours.slice(0, at).reverse().find(whole) : undefined
  const next = at >= 0 ? hours.slice(at + 1).find(whole) : undefined
  const fits = (candidate: TimedBlock) =>
    blockProblem(candidate) === null &&
    candidate.weekday <= LAST_WEEKDAY &&
    hoursUntilBreak(shape, candidate.start) >= candidate.hours
      ? candidate
      : undefined
  switch (move) {
    case 'up':
      return previous && fits({ ...block, start: previous.start })
    case 'down':
      return next && fits({ ...block, start: next.start })
    case 'left':
      return fits({ ...block, weekday: block.weekday - 1 })
    case 'right':
      return fits({ ...block, weekday: block.weekday + 1 })
    case 'longer':
      return fits({ ...block, hours: block.hours + 1 })
    case 'shorter':
      return fits({ ...block, hours: block.hours - 1 })
  }
}

/** A teacher's day as the `school_days` table stores it. */
export interface SchoolDayRow {
  day_start: string
  pedagogical_hours: number
  breaks: Json
}

export const MAX_DAY_HOURS = 14
const MAX_BREAKS = 6

/** The stored day as the grid's shape; the usual day when there is no row. */
export function dayShapeFromRow(row: SchoolDayRow | null | undefined): DayShape {
  if (!row) return DEFAULT_DAY
  const breaks = Array.isArray(row.breaks)
    ? (row.breaks as unknown as Array<{ after_hour: number; minutes: number; label: string }>).map((b) => ({
        afterHour: b.after_hour,
        minutes: b.minutes,
        label: b.label,
      }))
    : []
  return { start: parseTime(row.day_start), hours: row.pedagogical_hours, breaks: [...breaks].sort((a, b) => a.afterHour - b.afterHour) }
}

/** The shape as the row to save. */
export function dayShapeToRow(shape: DayShape): SchoolDayRow {
  return {
    day_start: formatTime(shape.start),
    pedagogical_hours: shape.hours,
    breaks: shape.breaks.map((b) => ({ after_hour: b.afterHour, minutes: b.minutes, label: b.label.trim() })),
  }
}

/** When the day's last hour ends. */
export function dayEnd(shape: DayShape): number {
  return shape.start + shape.hours * PEDAGOGICAL_HOUR + shape.breaks.reduce((sum, b) => sum + b.minutes, 0)
}

/** Why the database would refuse the day's shape, in Spanish; `null` when it would not. */
export function dayShapeProblem(shape: DayShape): string | null {
  if (!Number.isInteger(shape.start) || shape.start < EARLIEST_START || shape.start % 5 !== 0) {
    return 'La jornada empieza a las 07:00 o después, en minutos múltiplos de 5.'
  }
  if (!Number.isInteger(shape.hours) || shape.hours < 1 || shape.hours > MAX_DAY_HOURS) {
    return `La jornada tiene de 1 a ${MAX_DAY_HOURS} horas pedagógicas.`
  }
  if (shape.breaks.length > MAX_BREAKS) return `Puedes tener hasta ${MAX_BREAKS} recreos.`
  const seen = new Set<number>()
  for (const pause of shape.breaks) {
    if (!Number.isInteger(pause.afterHour) || pause.afterHour < 1 || pause.afterHour >= shape.hours) {
      return 'Cada recreo va después de una hora de la jornada, nunca después de la última.'
    }
    if (seen.has(pause.afterHour)) return `Hay dos recreos después de la hora ${pause.afterHour}.`
    seen.add(pause.afterHour)
    if (!Number.isInteger(pause.minutes) || pause.minutes < 5 || pause.minutes > 90) {
      return 'Un recreo dura de 5 a 90 minutos.'
    }
    const label = pause.label.trim()
    if (label.length < 1 || label.length > 30) return 'Cada recreo necesita un nombre (hasta 30 caracteres).'
  }
  if (dayEnd(shape) > LATEST_END) return 'La jornada debe terminar a las 23:00 a más tardar.'
  return null
}

/** The first and last minute the grid shows: the day, stretched to fit blocks outside it. */
export function visibleRange(shape: DayShape, blocks: TimedBlock[]): { from: number; to: number } {
  let from = shape.start
  let to = dayEnd(shape)
  for (const block of blocks) {
    from = Math.min(from, block.start)
    to = Math.max(to, blockEnd(block))
  }
  return { from, to }
}
