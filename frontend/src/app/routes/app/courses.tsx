/**
 * Mis Cursos: the teacher's courses for 2025 — each with its subject's OAs for the level —
 * and the form to create or edit one (nivel, letra, asignatura taught at that level,
 * establecimiento, estudiantes, color). A demo teacher sees how many courses she has left
 * before the database's cap refuses one; every refusal reads in Spanish.
 */
import { BookOpen, Pencil, Plus, Trash2, Users } from 'lucide-react'
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { AppDialog, ConfirmDialog } from '@/components/ui/dialog'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import {
  COURSE_COLORS,
  courseCapNotice,
  courseName,
  courseProblems,
  groupName,
  normalizeDraft,
  useCourses,
  useCoveredObjectives,
  useCreateCourse,
  useCurriculum,
  useDeleteCourse,
  useObjectiveCount,
  useSchoolSearch,
  useUpdateCourse,
  type Course,
  type CourseProblems,
  type Curriculum,
  type SchoolOption,
} from '@/features/courses'
import { useDemoStars } from '@/features/demo-stars'
import { FALLBACK_SCHOOL_NAME, useProfile, useSchool } from '@/features/profile'
import { cn } from '@/lib/cn'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'

type Editing = { mode: 'create' } | { mode: 'edit'; course: Course }

export default function CoursesRoute() {
  const courses = useCourses()
  const curriculum = useCurriculum()
  const demo = useDemoStars()
  const [editing, setEditing] = useState<Editing | null>(null)
  const [deleting, setDeleting] = useState<Course | null>(null)
  const covered = useCoveredObjectives()

  const count = courses.data?.length ?? 0
  const maxCourses = demo.data?.isDemoUser ? demo.data.maxCourses : null
  const notice = courseCapNotice(count, maxCourses)
  const atCap = typeof maxCourses === 'number' && count >= maxCourses

  return (
    <div data-testid="courses-page">
      <PageHeader title="Mis Cursos" description="Los cursos que haces en 2025: nivel, letra y asignatura.">
        <div className="flex flex-wrap items-center gap-3">
          <Button onClick={() => setEditing({ mode: 'create' })} disabled={atCap} data-testid="new-course">
            <Plus aria-hidden="true" className="size-4" /> Nuevo curso
          </Button>
          {notice ? (
            <p className={cn('text-sm', atCap ? 'text-bad' : 'text-ink-muted')} data-testid="course-cap">
              {notice}
            </p>
          ) : null}
        </div>
      </PageHeader>

      {courses.isPending || curriculum.isPending ? (
        <Skeleton className="h-40 w-full" />
      ) : courses.isError || curriculum.isError ? (
        <p role="alert" className="text-bad">
          No se pudieron cargar tus cursos.
        </p>
      ) : count === 0 ? (
        <EmptyState
          icon={BookOpen}
          title="Aún no tienes cursos"
          description="Crea tu primer curso: elige el nivel, la letra y la asignatura. Luego arma tu horario y planifica tus clases."
        >
          <Button onClick={() => setEditing({ mode: 'create' })}>Crear mi primer curso</Button>
        </EmptyState>
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3" data-testid="course-list">
          {courses.data.map((course) => (
            <CourseCard
              key={course.id}
              course={course}
              curriculum={curriculum.data}
              covered={covered.data?.get(course.id) ?? 0}
              onEdit={() => setEditing({ mode: 'edit', course })}
              onDelete={() => setDeleting(course)}
            />
          ))}
        </ul>
      )}

      {editing && curriculum.data ? (
        <CourseDialog editing={editing} curriculum={curriculum.data} onClose={() => setEditing(null)} />
      ) : null}
      {deleting && curriculum.data ? (
        <DeleteDialog course={deleting} curriculum={curriculum.data} onClose={() => setDeleting(null)} />
      ) : null}
    </div>
  )
}

function nameOf(course: Course, curriculum: Curriculum): string {
  const level = curriculum.levels.find((l) => l.code === course.level_code)?.name
  return courseName(curriculum.subjects.get(course.subject_code), level, course.letter)
}

function CourseCard({
  course,
  curriculum,
  covered,
  onEdit,
  onDelete,
}: {
  course: Course
  curriculum: Curriculum
  covered: number
  onEdit: () => void
  onDelete: () => void
}) {
  const level = curriculum.levels.find((l) => l.code === course.level_code)?.name
  const school = useSchool(course.school_rbd)
  const objectives = useObjectiveCount(course.level_code, course.subject_code).data
  return (
    <li
      className="flex flex-col overflow-hidden rounded-card border border-line bg-surface shadow-card"
      data-testid="course-card"
    >
      <div aria-hidden="true" className="h-2" style={{ backgroundColor: course.color }} />
      <div className="flex flex-1 flex-col gap-2 p-4">
        <h2 className="text-lg font-semibold text-ink">{curriculum.subjects.get(course.subject_code) ?? course.subject_code}</h2>
        <p className="font-medium text-ink">{groupName(level, course.letter)}</p>
        <p className="text-sm text-ink-muted">{school.data?.NOM_RBD ?? (course.school_rbd ? `RBD ${course.school_rbd}` : FALLBACK_SCHOOL_NAME)}</p>
        <dl className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-sm text-ink-muted">
          {course.students_count ? (
            <div className="flex items-center gap-1">
              <Users aria-hidden="true" className="size-4" />
              <dt className="sr-only">Estudiantes</dt>
              <dd>{course.students_count} estudiantes</dd>
            </div>
          ) : null}
          <div>
            <dt className="sr-only">Objetivos de aprendizaje</dt>
            <dd data-testid="course-objectives">
              {objectives === undefined
                ? 'OA…'
                : `${objectives} OA · ${covered} ${covered === 1 ? 'cubierto' : 'cubiertos'} por planificaciones`}
            </dd>
          </div>
        </dl>
        <div className="mt-auto flex gap-2 pt-3">
          <Button variant="secondary" onClick={onEdit} aria-label={`Editar ${nameOf(course, curriculum)}`}>
            <Pencil aria-hidden="true" className="size-4" /> Editar
          </Button>
          <Button variant="ghost" onClick={onDelete} aria-label={`Eliminar ${nameOf(course, curriculum)}`}>
            <Trash2 aria-hidden="true" className="size-4" /> Eliminar
          </Button>
        </div>
      </div>
    </li>
  )
}

function refusal(error: unknown): string {
  return isDatabaseError(error) ? databaseErrorMessage(error) : 'No se pudo guardar el curso. Inténtalo de nuevo.'
}

function CourseDialog({ editing, curriculum, onClose }: { editing: Editing; curriculum: Curriculum; onClose: () => void }) {
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
            <SchoolField value={school} onChange={setSchool} />
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

/** The course's school: the profile's by default, any school of the directory by search. */
function SchoolField({ value, onChange }: { value: number | null; onChange: (rbd: number | null) => void }) {
  const current = useSchool(value)
  const [searching, setSearching] = useState(false)
  const [term, setTerm] = useState('')
  const results = useSchoolSearch(term)
  const inputId = useId()
  const describe = (school: SchoolOption) => `${school.NOM_RBD} · ${school.comuna} (RBD ${school.RBD})`

  if (!searching) {
    return (
      <div className="flex flex-col gap-1">
        <span className="text-sm font-medium text-ink">Establecimiento</span>
        <div className="flex items-center justify-between gap-2 rounded-lg border border-line px-3 py-2">
          <span className="text-sm text-ink">{value === null
              ? 'Sin establecimiento'
              : current.data
                ? `${current.data.NOM_RBD} (RBD ${current.data.RBD})`
                : `RBD ${value}`}</span>
          <Button variant="ghost" className="min-h-9 px-2" onClick={() => setSearching(true)}>
            Cambiar
          </Button>
        </div>
      </div>
    )
  }
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={inputId} className="text-sm font-medium text-ink">
        Buscar establecimiento
      </label>
      <input
        id={inputId}
        className="min-h-11 w-full rounded-lg border border-line bg-surface px-3 text-ink"
        value={term}
        onChange={(event) => setTerm(event.target.value)}
        placeholder="Nombre, comuna o RBD"
        autoComplete="off"
      />
      {term.trim().length >= 3 ? (
        <ul className="mt-1 flex flex-col rounded-lg border border-line" aria-label="Establecimientos encontrados">
          {results.isPending ? (
            <li className="p-3 text-sm text-ink-muted">Buscando…</li>
          ) : (results.data ?? []).length === 0 ? (
            <li className="p-3 text-sm text-ink-muted">No encontramos establecimientos con esa búsqueda.</li>
          ) : (
            (results.data ?? []).map((school) => (
              <li key={school.RBD}>
                <button
                  type="button"
                  className="w-full px-3 py-2 text-left text-sm text-ink hover:bg-surface-muted focus-visible:bg-surface-muted"
                  onClick={() => {
                    onChange(school.RBD)
                    setSearching(false)
                  }}
                >
                  {describe(school)}
                </button>
              </li>
            ))
          )}
        </ul>
      ) : (
        <p className="text-sm text-ink-muted">Escribe al menos 3 letras o el RBD.</p>
      )}
    </div>
  )
}

function DeleteDialog({ course, curriculum, onClose }: { course: Course; curriculum: Curriculum; onClose: () => void }) {
  const remove = useDeleteCourse()
  const name = nameOf(course, curriculum)
  return (
    <ConfirmDialog
      title={`¿Eliminar ${name}?`}
      description="Se eliminan también sus bloques del horario y sus clases del calendario. Esta acción no se puede deshacer."
      confirmLabel="Eliminar curso"
      confirmTestId="confirm-delete-course"
      onClose={onClose}
      onConfirm={() =>
        remove.mutate(course.id, {
          onSuccess: () => notify.success('Curso eliminado', name),
          onError: (error) => notify.error('No se pudo eliminar el curso', refusal(error)),
        })
      }
    />
  )
}
