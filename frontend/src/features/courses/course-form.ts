/**
 * A course as the teacher fills it in, checked with the rules the database enforces (so the
 * form says what is wrong before saving), and how a course is named on screen.
 */

export interface CourseDraft {
  level_code: string
  letter: string
  subject_code: string
  school_rbd: number | null
  students_count: number | null
  color: string
}

export type CourseField = keyof CourseDraft
export type CourseProblems = Partial<Record<CourseField, string>>

/** Colours offered for courses: distinct on the grid, readable with white text. */
export const COURSE_COLORS = [
  '#2563eb',
  '#16a34a',
  '#dc2626',
  '#9333ea',
  '#ea580c',
  '#0891b2',
  '#db2777',
  '#4d7c0f',
  '#b45309',
  '#475569',
] as const

/** What is wrong with a draft, per field; `subjectsAtLevel` are the subjects taught at its level. */
export function courseProblems(draft: CourseDraft, subjectsAtLevel: readonly string[]): CourseProblems {
  const problems: CourseProblems = {}
  if (!/^([1-8]B|[1-4]M)$/.test(draft.level_code)) problems.level_code = 'Elige el nivel del curso.'
  if (!/^[A-Z]$/.test(draft.letter)) problems.letter = 'La letra es una sola letra, de la A a la Z.'
  if (!draft.subject_code) {
    problems.subject_code = 'Elige la asignatura.'
  } else if (!problems.level_code && !subjectsAtLevel.includes(draft.subject_code)) {
    problems.subject_code = 'Esa asignatura no se imparte en ese nivel.'
  }
  if (
    draft.students_count !== null &&
    (!Number.isInteger(draft.students_count) || draft.students_count < 1 || draft.students_count > 60)
  ) {
    problems.students_count = 'El número de estudiantes va de 1 a 60.'
  }
  if (!/^#[0-9a-f]{6}$/.test(draft.color)) problems.color = 'Elige un color.'
  return problems
}

/** A draft from what the form holds: the letter upper-cased, an empty count as none. */
export function normalizeDraft(input: {
  level_code: string
  letter: string
  subject_code: string
  school_rbd: number | null
  students_count: string
  color: string
}): CourseDraft {
  const count = input.students_count.trim()
  return {
    level_code: input.level_code,
    letter: input.letter.trim().toUpperCase(),
    subject_code: input.subject_code,
    school_rbd: input.school_rbd,
    students_count: count === '' ? null : Number(count),
    color: input.color.toLowerCase(),
  }
}

/** "7° Básico B", the group a course is taught to. */
export function groupName(levelName: string | undefined, letter: string): string {
  return `${levelName ?? 'Nivel'} ${letter}`
}

/** "Matemática · 7° Básico B". */
export function courseName(subjectName: string | undefined, levelName: string | undefined, letter: string): string {
  return `${subjectName ?? 'Asignatura'} · ${groupName(levelName, letter)}`
}

/** What a demo teacher reads about the course cap before reaching it; `null` outside the demo. */
export function courseCapNotice(courses: number, maxCourses: number | null | undefined): string | null {
  if (maxCourses === null || maxCourses === undefined) return null
  const left = maxCourses - courses
  if (left <= 0) return `Alcanzaste el máximo de ${maxCourses} ${maxCourses === 1 ? 'curso' : 'cursos'} de la demo.`
  return left === 1 ? `Puedes crear 1 curso más en la demo.` : `Puedes crear ${left} cursos más en la demo.`
}
