import { describe, expect, it } from 'vitest'
import { demoProblem } from './users'

const ok = { total_stars: 500, demo_end_date: '2025-12-31', max_courses: 5, is_active: true }

describe('demoProblem', () => {
  it('accepts sensible settings', () => {
    expect(demoProblem(ok, 120)).toBeNull()
  })

  it('refuses a total below what was used, bad numbers and a missing date', () => {
    expect(demoProblem({ ...ok, total_stars: 100 }, 120)).toBe('Ya usó 120 estrellas: el total no puede ser menor.')
    expect(demoProblem({ ...ok, total_stars: 1.5 }, 0)).toMatch(/número entero/)
    expect(demoProblem({ ...ok, max_courses: 51 }, 0)).toMatch(/0 a 50/)
    expect(demoProblem({ ...ok, demo_end_date: '' }, 0)).toMatch(/último día/)
  })
})
