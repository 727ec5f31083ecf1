import { OVERALL_LABELS } from '@/features/health/api/overall'
import type { HealthStatus } from '@/features/health/api/types'
import { STATUS_TONE, StatusIcon } from './status-icon'

const timeFormat = new Intl.DateTimeFormat('es-CL', {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
})

export interface OverallBannerProps {
  status: HealthStatus
  running: boolean
  checkedAt: Date | null
  onRecheck: () => void
}

export function OverallBanner({ status, running, checkedAt, onRecheck }: OverallBannerProps) {
  const tone = STATUS_TONE[status]
  return (
    <section
      aria-labelledby="health-overall-title"
      data-testid="health-overall"
      data-status={status}
      className={`flex flex-col gap-4 rounded-card border p-5 shadow-card sm:flex-row sm:items-center sm:justify-between ${tone.soft} ${tone.line}`}
    >
      <div className="flex items-start gap-3" role="status" aria-live="polite" aria-atomic="true">
        <StatusIcon status={status} className={`mt-0.5 size-7 shrink-0 ${tone.text}`} />
        <div>
          <h2 id="health-overall-title" className={`text-lg font-semibold ${tone.text}`}>
            {OVERALL_LABELS[status]}
          </h2>
          <p className="text-sm text-ink-muted">
            {running
              ? 'Comprobando los servicios…'
              : checkedAt
                ? `Última comprobación: ${timeFormat.format(checkedAt)}`
                : 'Aún no se ha comprobado.'}
          </p>
        </div>
      </div>
      <button
        type="button"
        onClick={onRecheck}
        disabled={running}
        className="inline-flex min-h-11 items-center justify-center gap-2 rounded-lg bg-brand px-4 font-medium text-brand-ink shadow-sm transition-colors hover:bg-brand-strong focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand disabled:cursor-not-allowed disabled:opacity-60"
      >
        <svg viewBox="0 0 20 20" fill="currentColor" className={`size-4 ${running ? 'animate-spin' : ''}`} aria-hidden="true" focusable="false">
          <path
            fillRule="evenodd"
            d="M15.31 4.69A7 7 0 0 0 3.2 8.5a.75.75 0 1 0 1.46.34 5.5 5.5 0 0 1 9.3-2.62l-1.3.03a.75.75 0 0 0 .03 1.5l3.06-.06a.75.75 0 0 0 .74-.76l-.06-3.06a.75.75 0 0 0-1.5.03l.03 1.1.35-.31ZM16.8 11.5a.75.75 0 0 0-.9.56 5.5 5.5 0 0 1-9.86 2.1l1.3-.03a.75.75 0 1 0-.03-1.5l-3.06.06a.75.75 0 0 0-.74.76l.06 3.06a.75.75 0 0 0 1.5-.03l-.02-1.16A7 7 0 0 0 17.36 12.4a.75.75 0 0 0-.56-.9Z"
            clipRule="evenodd"
          />
        </svg>
        Volver a comprobar
      </button>
    </section>
  )
}
