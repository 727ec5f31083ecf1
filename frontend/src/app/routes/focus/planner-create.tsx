/**
 * `/planner/create`, without the sidebar: with `?plan=<id>` the plan open in the editor;
 * otherwise the form that starts one — for the calendar class in `?clase=<id>` when the
 * calendar sent the teacher here.
 */
import { ArrowLeft, BookOpen } from 'lucide-react'
import { Suspense } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { buttonClass } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { Skeleton } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { useCourseLabels, useCourses } from '@/features/courses'
import { LazyNewPlanForm, PlanEditor, useClassSession } from '@/features/planner'

export default function PlannerCreateRoute() {
  const [params] = useSearchParams()
  const navigate = useNavigate()
  const planId = params.get('plan')
  const classId = params.get('clase')
  const courses = useCourses()
  const labels = useCourseLabels()
  const session = useClassSession(planId ? null : classId)

  const loading = courses.isPending || labels.isPending || (Boolean(classId) && !planId && session.isPending)
  return (
    <div className="flex min-h-dvh flex-col bg-canvas">
      <header className="flex min-h-16 items-center border-b border-line bg-surface px-4 print:hidden">
        <Link to={paths.planner} className="inline-flex min-h-11 items-center gap-2 rounded-lg px-2 text-sm font-medium text-ink hover:bg-surface-muted">
          <ArrowLeft aria-hidden="true" className="size-4" />
          Volver a Plan. Simple
        </Link>
      </header>
      <main id="contenido" className="mx-auto w-full max-w-4xl flex-1 px-4 py-6" data-testid="page-plannerCreate">
        {loading ? (
          <Skeleton className="h-96 w-full" />
        ) : courses.isError || !labels.labels || !courses.data ? (
          <p role="alert" className="text-bad">
            No se pudieron cargar tus cursos.
          </p>
        ) : planId ? (
          <PlanEditor key={planId} planId={planId} courses={courses.data} labels={labels.labels} />
        ) : courses.data.length === 0 ? (
          <EmptyState icon={BookOpen} title="Primero crea un curso" description="Una planificación es para uno de tus cursos y sus OA.">
            <Link to={paths.courses} className={buttonClass('primary')}>
              Ir a Mis Cursos
            </Link>
          </EmptyState>
        ) : (
          <>
            <h1 className="mb-1 text-2xl font-bold text-ink">Nueva planificación</h1>
            <p className="mb-6 text-ink-muted">Elige el curso, la clase y los OA; luego escribe o genera cada zona de la clase.</p>
            <Suspense fallback={<Skeleton className="h-96 w-full" />}>
              <LazyNewPlanForm
                courses={courses.data}
                labels={labels.labels}
                initialCourseId={session.data?.course_id ?? null}
                initialClassId={session.data?.id ?? null}
                onCreated={(id) => navigate(`${paths.plannerCreate}?plan=${encodeURIComponent(id)}`, { replace: true })}
              />
            </Suspense>
          </>
        )}
      </main>
    </div>
  )
}
