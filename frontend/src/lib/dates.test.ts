import { describe, expect, it } from 'vitest'
import {
  addMonths,
  formatDayRange,
  addDays,
  chileToday,
  daysBetween,
  formatDate,
  formatLongDate,
  formatMonth,
  formatClassDay,
  formatShortDay,
  isIsoDay,
  isWithin,
  isoWeekday,
  monthWeeks,
  startOfWeek,
  formatDateTime,
} from './dates'

describe('Chilean dates', () => {
  it('calendar days as dd-mm-yyyy, never shifted by the time zone', () => {
    expect(formatDate('2025-05-21')).toBe('21-05-2025')
    expect(formatDate('2025-01-01')).toBe('01-01-2025')
  })

  it('instants in Chile time', () => {
    // 02:00 UTC on 1 March is still 28 February in Santiago (UTC-3).
    expect(formatDate('2025-03-01T02:00:00Z')).toBe('28-02-2025')
  })

  it('the long form', () => {
    expect(formatLongDate('2025-05-21')).toBe('miércoles, 21 de mayo de 2025')
  })
})

describe('calendar days', () => {
  it("today is Chile's, whatever the device's zone", () => {
    // 02:30 UTC on 1 March 2025 is 23:30 on 28 February in Santiago (UTC-3, summer time).
    expect(chileToday(new Date('2025-03-01T02:30:00Z'))).toBe('2025-02-28')
    // In winter (UTC-4): 03:30 UTC on 2 July is 23:30 on 1 July.
    expect(chileToday(new Date('2025-07-02T03:30:00Z'))).toBe('2025-07-01')
    expect(chileToday(new Date('2025-07-02T04:30:00Z'))).toBe('2025-07-02')
  })

  it('adds days across months, years and the clock changes', () => {
    expect(addDays('2025-02-28', 1)).toBe('2025-03-01')
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29')
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01')
    expect(addDays('2025-04-05', 1)).toBe('2025-04-06') // Chile's clock goes back that night
    expect(addDays('2025-09-06', 1)).toBe('2025-09-07') // and forward
    expect(addDays('2025-03-03', -7)).toBe('2025-02-24')
    expect(daysBetween('2025-03-03', '2025-12-19')).toBe(291)
    expect(daysBetween('2025-03-10', '2025-03-03')).toBe(-7)
  })

  it('weeks start on Monday', () => {
    expect(isoWeekday('2025-03-03')).toBe(1) // lunes
    expect(isoWeekday('2025-03-09')).toBe(7) // domingo
    expect(startOfWeek('2025-03-09')).toBe('2025-03-03')
    expect(startOfWeek('2025-03-03')).toBe('2025-03-03')
    expect(startOfWeek('2025-01-01')).toBe('2024-12-30')
  })

  it('a month view covers the month in whole weeks', () => {
    const march = monthWeeks(2025, 3)
    expect(march).toHaveLength(6)
    expect(march.at(0)?.at(0)).toBe('2025-02-24')
    expect(march.at(5)?.at(6)).toBe('2025-04-06')
    expect(monthWeeks(2021, 2)).toHaveLength(4) // 1 Feb 2021 was a Monday
    expect(march.every(([monday, ...rest]) => rest.length === 6 && monday !== undefined && isoWeekday(monday) === 1)).toBe(true)
  })

  it('checks and labels days', () => {
    expect(isIsoDay('2025-02-29')).toBe(false)
    expect(isIsoDay('2025-3-1')).toBe(false)
    expect(isIsoDay('2024-02-29')).toBe(true)
    expect(isWithin('2025-07-01', '2025-06-23', '2025-07-04')).toBe(true)
    expect(isWithin('2025-07-05', '2025-06-23', '2025-07-04')).toBe(false)
    expect(formatShortDay('2025-05-21')).toBe('mié 21')
    expect(formatClassDay('2025-05-19')).toBe('lun 19 may')
    expect(formatClassDay('2025-09-18')).toBe('jue 18 sept')
    expect(formatMonth(2025, 5)).toBe('mayo de 2025')
  })
})

describe('months and ranges', () => {
  it('moves by months to their first day', () => {
    expect(addMonths('2025-05-21', 1)).toBe('2025-06-01')
    expect(addMonths('2025-01-31', -1)).toBe('2024-12-01')
    expect(addMonths('2025-12-05', 1)).toBe('2026-01-01')
  })

  it('writes a week as people say it', () => {
    expect(formatDayRange('2025-05-19', '2025-05-25')).toBe('del 19 al 25 de mayo de 2025')
    expect(formatDayRange('2025-04-28', '2025-05-04')).toBe('del 28 de abril al 4 de mayo de 2025')
  })
})

describe('formatDateTime', () => {
  it('gives the day and the 24-hour time in Chile', () => {
    // 18:05 UTC on 29 November is 15:05 in Santiago (summer time, UTC−3).
    expect(formatDateTime('2026-11-29T18:05:00Z')).toBe('29-11-2026 15:05')
  })
})
