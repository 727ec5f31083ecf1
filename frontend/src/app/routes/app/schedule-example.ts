/**
 * The example week Horario's guided tour shows (spec section 4): three courses of a 5° and
 * 6° Básico teacher on the teacher's own day, in the hours her week leaves free. Never saved:
 * the page shows it while the tour runs and drops it after.
 */
import type { CourseLabel } from '@/features/courses'
import { EXAMPLE_PREFIX, blockEnd, dayRows, type DayShape, type ScheduleBlock } from '@/features/schedule'

export const EXAMPLE_LABELS: CourseLabel[] = [
  { id: `${EXAMPLE_PREFIX}lenguaje`, subject: 'Lenguaje y Comunicación', group: '5° Básico A', name: 'Lenguaje y Comunicación · 5° Básico A', color: '#7c3aed' },
  { id: `${EXAMPLE_PREFIX}matematica`, subject: 'Matemática', group: '5° Básico A', name: 'Matemática · 5° Básico A', color: '#0d9488' },
  { id: `${EXAMPLE_PREFIX}ciencias`, subject: 'Ciencias Naturales', group: '6° Básico B', name: 'Ciencias Naturales · 6° Básico B', color: '#d97706' },
]

/** weekday, first hour (1-based), hours, course */
const PATTERN: Array<[number, number, number, number]> = [
  [1, 1, 2, 0],
  [1, 3, 2, 1],
  [2, 1, 2, 1],
  [2, 5, 2, 2],
  [3, 3, 2, 0],
  [4, 1, 2, 2],
  [4, 3, 2, 1],
  [5, 1, 2, 0],
]

const overlaps = (a: Pick<ScheduleBlock, 'weekday' | 'start' | 'hours'>, b: Pick<ScheduleBlock, 'weekday' | 'start' | 'hours'>) =>
  a.weekday === b.weekday && a.start < blockEnd(b) && b.start < blockEnd(a)

/** The example blocks that fit `shape` and do not cover any of the teacher's own `blocks`. */
export function exampleBlocks(shape: DayShape, blocks: readonly ScheduleBlock[]): ScheduleBlock[] {
  const hours = dayRows(shape).filter((row) => row.kind === 'hour')
  return PATTERN.flatMap(([weekday, first, length, course], index) => {
    const row = hours[first - 1]
    if (!row || first - 1 + length > hours.length) return []
    const example: ScheduleBlock = {
      id: `${EXAMPLE_PREFIX}${index}`,
      courseId: EXAMPLE_LABELS[course]?.id ?? `${EXAMPLE_PREFIX}lenguaje`,
      room: `${10 + index}`,
      weekday,
      start: row.start,
      hours: length,
    }
    return blocks.some((block) => overlaps(block, example)) ? [] : [example]
  })
}
