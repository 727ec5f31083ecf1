/**
 * Panel directivo: for a school's directivo, how planning goes across the school — teachers,
 * courses, plans, classes done and the share of classes with a plan — and each teacher's
 * courses. Anyone without the role is told what the panel is and how to get it.
 */
import { Building2 } from 'lucide-react'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { courseName, useCurriculum, type Curriculum } from '@/features/courses'
import { planCoverage, summarizeSchool, useLedSchool, useSchoolOverview, type CourseOverview, type Progress } from '@/features/school-leader'
import { formatDate } from '@/lib/dates'

const percent = (progress: Progress) => {
  const value = planCoverage(progress)
  return value === null ? '—' : `${value} %`
}

function labelOf(row: CourseOverview, curriculum: Curriculum | undefined): string {
  const level = curriculum?.levels.find((item) => item.code === row.level_code)?.name
  return courseName(curriculum?.subjects.get(row.subject_code) ?? row.subject_code, level, row.letter)
}

export default function DirectivoRoute() {
  const school = useLedSchool()
  const overview = useSchoolOverview(school.data?.rbd)
  const curriculum = useCurriculum()

  if (school.isPending) return <Skeleton className="h-48 w-full" />
  if (!school.data) {
    return (
      <div data-testid="page-directivo">
        <PageHeader title="Panel directivo" description="La planificación de tu establecimiento de un vistazo." />
        {school.isError ? (
          <p role="alert" className="text-bad">
            No se pudo cargar tu establecimiento.
          </p>
        ) : (
          <EmptyState
            icon={Building2}
            title="Este panel es para el equipo directivo"
            description="Muestra los cursos, docentes y planificaciones de un establecimiento a quien lo dirige. Si eres parte del equipo directivo de tu colegio, pide al equipo de Cielo que te asigne el rol."
          />
        )}
      </div>
    )
  }

  const summary = overview.data ? summarizeSchool(overview.data) : null
  return (
    <div data-testid="page-directivo">
      <PageHeader title="Panel directivo" description={`${school.data.name}${school.data.comuna ? ` · ${school.data.comuna}` : ''} · año escolar 2025`} />
      {overview.isPending ? (
        <Skeleton className="h-48 w-full" />
      ) : overview.isError || !summary ? (
        <p role="alert" className="text-bad">
          No se pudo cargar el resumen del establecimiento.
        </p>
      ) : summary.total.courses === 0 ? (
        <EmptyState icon={Building2} title="Aún no hay cursos en Cielo" description="Cuando los docentes de tu establecimiento creen sus cursos, verás aquí cómo va su planificación." />
      ) : (
        <div className="flex flex-col gap-6">
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3" data-testid="school-totals">
            {[
              ['Docentes', String(summary.total.teachers)],
              ['Cursos', String(summary.total.courses)],
              ['Planificaciones', String(summary.total.plans)],
              ['Clases realizadas', `${summary.total.done} de ${summary.total.classes - summary.total.cancelled}`],
              ['Clases con planificación', percent(summary.total)],
            ].map(([label, value]) => (
              <div key={label} className="rounded-card border border-line bg-surface p-4 shadow-card">
                <dt className="text-sm text-ink-muted">{label}</dt>
                <dd className="mt-1 text-2xl font-bold text-ink tabular-nums">{value}</dd>
              </div>
            ))}
          </dl>
          <ul className="flex flex-col gap-3" data-testid="teacher-list">
            {summary.teachers.map((teacher) => (
              <li key={teacher.teacherId} className="rounded-card border border-line bg-surface p-4 shadow-card" data-testid="teacher-overview">
                <h2 className="font-semibold text-ink">{teacher.name || 'Docente sin perfil'}</h2>
                <p className="text-sm text-ink-muted">
                  {teacher.courses.length} {teacher.courses.length === 1 ? 'curso' : 'cursos'} · {teacher.plans} {teacher.plans === 1 ? 'planificación' : 'planificaciones'}
                  {teacher.lastPlanAt ? ` · última actividad el ${formatDate(teacher.lastPlanAt)}` : ''} · {percent(teacher)} de sus clases con planificación
                </p>
                <table className="mt-3 w-full text-left text-sm">
                  <thead className="text-ink-muted">
                    <tr className="border-b border-line">
                      <th scope="col" className="px-2 py-2 font-medium">Curso</th>
                      <th scope="col" className="px-2 py-2 text-right font-medium">
                        <span className="sm:hidden">Planif.</span>
                        <span className="hidden sm:inline">Planificaciones</span>
                      </th>
                      <th scope="col" className="px-2 py-2 text-right font-medium">Realizadas</th>
                      <th scope="col" className="py-2 text-right font-medium">Con plan</th>
                    </tr>
                  </thead>
                  <tbody>
                    {teacher.courses.map((row) => (
                      <tr key={row.course_id} className="border-b border-line">
                        <td className="py-2 text-ink">
                          {labelOf(row, curriculum.data)}
                          {row.students_count ? <span className="text-ink-muted"> · {row.students_count} estudiantes</span> : null}
                        </td>
                        <td className="px-2 py-2 text-right tabular-nums">{row.plan_count}</td>
                        <td className="px-2 py-2 text-right tabular-nums">
                          {row.classes_done} / {row.classes_total - row.classes_cancelled}
                        </td>
                        <td className="py-2 text-right tabular-nums">
                          {percent({ plans: row.plan_count, classes: row.classes_total, done: row.classes_done, cancelled: row.classes_cancelled, planned: row.classes_planned })}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}
