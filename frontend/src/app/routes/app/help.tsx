/** Ayuda: the help centre inside the app, with the way back to the guided tours and news. */
import { Link } from 'react-router'
import { PageHeader } from '@/components/ui/page-header'
import { paths } from '@/config/paths'
import { HelpCentre } from '@/features/help'

export default function HelpRoute() {
  return (
    <div data-testid="page-help">
      <PageHeader title="Ayuda" description="Respuestas a las dudas más frecuentes sobre cursos, horario, planificación y Estrellas Cielo." />
      <HelpCentre />
      <p className="mt-6 max-w-3xl text-sm text-ink-muted">
        ¿Buscas novedades de la plataforma? Revisa los{' '}
        <Link to={paths.announcements} className="font-medium text-brand underline">
          Anuncios
        </Link>
        .
      </p>
    </div>
  )
}
