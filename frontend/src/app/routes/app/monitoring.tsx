/**
 * Monitoreo Cielo (admins): the platform's alerts — open ones first, the most severe on top —
 * each resolved or reopened with one click, and the latest entries of the security audit
 * log. Anyone else is told the page is for admins.
 */
import { CheckCircle2, ShieldCheck, Undo2 } from 'lucide-react'
import { useState } from 'react'
import { Button } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import {
  AUDIT_LIMIT,
  SEVERITY_LABELS,
  auditSummary,
  useAlerts,
  useAuditLog,
  useSetAlertResolved,
  useUnresolvedAlertCount,
  type AdminAlert,
  type AlertFilter,
} from '@/features/admin-alerts'
import { AdminOnly } from '@/features/roles'
import { cn } from '@/lib/cn'
import { formatDateTime } from '@/lib/dates'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'

const SEVERITY_TONE: Record<AdminAlert['severity'], string> = {
  critical: 'border-bad-line bg-bad-soft text-bad',
  error: 'border-bad-line bg-bad-soft text-bad',
  warning: 'border-wait-line bg-wait-soft text-wait',
  info: 'border-line bg-surface-muted text-ink-muted',
}

export default function MonitoringRoute() {
  return (
    <div data-testid="page-monitoring">
      <PageHeader title="Monitoreo Cielo" description="Alertas de la plataforma y registro de seguridad para el equipo de administración." />
      <AdminOnly>
        <MonitoringPanels />
      </AdminOnly>
    </div>
  )
}

function MonitoringPanels() {
  const [filter, setFilter] = useState<AlertFilter>('open')
  const count = useUnresolvedAlertCount(true)
  const alerts = useAlerts(filter)
  const audit = useAuditLog()

  return (
        <div className="flex flex-col gap-6">
          <section aria-labelledby="alerts-title" className="flex flex-col gap-3">
            <div className="flex flex-wrap items-center justify-between gap-3">
              <h2 id="alerts-title" className="text-lg font-semibold text-ink">
                Alertas
                {count.data ? (
                  <span className="ml-2 rounded-full bg-bad-soft px-2 py-0.5 text-sm text-bad" data-testid="critical-count">
                    {count.data} {count.data === 1 ? 'crítica o error' : 'críticas o errores'} sin resolver
                  </span>
                ) : null}
              </h2>
              <div role="group" aria-label="Mostrar" className="inline-flex rounded-lg border border-line bg-surface p-1">
                {(['open', 'all'] as const).map((value) => (
                  <button
                    key={value}
                    type="button"
                    aria-pressed={filter === value}
                    onClick={() => setFilter(value)}
                    className={cn(
                      'min-h-9 rounded-md px-3 text-sm font-medium',
                      filter === value ? 'bg-brand text-brand-ink' : 'text-ink hover:bg-surface-muted',
                    )}
                  >
                    {value === 'open' ? 'Sin resolver' : 'Todas'}
                  </button>
                ))}
              </div>
            </div>
            {alerts.isPending ? (
              <Skeleton className="h-40 w-full" />
            ) : alerts.isError ? (
              <p role="alert" className="text-bad">
                No se pudieron cargar las alertas.
              </p>
            ) : alerts.data.length === 0 ? (
              <EmptyState
                icon={ShieldCheck}
                title={filter === 'open' ? 'Todo en orden' : 'Sin alertas'}
                description={filter === 'open' ? 'No hay alertas sin resolver.' : 'La plataforma aún no ha registrado alertas.'}
              />
            ) : (
              <ul className="flex flex-col gap-2" data-testid="alert-list">
                {alerts.data.map((alert) => (
                  <AlertRow key={alert.id} alert={alert} />
                ))}
              </ul>
            )}
          </section>

          <section aria-labelledby="audit-title" className="flex flex-col gap-3">
            <h2 id="audit-title" className="text-lg font-semibold text-ink">
              Registro de seguridad
            </h2>
            <p className="text-sm text-ink-muted">Los últimos {AUDIT_LIMIT} eventos que registró la aplicación. Los datos sensibles se ocultan en la base de datos.</p>
            {audit.isPending ? (
              <Skeleton className="h-40 w-full" />
            ) : audit.isError ? (
              <p role="alert" className="text-bad">
                No se pudo cargar el registro de seguridad.
              </p>
            ) : audit.data.length === 0 ? (
              <p className="text-sm text-ink-muted">Aún no hay eventos registrados.</p>
            ) : (
              <ul className="flex flex-col gap-2" data-testid="audit-list">
                {audit.data.map((entry) => (
                  <li key={entry.id} className="rounded-card border border-line bg-surface px-4 py-3 text-sm">
                    <p className="flex flex-wrap gap-2 text-xs text-ink-muted">
                      <span className="tabular-nums">{formatDateTime(entry.created_at)}</span>
                      <span className="font-mono">{entry.action.replace(/^logger_/, '')}</span>
                      <span>{entry.who ?? (entry.user_id ? 'Usuario sin perfil' : 'Sin sesión')}</span>
                    </p>
                    <p className="text-ink">{auditSummary(entry)}</p>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </div>
  )
}

function AlertRow({ alert }: { alert: AdminAlert }) {
  const setResolved = useSetAlertResolved()
  const toggle = () =>
    setResolved.mutate(
      { id: alert.id, resolved: !alert.is_resolved },
      {
        onSuccess: () => notify.success(alert.is_resolved ? 'Alerta reabierta' : 'Alerta resuelta', alert.title),
        onError: (error) => notify.error('No se pudo cambiar la alerta', isDatabaseError(error) ? databaseErrorMessage(error) : 'Inténtalo de nuevo.'),
      },
    )
  const details = alert.metadata && typeof alert.metadata === 'object' && Object.keys(alert.metadata).length > 0 ? JSON.stringify(alert.metadata, null, 2) : null
  return (
    <li data-testid="alert" data-severity={alert.severity} className="rounded-card border border-line bg-surface p-4 shadow-card">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <div className="min-w-0 flex-1">
          <div className="mb-1 flex flex-wrap items-center gap-2 text-xs">
            <span className={cn('rounded-full border px-2 py-0.5 font-semibold', SEVERITY_TONE[alert.severity])}>{SEVERITY_LABELS[alert.severity]}</span>
            <span className="text-ink-muted">{alert.source}</span>
            <span className="text-ink-muted">{formatDateTime(alert.created_at)}</span>
            {alert.is_resolved && alert.resolved_at ? <span className="text-ok">Resuelta el {formatDateTime(alert.resolved_at)}</span> : null}
          </div>
          <h3 className="font-semibold text-ink">{alert.title}</h3>
          {alert.message ? <p className="mt-1 text-sm text-ink">{alert.message}</p> : null}
          {details ? (
            <details className="mt-2 text-sm">
              <summary className="cursor-pointer text-ink-muted">Detalles</summary>
              <pre className="mt-1 overflow-x-auto rounded-lg bg-surface-muted p-2 text-xs text-ink">{details}</pre>
            </details>
          ) : null}
        </div>
        <Button variant="secondary" onClick={toggle} disabled={setResolved.isPending} className="shrink-0 self-start">
          {alert.is_resolved ? (
            <>
              <Undo2 aria-hidden="true" className="size-4" /> Reabrir
            </>
          ) : (
            <>
              <CheckCircle2 aria-hidden="true" className="size-4" /> Marcar resuelta
            </>
          )}
        </Button>
      </div>
    </li>
  )
}
