/**
 * The weekly grid's time arithmetic. A school day is a run of 45-minute pedagogical hours
 * from a start time, with breaks (recreos, almuerzo) after some of them; a block of the
 * schedule starts at an hour and lasts 1 to 4 contiguous hours (the database stores its start
 * and length and computes its end). Times are minutes after midnight.
 */

/** Minutes in a pedagogical hour. */
export const PEDAGOGICAL_HOUR = 45
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
 * A block moved by the keyboard: to the previous or next hour of the day, to the previous
 * or next weekday, or one hour longer or shorter. `undefined` when it cannot go there
 * (the edge of the day or week, a break, 1 or 4 hours); conflicts are checked apart.
 */
export function moveBlock(shape: DayShape, block: TimedBlock, move: Move): TimedBlock | undefined {
  const hours = dayRows(shape).filter((row) => row.kind === 'hour')
  const at = hours.findIndex((row) => row.start === block.start)
  const previous = at > 0 ? hours[at - 1] : undefined
  const next = at >= 0 ? hours[at + 1] : undefined
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
