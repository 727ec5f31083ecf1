import { describe, expect, it } from 'vitest'
import { nextStatuses, transitionProblem } from './transitions'

const today = '2025-05-21'

describe('class states', () => {
  it('follow the database: Programada → Realizada | Cancelada, Cancelada → Programada', () => {
    expect(nextStatuses('Programada', '2025-05-20', today)).toEqual(['Realizada', 'Cancelada'])
    expect(nextStatuses('Programada', today, today)).toEqual(['Realizada', 'Cancelada'])
    expect(nextStatuses('Cancelada', '2025-05-20', today)).toEqual(['Programada'])
    expect(nextStatuses('Realizada', '2025-05-20', today)).toEqual([])
  })

  it('a future class cannot be done yet', () => {
    expect(nextStatuses('Programada', '2025-05-22', today)).toEqual(['Cancelada'])
    expect(transitionProblem('Programada', 'Realizada', '2025-05-22', today)).toMatch(/futura/)
  })

  it('a cancellation needs its reason', () => {
    expect(transitionProblem('Programada', 'Cancelada', '2025-05-20', today)).toMatch(/por qué/)
    expect(transitionProblem('Programada', 'Cancelada', '2025-05-20', today, '   ')).toMatch(/por qué/)
    expect(transitionProblem('Programada', 'Cancelada', '2025-05-20', today, 'Paro docente')).toBeNull()
  })

  it('a class done stays done; other moves are refused in Spanish', () => {
    expect(transitionProblem('Realizada', 'Cancelada', '2025-05-20', today, 'x')).toMatch(/ya no cambia/)
    expect(transitionProblem('Cancelada', 'Realizada', '2025-05-20', today)).toMatch(/cancelada no puede pasar a realizada/)
    expect(transitionProblem('Cancelada', 'Programada', '2025-05-20', today)).toBeNull()
  })
})
