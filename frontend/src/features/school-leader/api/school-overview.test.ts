import { describe, expect, it } from 'vitest'
import { planCoverage, summarizeSchool, type CourseOverview } from './school-overview'

const course = (teacher: string, name: string | null, values: Partial<CourseOverview> = {}): CourseOverview => ({
  course_id: `${teacher}-${values.level_code ?? '3B'}`,
  teacher_id: teacher,
  teacher_name: name as string,
  level_code: '3B',
  letter: 'A',
  subject_code: 'matematica',
  students_count: 30,
  plan_count: 0,
  last_plan_at: null as unknown as string,
  classes_total: 0,
  classes_done: 0,
  classes_cancelled: 0,
  classes_planned: 0,
  ...values,
})

describe('summarizeSchool', () => {
  it('groups courses by teacher, named ones first, and adds up the school', () => {
    const { teachers, total } = summarizeSchool([
      course('t2', null, { plan_count: 1, classes_total: 4, classes_planned: 1 }),
      course('t1', 'Beatriz Soto', { level_code: '4B', plan_count: 2, last_plan_at: '2025-05-01T10:00:00Z', classes_total: 10, classes_done: 6, classes_cancelled: 2, classes_planned: 4 }),
      course('t1', 'Beatriz Soto', { level_code: '5B', plan_count: 1, last_plan_at: '2025-06-01T10:00:00Z', classes_total: 10, classes_planned: 5 }),
      course('t3', 'Andrés Pérez'),
    ])
    expect(teachers.map((teacher) => [teacher.name, teacher.courses.length, teacher.plans])).toEqual([
      ['Andrés Pérez', 1, 0],
      ['Beatriz Soto', 2, 3],
      ['', 1, 1],
    ])
    expect(teachers[1]?.lastPlanAt).toBe('2025-06-01T10:00:00Z')
    expect(total).toEqual({ teachers: 3, courses: 4, plans: 4, classes: 24, done: 6, cancelled: 2, planned: 10 })
  })
})

describe('planCoverage', () => {
  it('counts the classes held or to come that have a plan', () => {
    expect(planCoverage({ plans: 1, classes: 10, done: 0, cancelled: 2, planned: 4 })).toBe(50)
    expect(planCoverage({ plans: 0, classes: 0, done: 0, cancelled: 0, planned: 0 })).toBeNull()
  })
})
