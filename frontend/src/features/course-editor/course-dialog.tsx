/**
 * The course dialog: a new course or changes to one, checked against the national curriculum
 * (the subjects taught at the chosen level) and the database's own rules.
 */
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { AppDialog } from '@/components/ui/dialog'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import { SchoolPicker, useProfile } from '@/features/profile'
import { cn } from '@/lib/cn'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'
import {
  COURSE_COLORS,
  courseProblems,
  normalizeDraft,
  useCreateCourse,
  useUpdateCourse,
  type Course,
  type CourseProblems,
  type Curriculum,
} from '@/features/courses'

export type CourseEditing = { mode: 'create' } | { mode: 'edit'; course: Course }

function refusal(error: unknown): string {
  return isDatabaseError(error) ? databaseErrorMessage(error) : 'No se pudo guardar el curso. Inténtalo de nuevo.'
}

/** Creating or editing a course: level, letter, subject (the national curriculum's), school, students, colour. */
export function CourseDialog({
  editing,
  curriculum,
  onClose,
  onSaved,
}: {
  editing: CourseEditing
  curriculum: Curriculum
  onClose: () => void
  onSaved?: () => void
}) {
  const profile = useProfile()
  const create = useCreateCourse()
  const update = useUpdateCourse()
  const initial = editing.mode === 'edit' ? editing.course : null
  const [levelCode, setLevelCode] = useState(initial?.level_code ?? '')
  const [letter, setLetter] = useState(initial?.letter ?? 'A')
  const [subjectCode, setSubjectCode] = useState(initial?.subject_code ?? '')
  const [students, setStudents] = useState(initial?.students_count ? String(initial.students_count) : '')
  const [color, setColor] = useState(initial?.color ?? COURSE_COLORS[0])
  const [school, setSchool] = useState<number | null>(initial?.school_rbd ?? profile.data?.school_rbd ?? null)
  const [problems, setProblems] = useState<CourseProblems>({})
  const [saveError, setSaveError] = useState<string | null>(null)
  const ids = { level: useId(), letter: useId(), subject: useId(), students: useId() }
  const subjects = curriculum.subjectsByLevel.get(levelCode) ?? []
  const saving = create.isPending || update.isPending

  function submit(event: FormEvent) {
    event.preventDefault()
    const draft = normalizeDraft({
      level_code: levelCode,
      letter,
      subject_code: subjectCode,
      school_rbd: school,
      students_count: students,
      color,
    })
    const found = courseProblems(draft, subjects)
    setProblems(found)
    setSaveError(null)
    if (Object.keys(found).length > 0) return
    const done = {
      onSuccess: () => {
        notify.success(editing.mode === 'edit' ? 'Curso actualizado' : 'Curso creado')
        onClose()
        onSaved?.()
      },
      onError: (error: unknown) => setSaveError(refusal(error)),
    }
    if (editing.mode === 'edit') update.mutate({ id: editing.course.id, draft }, done)
    else create.mutate(draft, done)
  }

  return (
    <AppDialog
      title={editing.mode === 'edit' ? 'Editar curso' : 'Nuevo curso'}
      description="Las asignaturas son las del currículum nacional para el nivel que elijas."
      onClose={onClose}
      testId="course-dialog"
    >
          <form onSubmit={submit} noValidate className="flex flex-col gap-4">
            <div className="grid grid-cols-[1fr_6rem] gap-3">
              <Field id={ids.level} label="Nivel" problem={problems.level_code}>
                <select
                  id={ids.level}
                  className={fieldClass}
                  value={levelCode}
                  onChange={(event) => {
                    setLevelCode(event.target.value)
                    const taught = curriculum.subjectsByLevel.get(event.target.value) ?? []
                    if (!taught.includes(subjectCode)) setSubjectCode('')
                  }}
                >
                  <option value="">Elige un nivel</option>
                  {curriculum.levels.map((level) => (
                    <option key={level.code} value={level.code}>
                      {level.name}
                    </option>
                  ))}
                </select>
              </Field>
              <Field id={ids.letter} label="Letra" problem={problems.letter}>
                <input
                  id={ids.letter}
                  className={cn(fieldClass, 'uppercase')}
                  value={letter}
                  maxLength={1}
                  autoComplete="off"
                  onChange={(event) => setLetter(event.target.value.toUpperCase())}
                />
              </Field>
            </div>
            <Field id={ids.subject} label="Asignatura" problem={problems.subject_code}>
              <select
                id={ids.subject}
                className={fieldClass}
                value={subjectCode}
                disabled={!levelCode}
                onChange={(event) => setSubjectCode(event.target.value)}
              >
                <option value="">{levelCode ? 'Elige una asignatura' : 'Primero elige el nivel'}</option>
                {subjects.map((code) => (
                  <option key={code} value={code}>
                    {curriculum.subjects.get(code) ?? code}
                  </option>
                ))}
              </select>
            </Field>
            {/* The profile's school by default; another one for a course taught elsewhere. */}
            <SchoolPicker
              value={school}
              onChange={setSchool}
              hint="El de tu perfil, salvo que hagas este curso en otro establecimiento."
              testId="course-school"
            />
            <Field id={ids.students} label="Estudiantes (opcional)" problem={problems.students_count}>
              <input
                id={ids.students}
                className={fieldClass}
                inputMode="numeric"
                value={students}
                onChange={(event) => setStudents(event.target.value.replace(/\D/g, '').slice(0, 2))}
                placeholder="Ej.: 32"
              />
            </Field>
            <fieldset>
              <legend className="mb-2 text-sm font-medium text-ink">Color en el horario</legend>
              <div className="flex flex-wrap gap-2">
                {COURSE_COLORS.map((option) => (
                  <label key={option} className="cursor-pointer">
                    <input
                      type="radio"
                      name="course-color"
                      value={option}
                      checked={color === option}
                      onChange={() => setColor(option)}
                      className="peer sr-only"
                      aria-label={`Color ${option}`}
                    />
                    <span
                      className="block size-9 rounded-full ring-offset-2 peer-checked:ring-2 peer-checked:ring-ink peer-focus-visible:outline-2 peer-focus-visible:outline-brand"
                      style={{ backgroundColor: option }}
                    />
                  </label>
                ))}
              </div>
            </fieldset>
            <FormError message={saveError} testId="course-error" />
            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <Button variant="secondary" onClick={onClose}>
                Cancelar
              </Button>
              <Button type="submit" disabled={saving} data-testid="save-course">
                {saving ? 'Guardando…' : editing.mode === 'edit' ? 'Guardar cambios' : 'Crear curso'}
              </Button>
            </div>
          </form>
    </AppDialog>
  )
}
