import { describe, expect, it } from 'vitest'
import { nextPosition } from './indicators'
import { resourceProblem } from './resources'

describe('resourceProblem', () => {
  it('asks for a title and for level and subject together', () => {
    expect(resourceProblem({ title: 'Guía', level_code: '7B', subject_code: 'matematica' })).toBeNull()
    expect(resourceProblem({ title: 'Guía', level_code: null, subject_code: null })).toBeNull()
    expect(resourceProblem({ title: '  ', level_code: null, subject_code: null })).toBe('Escribe un título.')
    expect(resourceProblem({ title: 'Guía', level_code: '7B', subject_code: null })).toMatch(/nivel y la asignatura/)
  })
})

describe('nextPosition', () => {
  it('goes after the last indicator', () => {
    expect(nextPosition([])).toBe(1)
    expect(nextPosition([{ position: 1 }, { position: 4 }, { position: 2 }])).toBe(5)
  })
})
