import { describe, expect, it } from 'vitest'
import { classDateProblem } from './new-plan-form'

describe('classDateProblem', () => {
  it('takes a date from Monday to Saturday, from 07:00 on', () => {
    expect(classDateProblem('2025-06-04', '09:30')).toBeNull()
    expect(classDateProblem('2025-06-07', '07:00')).toBeNull()
    expect(classDateProblem('', '09:30')).toBe('Elige la fecha de la clase.')
    expect(classDateProblem('2025-06-08', '09:30')).toBe('Las clases son de lunes a sábado.')
    expect(classDateProblem('2025-06-04', '06:45')).toBe('La clase empieza a las 07:00 o después.')
  })
})
