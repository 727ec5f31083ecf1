import { describe, expect, it } from 'vitest'
import { estimatedUnitStars, phase, progression, unitDates, unitGenerationProblem, unitProgress } from './sequence'

describe('progression', () => {
  it('gives one OA per class before the last, and all of them in the last', () => {
    expect(progression(['A', 'B'], 4)).toEqual([['A'], ['A'], ['B'], ['A', 'B']])
    expect(progression(['A'], 2)).toEqual([['A'], ['A']])
  })
  it('gives runs of OAs when there are more OAs than classes', () => {
    expect(progression(['A', 'B', 'C', 'D', 'E'], 3)).toEqual([['A', 'B'], ['C', 'D', 'E'], ['A', 'B', 'C', 'D', 'E']])
  })
  it('leaves every class without OAs when the unit has none', () => {
    expect(progression([], 3)).toEqual([[], [], []])
  })
})

describe('phase', () => {
  it('names the phases of a unit as generate-sequence does', () => {
    expect(Array.from({ length: 5 }, (_, i) => phase(i, 5))).toEqual([
      'Activación e introducción',
      'Modelamiento y práctica guiada',
      'Modelamiento y práctica guiada',
      'Aplicación y práctica autónoma',
      'Síntesis y evaluación',
    ])
    expect([phase(0, 2), phase(1, 2)]).toEqual(['Activación e introducción', 'Síntesis y evaluación'])
  })
})

describe('unitDates', () => {
  const c = (id: string, date: string, planned = false, status = 'Programada') => ({ id, session_date: date, start_time: '08:00', planned, status })
  const classes = [c('d', '2025-05-26'), c('a', '2025-05-19'), c('b', '2025-05-20', true), c('x', '2025-05-21', false, 'Cancelada'), c('e', '2025-05-27')]
  it('takes the next free classes from the first one chosen, skipping planned and cancelled ones', () => {
    expect(unitDates(classes, 'a', 3).map((x) => x.id)).toEqual(['a', 'd', 'e'])
    expect(unitDates(classes, 'd', 5).map((x) => x.id)).toEqual(['d', 'e'])
    expect(unitDates(classes, null, 3)).toEqual([])
  })
})

describe('unit generation', () => {
  it('says why a unit cannot be generated in one go', () => {
    expect(unitGenerationProblem(6, 2, 2)).toBeNull()
    expect(unitGenerationProblem(13, 2, 2)).toMatch(/hasta 12 clases/)
    expect(unitGenerationProblem(6, 0, 2)).toMatch(/no tiene OA/)
    expect(unitGenerationProblem(6, 9, 2)).toMatch(/hasta 8 OA/)
    expect(unitGenerationProblem(6, 2, 5)).toMatch(/hasta 4 bloques/)
  })
  it('estimates its stars from its classes', () => {
    const { low, high } = estimatedUnitStars(4)
    expect(low).toBeGreaterThan(0)
    expect(high).toBeGreaterThanOrEqual(low)
    expect(estimatedUnitStars(8).low).toBeGreaterThan(low)
  })
})

describe('unitProgress', () => {
  it('counts written, taught and cancelled classes', () => {
    expect(
      unitProgress([
        { status: 'Realizada', written: true },
        { status: 'Cancelada', written: false },
        { status: null, written: true },
        { status: 'Programada', written: false },
      ]),
    ).toEqual({ total: 4, planned: 2, taught: 1, cancelled: 1 })
  })
})
