import { SearchX } from 'lucide-react'
import { Link } from 'react-router'
import { buttonClass } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { paths } from '@/config/paths'

export default function NotFoundRoute() {
  return (
    <div data-testid="not-found">
      <PageHeader title="Página no encontrada" />
      <EmptyState icon={SearchX} title="Esta página no existe" description="Revisa la dirección o vuelve al inicio.">
        <Link to={paths.dashboard} className={buttonClass('primary')}>
          Ir al Dashboard
        </Link>
      </EmptyState>
    </div>
  )
}
