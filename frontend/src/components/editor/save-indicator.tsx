import { CheckCircle2, CloudOff, Loader2, TriangleAlert } from 'lucide-react'
import { OVERALL_LABELS, type OverallStatus } from '@/lib/autosave-machine'
import { cn } from '@/lib/cn'

/** The page's save state, spoken to screen readers as it changes. */
export function SaveIndicator({ status }: { status: OverallStatus }) {
  const icon =
    status === 'saved' ? (
      <CheckCircle2 aria-hidden="true" className="size-4 text-ok" />
    ) : status === 'saving' ? (
      <Loader2 aria-hidden="true" className="size-4 animate-spin" />
    ) : status === 'offline' ? (
      <CloudOff aria-hidden="true" className="size-4 text-wait" />
    ) : (
      <TriangleAlert aria-hidden="true" className="size-4 text-bad" />
    )
  return (
    <p
      role="status"
      aria-live="polite"
      className={cn('flex items-center gap-2 text-sm', status === 'conflict' || status === 'refused' ? 'text-bad' : 'text-ink-muted')}
      data-testid="save-status"
      data-status={status}
    >
      {icon}
      {OVERALL_LABELS[status]}
    </p>
  )
}
