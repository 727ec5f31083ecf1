import { describe, expect, it } from 'vitest'
import {
  currentSchoolYear,
  dayFacts,
  eventProblems,
  fillRangeProblem,
  holidaysAt,
  openingDay,
  weekRange,
  type EventDraft,
  type SchoolYear,
} from './year'

const year2025: SchoolYear = {
  academicYear: 2025,
  regionCode: 13,
  studentsStart: '2025-03-05',
  winterBreakStart: '2025-06-23',
  winterBreakEnd: '2025-07-04',
  classesEnd: '2025-12-05',
}
const holidays = [{ date: '2025-05-01', name: 'Día Nacional del Trabajo' }]

describe('the school year', () => {
  it('knows holidays, the winter break and days outside the year', () => {
    expect(dayFacts('2025-05-01', year2025, holidays)).toEqual({ holiday: 'Día Nacional del Trabajo', winterBreak: false, outsideYear: false })
    expect(dayFacts('2025-06-23', year2025, holidays).winterBreak).toBe(true)
    expect(dayFacts('2025-07-04', year2025, holidays).winterBreak).toBe(true)
    expect(dayFacts('2025-07-07', year2025, holidays).winterBreak).toBe(false)
    expect(dayFacts('2025-03-04', year2025, holidays).outsideYear).toBe(true)
    expect(dayFacts('2025-12-06', year2025, holidays).outsideYear).toBe(true)
  })

  it('opens on today during the year, else on the nearest class day', () => {
    expect(openingDay('2025-05-21', year2025, { before: null, after: null })).toBe('2025-05-21')
    expect(openingDay('2026-11-28', year2025, { before: '2025-12-05', after: null })).toBe('2025-12-05')
    expect(openingDay('2025-02-10', year2025, { before: null, after: '2025-03-05' })).toBe('2025-03-05')
    expect(openingDay('2025-12-20', year2025, { before: '2025-12-04', after: '2026-03-09' })).toBe('2025-12-04')
    expect(openingDay('2026-11-28', year2025, { before: null, after: null })).toBe('2025-12-05')
    expect(openingDay('2025-01-10', year2025, { before: null, after: null })).toBe('2025-03-05')
  })

  it('is chosen from the data: the running year, else the latest ended', () => {
    const year2026 = { ...year2025, academicYear: 2026, studentsStart: '2026-03-04', classesEnd: '2026-12-04' }
    expect(currentSchoolYear([year2025], '2026-11-28')).toBe(year2025)
    expect(currentSchoolYear([year2025, year2026], '2026-11-28')).toBe(year2026)
    expect(currentSchoolYear([year2026, year2025], '2025-05-01')).toBe(year2025)
    expect(currentSchoolYear([], '2025-05-01')).toBeUndefined()
  })

  it('weeks start on Monday', () => {
    expect(weekRange('2025-05-21')).toEqual({ from: '2025-05-19', to: '2025-05-25' })
    expect(weekRange('2025-05-25')).toEqual({ from: '2025-05-19', to: '2025-05-25' })
  })

  it('applies national, regional and communal holidays where they belong', () => {
    const rows = [
      { holiday_date: '2025-05-01', name: 'Trabajo', scope: 'nacional' as const, region_code: null, comunas: [] },
      { holiday_date: '2025-06-07', name: 'Asalto y Toma del Morro de Arica', scope: 'regional' as const, region_code: 15, comunas: [] },
      { holiday_date: '2025-08-20', name: 'Nacimiento de O’Higgins', scope: 'comunal' as const, region_code: 16, comunas: ['Chillán', 'Chillán Viejo'] },
    ]
    expect(holidaysAt(rows, 13, 'Santiago').map((h) => h.name)).toEqual(['Trabajo'])
    expect(holidaysAt(rows, 15, 'Arica').map((h) => h.name)).toEqual(['Trabajo', 'Asalto y Toma del Morro de Arica'])
    expect(holidaysAt(rows, 16, 'Chillán Viejo')).toHaveLength(2)
    expect(holidaysAt(rows, 16, 'San Carlos')).toHaveLength(1)
  })
})

describe('filling and events', () => {
  it('refuses the ranges the database refuses', () => {
    expect(fillRangeProblem('2025-03-05', '2025-12-05')).toBeNull()
    expect(fillRangeProblem('2025-03-05', '')).toMatch(/dos fechas/)
    expect(fillRangeProblem('2025-05-05', '2025-03-05')).toMatch(/posterior/)
    expect(fillRangeProblem('2025-01-01', '2026-01-03')).toMatch(/un año/)
  })

  const event: EventDraft = {
    title: 'Prueba de fracciones',
    kind: 'evaluacion',
    starts_on: '2025-05-16',
    ends_on: '2025-05-16',
    start_time: null,
    end_time: null,
    course_id: null,
    suspends_classes: false,
    description: null,
  }

  it('checks events with the database rules', () => {
    expect(eventProblems(event)).toEqual({})
    expect(eventProblems({ ...event, title: '  ' }).title).toMatch(/título/)
    expect(eventProblems({ ...event, ends_on: '2025-05-15' }).ends_on).toMatch(/antes/)
    expect(eventProblems({ ...event, ends_on: '2025-09-01' }).ends_on).toMatch(/93 días/)
    expect(eventProblems({ ...event, start_time: '10:00' }).time).toMatch(/inicio y de término/)
    expect(eventProblems({ ...event, start_time: '10:00', end_time: '09:00' }).time).toMatch(/posterior/)
    expect(eventProblems({ ...event, start_time: '10:00', end_time: '11:00', ends_on: '2025-05-17' }).time).toMatch(/un solo día/)
  })
})
