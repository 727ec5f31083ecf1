import { CalendarDays, FileText, Sparkles } from 'lucide-react'
import { Link } from 'react-router'
import { PublicLayout } from '@/components/layout/public-layout'
import { buttonClass } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { useAuth } from '@/lib/auth/auth-provider'

const FEATURES = [
  { icon: FileText, title: 'Planificaciones', text: 'Clases simples y unidades secuenciales alineadas con los OA del currículum nacional.' },
  { icon: CalendarDays, title: 'Horario y calendario', text: 'Tu semana escolar 2025, con feriados y vacaciones de invierno de tu región.' },
  { icon: Sparkles, title: 'Ayuda con IA', text: 'Propuestas de actividades y evaluaciones que tú revisas y ajustas.' },
]

export default function LandingRoute() {
  const { user, emailConfirmed } = useAuth()
  return (
    <PublicLayout>
      <section className="flex flex-col items-start gap-5 py-8 sm:py-14">
        <h1 className="max-w-3xl text-3xl font-bold tracking-tight text-ink sm:text-5xl">
          Planifica tus clases con el currículum nacional, en un solo lugar
        </h1>
        <p className="max-w-2xl text-lg text-ink-muted">
          Cielo acompaña a docentes de Chile en el año escolar 2025: cursos, horario, calendario y planificaciones.
        </p>
        <div className="flex flex-wrap gap-3">
          {user && emailConfirmed ? (
            <Link to={paths.dashboard} className={buttonClass('primary')}>Ir al Dashboard</Link>
          ) : (
            <>
              <Link to={paths.auth} className={buttonClass('primary')}>Comenzar</Link>
              <Link to={paths.auth} className={buttonClass('secondary')}>Iniciar sesión</Link>
            </>
          )}
        </div>
      </section>
      <ul className="grid gap-4 sm:grid-cols-3" role="list">
        {FEATURES.map(({ icon: Icon, title, text }) => (
          <li key={title} className="rounded-card border border-line bg-surface p-5 shadow-card">
            <Icon aria-hidden="true" className="size-6 text-brand" />
            <h2 className="mt-3 font-semibold text-ink">{title}</h2>
            <p className="mt-1 text-sm text-ink-muted">{text}</p>
          </li>
        ))}
      </ul>
    </PublicLayout>
  )
}
