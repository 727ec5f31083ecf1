import { describe, expect, it } from 'vitest'
import {
  DEFAULT_DAY,
  blockEnd,
  blockProblem,
  dayEnd,
  dayRows,
  dayShapeFromRow,
  dayShapeProblem,
  dayShapeToRow,
  findConflict,
  formatTime,
  hoursUntilBreak,
  moveBlock,
  overlaps,
  parseTime,
  snapToHour,
  visibleRange,
  type DayShape,
} from './grid'

const labels = (shape: DayShape) =>
  dayRows(shape).map((row) => `${row.kind === 'hour' ? row.hour : row.label} ${formatTime(row.start)}-${formatTime(row.end)}`)

describe('the school day', () => {
  it('runs 45-minute hours from its start, with its breaks', () => {
    expect(labels(DEFAULT_DAY)).toEqual([
      '1 08:00-08:45',
      '2 08:45-09:30',
      'Recreo 09:30-09:45',
      '3 09:45-10:30',
      '4 10:30-11:15',
      'Recreo 11:15-11:30',
      '5 11:30-12:15',
      '6 12:15-13:00',
      'Almuerzo 13:00-13:45',
      '7 13:45-14:30',
      '8 14:30-15:15',
    ])
  })

  it('has a configurable start and length; no break after the last hour', () => {
    const afternoon = { start: parseTime('14:00'), hours: 3, breaks: [{ afterHour: 3, minutes: 10, label: 'Recreo' }] }
    expect(labels(afternoon)).toEqual(['1 14:00-14:45', '2 14:45-15:30', '3 15:30-16:15'])
  })

  it('reads and writes times as the database does', () => {
    expect(parseTime('08:00:00')).toBe(480)
    expect(parseTime('7:05')).toBe(425)
    expect(formatTime(605)).toBe('10:05')
    expect(() => parseTime('24:00')).toThrow()
    expect(() => parseTime('10:60')).toThrow()
  })
})

describe('blocks', () => {
  const monday = { id: 'a', weekday: 1, start: parseTime('08:00'), hours: 2 }

  it('end after their hours', () => {
    expect(formatTime(blockEnd(monday))).toBe('09:30')
  })

  it('conflict when they share a minute of the same day, not when they touch', () => {
    expect(overlaps(monday, { weekday: 1, start: parseTime('09:00'), hours: 1 })).toBe(true)
    expect(overlaps(monday, { weekday: 1, start: parseTime('09:30'), hours: 1 })).toBe(false)
    expect(overlaps(monday, { weekday: 2, start: parseTime('08:00'), hours: 2 })).toBe(false)
    const blocks = [monday, { id: 'b', weekday: 1, start: parseTime('09:45'), hours: 2 }]
    expect(findConflict(blocks, { weekday: 1, start: parseTime('09:00'), hours: 2 })?.id).toBe('a')
    // A block moved onto its own old place is no conflict with itself.
    expect(findConflict(blocks, { ...monday, start: parseTime('08:45'), hours: 1 })).toBeUndefined()
    expect(findConflict(blocks, { ...monday, hours: 2 })).toBeUndefined()
    expect(findConflict(blocks, { ...monday, hours: 3 })?.id).toBe('b')
  })

  it("are refused with the database's rules, in Spanish", () => {
    expect(blockProblem(monday)).toBeNull()
    expect(blockProblem({ ...monday, weekday: 7 })).toMatch(/lunes a sábado/)
    expect(blockProblem({ ...monday, hours: 5 })).toMatch(/1 a 4 horas/)
    expect(blockProblem({ ...monday, start: parseTime('06:30') })).toMatch(/07:00/)
    expect(blockProblem({ ...monday, start: parseTime('21:30'), hours: 2 })).toBeNull() // ends 23:00
    expect(blockProblem({ ...monday, start: parseTime('22:30'), hours: 1 })).toMatch(/23:00/)
  })

  it('fit between breaks', () => {
    expect(hoursUntilBreak(DEFAULT_DAY, parseTime('08:00'))).toBe(2)
    expect(hoursUntilBreak(DEFAULT_DAY, parseTime('08:45'))).toBe(1)
    expect(hoursUntilBreak(DEFAULT_DAY, parseTime('09:30'))).toBe(0) // a recreo
    expect(snapToHour(DEFAULT_DAY, parseTime('10:00'))).toBe(parseTime('09:45'))
    expect(snapToHour(DEFAULT_DAY, parseTime('09:35'))).toBeUndefined()
  })

  it('move and resize with the keyboard within the day and the week', () => {
    const block = { weekday: 1, start: parseTime('09:45'), hours: 1 }
    expect(moveBlock(DEFAULT_DAY, block, 'up')).toEqual({ ...block, start: parseTime('08:45') })
    expect(moveBlock(DEFAULT_DAY, block, 'down')).toEqual({ ...block, start: parseTime('10:30') })
    expect(moveBlock(DEFAULT_DAY, block, 'left')).toBeUndefined()
    expect(moveBlock(DEFAULT_DAY, block, 'right')).toEqual({ ...block, weekday: 2 })
    expect(moveBlock(DEFAULT_DAY, { ...block, weekday: 5 }, 'right')).toBeUndefined()
    expect(moveBlock(DEFAULT_DAY, block, 'longer')).toEqual({ ...block, hours: 2 })
    expect(moveBlock(DEFAULT_DAY, { ...block, hours: 2 }, 'longer')).toBeUndefined() // the recreo
    expect(moveBlock(DEFAULT_DAY, block, 'shorter')).toBeUndefined()
    // A two-hour block jumps over the recreo instead of straddling it.
    expect(moveBlock(DEFAULT_DAY, { ...block, hours: 2 }, 'up')).toEqual({ ...block, hours: 2, start: parseTime('08:00') })
    expect(moveBlock(DEFAULT_DAY, { ...block, start: parseTime('08:00'), hours: 2 }, 'down')).toEqual({ ...block, hours: 2 })
    expect(moveBlock(DEFAULT_DAY, { ...block, start: parseTime('08:00'), hours: 2 }, 'up')).toBeUndefined()
    const last = { weekday: 3, start: parseTime('14:30'), hours: 1 }
    expect(moveBlock(DEFAULT_DAY, last, 'down')).toBeUndefined()
  })
})

describe('the stored school day', () => {
  it('reads the stored row and writes it back', () => {
    const row = {
      day_start: '07:45:00',
      pedagogical_hours: 6,
      breaks: [
        { after_hour: 4, minutes: 45, label: 'Almuerzo' },
        { after_hour: 2, minutes: 20, label: 'Recreo' },
      ],
    }
    const shape = dayShapeFromRow(row)
    expect(shape.start).toBe(7 * 60 + 45)
    expect(shape.breaks.map((b) => b.afterHour)).toEqual([2, 4])
    expect(dayShapeToRow(shape)).toEqual({ ...row, day_start: '07:45', breaks: [row.breaks[1], row.breaks[0]] })
    expect(dayShapeFromRow(null)).toBe(DEFAULT_DAY)
  })

  it('ends after its hours and breaks', () => {
    // 08:00 + 8 × 45 min + 15 + 15 + 45 = 15:15
    expect(formatTime(dayEnd(DEFAULT_DAY))).toBe('15:15')
  })

  it('refuses what the database refuses', () => {
    expect(dayShapeProblem(DEFAULT_DAY)).toBeNull()
    expect(dayShapeProblem({ ...DEFAULT_DAY, start: 6 * 60 + 30 })).toMatch(/07:00/)
    expect(dayShapeProblem({ ...DEFAULT_DAY, start: 8 * 60 + 3 })).toMatch(/múltiplos de 5/)
    expect(dayShapeProblem({ ...DEFAULT_DAY, hours: 15 })).toMatch(/1 a 14/)
    expect(dayShapeProblem({ ...DEFAULT_DAY, breaks: [{ afterHour: 8, minutes: 15, label: 'Recreo' }] })).toMatch(/última/)
    expect(
      dayShapeProblem({
        ...DEFAULT_DAY,
        breaks: [
          { afterHour: 2, minutes: 15, label: 'Recreo' },
          { afterHour: 2, minutes: 10, label: 'Otro' },
        ],
      }),
    ).toMatch(/dos recreos/)
    expect(dayShapeProblem({ ...DEFAULT_DAY, breaks: [{ afterHour: 2, minutes: 120, label: 'Largo' }] })).toMatch(/5 a 90/)
    expect(dayShapeProblem({ ...DEFAULT_DAY, breaks: [{ afterHour: 2, minutes: 15, label: '  ' }] })).toMatch(/nombre/)
    expect(dayShapeProblem({ start: 14 * 60, hours: 14, breaks: [] })).toMatch(/23:00/)
  })

  it('stretches the visible range to blocks outside the day', () => {
    expect(visibleRange(DEFAULT_DAY, [])).toEqual({ from: 480, to: dayEnd(DEFAULT_DAY) })
    expect(visibleRange(DEFAULT_DAY, [{ weekday: 1, start: 7 * 60, hours: 1 }, { weekday: 2, start: 18 * 60, hours: 2 }])).toEqual({
      from: 420,
      to: 18 * 60 + 90,
    })
  })
})
