/**
 * Mis Cursos: the teacher's courses for 2025 — each with its subject's OAs for the level —
 * and the form to create or edit one (nivel, letra, asignatura taught at that level,
 * establecimiento, estudiantes, color). A demo teacher sees how many courses she has left
 * before the database's cap refuses one; every refusal reads in Spanish.
 */
import { BookOpen, Pencil, Plus, Trash2, Users } from 'lucide-react'
import { Suspense, useState } from 'react'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { CourseDialog, type CourseEditing } from '@/features/course-editor'
import {
  courseCapNotice,
  courseName,
  groupName,
  useCourses,
  useCoveredObjectives,
  useCurriculum,
  useDeleteCourse,
  useObjectiveCount,
  type Course,
  type Curriculum,
} from '@/features/courses'
import { useDemoStars } from '@/features/demo-stars'
import { FALLBACK_SCHOOL_NAME, useSchool } from '@/features/profile'
import { cn } from '@/lib/cn'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'

type Editing = CourseEditing

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
          <Button onClick={() => setEditing({ mode: 'create' })} disabled={atCap} data-testid="new-course" data-tour="new-course">
            <Plus aria-hidden="true" className="size-4" /> Nuevo curso
          </Button>
          {notice ? (
            <p className={cn('text-sm', atCap ? 'text-bad' : 'text-ink-muted')} data-testid="course-cap">
              {notice}
            </p>
          ) : null}
        </div>
      </PageHeader>

      <div data-tour="courses-list">
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
      </div>

      <Suspense fallback={null}>
        {editing && curriculum.data ? (
          <CourseDialog editing={editing} curriculum={curriculum.data} onClose={() => setEditing(null)} />
        ) : null}
      </Suspense>
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
  return isDatabaseError(error) ? databaseErrorMessage(error) : 'No se pudo eliminar el curso. Inténtalo de nuevo.'
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
