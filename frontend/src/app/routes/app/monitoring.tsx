import { Gauge } from 'lucide-react'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { useUnresolvedAlertCount } from '@/features/admin-alerts'
import { useIsAdmin } from '@/features/roles'

export default function MonitoringRoute() {
  const isAdmin = useIsAdmin()
  const count = useUnresolvedAlertCount(isAdmin.data === true)
  return (
    <div>
      <PageHeader title="Monitoreo Cielo" description="Alertas de la plataforma para el equipo de administración." />
      {isAdmin.data === false ? (
        <p role="alert" className="text-ink">Esta sección es solo para administradores.</p>
      ) : count.data !== undefined ? (
        <EmptyState
          icon={Gauge}
          title={count.data === 0 ? 'Sin alertas críticas' : `${count.data} ${count.data === 1 ? 'alerta' : 'alertas'} de error o críticas sin resolver`}
          description="El detalle de las alertas y su resolución llegarán a esta página próximamente."
        />
      ) : null}
    </div>
  )
}
