import { describe, expect, it } from 'vitest'
import { courseCapNotice, courseName, courseProblems, normalizeDraft } from './course-form'

const draft = normalizeDraft({
  level_code: '7B',
  letter: ' b ',
  subject_code: 'matematica',
  school_rbd: 8485,
  students_count: '32',
  color: '#2563EB',
})

describe('a course form', () => {
  it('normalises what the teacher typed', () => {
    expect(draft).toEqual({
      level_code: '7B',
      letter: 'B',
      subject_code: 'matematica',
      school_rbd: 8485,
      students_count: 32,
      color: '#2563eb',
    })
    expect(normalizeDraft({ ...draft, students_count: ' ', letter: 'a' })).toMatchObject({ students_count: null, letter: 'A' })
  })

  it('checks the rules the database enforces', () => {
    expect(courseProblems(draft, ['matematica', 'lenguaje_y_comunicacion'])).toEqual({})
    expect(courseProblems(draft, ['lenguaje_y_comunicacion'])).toEqual({
      subject_code: 'Esa asignatura no se imparte en ese nivel.',
    })
    expect(
      courseProblems({ ...draft, level_code: '', letter: 'BB', subject_code: '', students_count: 61, color: 'azul' }, []),
    ).toEqual({
      level_code: 'Elige el nivel del curso.',
      letter: 'La letra es una sola letra, de la A a la Z.',
      subject_code: 'Elige la asignatura.',
      students_count: 'El número de estudiantes va de 1 a 60.',
      color: 'Elige un color.',
    })
    expect(courseProblems({ ...draft, students_count: null }, ['matematica'])).toEqual({})
  })

  it('names courses as teachers say them', () => {
    expect(courseName('Matemática', '7° Básico', 'B')).toBe('Matemática · 7° Básico B')
  })

  it("tells a demo teacher the cap before she reaches it", () => {
    expect(courseCapNotice(3, null)).toBeNull()
    expect(courseCapNotice(3, 5)).toBe('Puedes crear 2 cursos más en la demo.')
    expect(courseCapNotice(4, 5)).toBe('Puedes crear 1 curso más en la demo.')
    expect(courseCapNotice(5, 5)).toBe('Alcanzaste el máximo de 5 cursos de la demo.')
  })
})
