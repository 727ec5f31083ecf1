/**
 * `/planner/sequential/{id}/class/{classId}/edit`, without the sidebar: one class of a unit in
 * the plan editor (its zones, autosave, generation with its share of the unit's OAs), with the
 * way back to the unit and to the classes before and after it.
 */
import { ArrowLeft, ChevronLeft, ChevronRight } from 'lucide-react'
import { Link, useParams } from 'react-router'
import { buttonClass } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { useCourseLabels, useCourses } from '@/features/courses'
import { PlanEditor, usePlan } from '@/features/planner'

export default function SequentialClassEditRoute() {
  const { sessionId = '', classId = '' } = useParams()
  const unit = usePlan(sessionId)
  const courses = useCourses()
  const labels = useCourseLabels()
  const classes = unit.data?.classes ?? []
  const at = classes.findIndex((c) => c.id === classId)
  const previous = at > 0 ? classes[at - 1] : undefined
  const next = at >= 0 ? classes[at + 1] : undefined

  return (
    <div className="flex min-h-dvh flex-col bg-canvas">
      <header className="flex min-h-16 items-center justify-between gap-2 border-b border-line bg-surface px-4 print:hidden">
        <Link to={paths.sequentialSession(sessionId)} className="inline-flex min-h-11 items-center gap-2 rounded-lg px-2 text-sm font-medium text-ink hover:bg-surface-muted">
          <ArrowLeft aria-hidden="true" className="size-4" />
          Volver a la unidad
        </Link>
        <nav aria-label="Clases de la unidad" className="flex gap-1">
          {previous ? (
            <Link to={paths.sequentialClassEdit(sessionId, previous.id)} className={buttonClass('ghost', 'px-2')} aria-label={`Clase anterior (${previous.position})`}>
              <ChevronLeft aria-hidden="true" className="size-4" />
              <span className="hidden sm:inline">Clase {previous.position}</span>
            </Link>
          ) : null}
          {next ? (
            <Link to={paths.sequentialClassEdit(sessionId, next.id)} className={buttonClass('ghost', 'px-2')} aria-label={`Clase siguiente (${next.position})`} data-testid="next-class">
              <span className="hidden sm:inline">Clase {next.position}</span>
              <ChevronRight aria-hidden="true" className="size-4" />
            </Link>
          ) : null}
        </nav>
      </header>
      <main id="contenido" className="mx-auto w-full max-w-4xl flex-1 px-4 py-6" data-testid="page-sequentialClassEdit">
        {courses.isPending || labels.isPending ? (
          <Skeleton className="h-96 w-full" />
        ) : courses.isError || !labels.labels || !courses.data ? (
          <p role="alert" className="text-bad">
            No se pudieron cargar tus cursos.
          </p>
        ) : (
          <PlanEditor key={classId} planId={sessionId} classId={classId} courses={courses.data} labels={labels.labels} />
        )}
      </main>
    </div>
  )
}
