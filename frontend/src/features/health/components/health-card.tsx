import { STATUS_LABELS } from '@/features/health/api/overall'
import type { HealthCheckResult, HealthStatus, ServiceName } from '@/features/health/api/types'
import { STATUS_TONE, StatusIcon } from './status-icon'

const msFormat = new Intl.NumberFormat('es-CL', { maximumFractionDigits: 0 })

export interface HealthCardProps {
  service: ServiceName
  title: string
  description: string
  status: HealthStatus
  result: HealthCheckResult | undefined
}

export function HealthCard({ service, title, description, status, result }: HealthCardProps) {
  const tone = STATUS_TONE[status]
  const titleId = `health-card-${service}-title`
  return (
    <article
      aria-labelledby={titleId}
      aria-busy={status === 'checking'}
      data-testid={`health-card-${service}`}
      data-status={status}
      className={`flex flex-col gap-4 rounded-card border border-t-4 border-line bg-surface p-5 shadow-card ${tone.accent}`}
    >
      <header className="flex flex-col gap-1">
        <div className="flex items-start justify-between gap-3">
          <h3 id={titleId} className="min-w-0 pt-0.5 font-semibold text-ink">
            {title}
          </h3>
          <span
            className={`inline-flex shrink-0 items-center gap-1.5 rounded-full px-2.5 py-1 text-sm font-medium ${tone.soft} ${tone.text}`}
            data-testid={`health-card-${service}-status`}
          >
            <StatusIcon status={status} className="size-4" />
            {STATUS_LABELS[status]}
          </span>
        </div>
        <p className="text-sm text-ink-muted">{description}</p>
      </header>

      <dl className="grid grid-cols-2 gap-3 text-sm">
        <div className="rounded-lg bg-surface-muted px-3 py-2">
          <dt className="text-ink-muted">Latencia</dt>
          <dd className="font-mono text-base text-ink tabular-nums">
            {result ? `${msFormat.format(result.latencyMs)} ms` : '—'}
          </dd>
        </div>
        <div className="rounded-lg bg-surface-muted px-3 py-2">
          <dt className="text-ink-muted">Respuesta</dt>
          <dd className="font-mono text-base text-ink tabular-nums">
            {result ? (result.status === null ? (service === 'session' ? 'Local' : 'Sin respuesta') : `HTTP ${result.status}`) : '—'}
          </dd>
        </div>
      </dl>

      <p className="text-sm break-words text-ink" data-testid={`health-card-${service}-detail`}>
        {result ? result.detail : 'Comprobando…'}
      </p>
    </article>
  )
}
