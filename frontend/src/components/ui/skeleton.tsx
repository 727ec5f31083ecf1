import { cn } from '@/lib/cn'

/** One pulsing placeholder bar. */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cn('animate-pulse rounded-md bg-surface-muted', className)} />
}

/** What a guarded page shows while the session or a role is being checked. */
export function SkeletonBars({ label = 'Cargando…' }: { label?: string }) {
  return (
    <div role="status" aria-live="polite" data-testid="loading-skeleton" className="flex w-full flex-col gap-3 p-6">
      <span className="sr-only">{label}</span>
      <Skeleton className="h-8 w-1/3" />
      <Skeleton className="h-4 w-full" />
      <Skeleton className="h-4 w-5/6" />
      <Skeleton className="h-4 w-2/3" />
    </div>
  )
}
