/** `/planner/sequential/{id}`: one unit of Plan. Secuencial — its overview and classes. */
import { ArrowLeft } from 'lucide-react'
import { Link, useParams } from 'react-router'
import { Skeleton } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { useCourseLabels, useCourses } from '@/features/courses'
import { UnitOverview, usePlan } from '@/features/planner'

export default function SequentialUnitRoute() {
  const { sessionId = '' } = useParams()
  const unit = usePlan(sessionId, { fresh: true })
  const courses = useCourses()
  const labels = useCourseLabels()
  const course = courses.data?.find((c) => c.id === unit.data?.course_id)
  return (
    <div data-testid="sequential-unit-page">
      <Link to={paths.sequential} className="mb-3 inline-flex min-h-11 items-center gap-2 rounded-lg px-2 text-sm font-medium text-ink hover:bg-surface-muted">
        <ArrowLeft aria-hidden="true" className="size-4" /> Plan. Secuencial
      </Link>
      {unit.isPending || courses.isPending ? (
        <Skeleton className="h-96 w-full" />
      ) : unit.isError ? (
        <p role="alert" className="text-bad">
          No se pudo cargar la unidad.
        </p>
      ) : !unit.data || unit.data.kind !== 'secuencial' ? (
        <p role="alert" className="text-bad" data-testid="unit-not-found">
          Esta unidad no existe o no es tuya.
        </p>
      ) : (
        <UnitOverview unit={unit.data} course={course} label={course ? labels.labels?.get(course.id) : undefined} />
      )}
    </div>
  )
}
