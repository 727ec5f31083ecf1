import { BookOpen } from 'lucide-react'
import { Link } from 'react-router'
import { buttonClass } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { useCourseCount } from '@/features/courses'
import { displayFirstName, useProfile } from '@/features/profile'
import { useAuth } from '@/lib/auth/auth-provider'
import { formatLongDate } from '@/lib/dates'

export default function DashboardRoute() {
  const { user } = useAuth()
  const profile = useProfile()
  const courses = useCourseCount()
  const name = displayFirstName(profile.data, user?.email)
  const today = formatLongDate(new Date())

  return (
    <div data-testid="dashboard">
      <PageHeader title={`Hola, ${name}`} description={today.charAt(0).toLocaleUpperCase('es-CL') + today.slice(1)} />
      {courses.isPending ? (
        <Skeleton className="h-40 w-full" />
      ) : courses.isError ? (
        <p role="alert" className="text-bad">No se pudieron cargar tus cursos.</p>
      ) : courses.data === 0 ? (
        <EmptyState
          icon={BookOpen}
          title="Aún no tienes cursos"
          description="Cuando crees tus cursos, aquí verás tu semana, tus próximas clases y tus planificaciones."
        >
          <Link to={paths.courses} className={buttonClass('primary')}>
            Ir a Mis Cursos
          </Link>
        </EmptyState>
      ) : (
        <section className="rounded-card border border-line bg-surface p-5 shadow-card">
          <h2 className="font-semibold text-ink">Tus cursos</h2>
          <p className="mt-1 text-ink-muted" data-testid="dashboard-course-count">
            Tienes {courses.data} {courses.data === 1 ? 'curso' : 'cursos'} en 2025.
          </p>
          <Link to={paths.courses} className={buttonClass('secondary', 'mt-4')}>
            Ver Mis Cursos
          </Link>
        </section>
      )}
    </div>
  )
}
