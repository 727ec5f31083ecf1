import { describe, expect, it } from 'vitest'
import { addZoneProblem, applyOrder, movedOrder, nextPosition, STANDARD_ZONES, zoneTitleProblem } from './zones'

const zones = [
  { id: 'c', position: 3 },
  { id: 'a', position: 1 },
  { id: 'b', position: 2 },
]

describe('zones', () => {
  it('start as a Chilean lesson plan: objetivo, inicio, desarrollo, cierre…', () => {
    expect(STANDARD_ZONES.map((zone) => zone.title)).toEqual([
      'Objetivo de la clase',
      'Inicio',
      'Desarrollo',
      'Cierre',
      'Evaluación formativa',
      'Recursos',
      'Adecuaciones (PIE/DUA)',
      'Indicadores de evaluación',
    ])
  })

  it('move up and down within the class, never past an edge', () => {
    expect(movedOrder(zones, 'b', 'up')).toEqual(['b', 'a', 'c'])
    expect(movedOrder(zones, 'b', 'down')).toEqual(['a', 'c', 'b'])
    expect(movedOrder(zones, 'a', 'up')).toBeNull()
    expect(movedOrder(zones, 'c', 'down')).toBeNull()
    expect(movedOrder(zones, 'x', 'down')).toBeNull()
  })

  it('take positions 1…n from a new order', () => {
    expect(applyOrder(zones, ['c', 'a', 'b']).map((zone) => `${zone.id}${zone.position}`)).toEqual(['c1', 'a2', 'b3'])
  })

  it('are added after the last one, up to 50', () => {
    expect(nextPosition(zones)).toBe(4)
    expect(nextPosition([{ id: 'a', position: 7 }])).toBe(8)
    expect(nextPosition([])).toBe(1)
    expect(addZoneProblem(zones)).toBeNull()
    expect(addZoneProblem([{ id: 'z', position: 50 }])).toMatch(/50 zonas/)
  })

  it('need a name of 1 to 200 characters', () => {
    expect(zoneTitleProblem('Inicio')).toBeNull()
    expect(zoneTitleProblem('  ')).toMatch(/nombre/)
    expect(zoneTitleProblem('x'.repeat(201))).toMatch(/200/)
  })
})
