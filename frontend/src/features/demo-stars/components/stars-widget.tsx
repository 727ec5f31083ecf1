import { Star } from 'lucide-react'
import { cn } from '@/lib/cn'
import { formatDate } from '@/lib/dates'
import { usageLevel, useDemoStars } from '@/features/demo-stars/api/demo-stars'

const toneClass = {
  yellow: 'bg-wait-line',
  orange: 'bg-orange-500',
  red: 'bg-bad',
} as const

/** Estrellas Cielo for demo users: what is left of the Demo 2025 quota. Nothing otherwise. */
export function StarsWidget({ collapsed }: { collapsed: boolean }) {
  const { data: stars } = useDemoStars()
  if (!stars?.isDemoUser) return null
  const level = usageLevel(stars.usagePercentage)
  const summary = `${stars.remainingStars} de ${stars.totalStars} Estrellas Cielo disponibles`

  if (collapsed) {
    return (
      <div data-testid="stars-widget" className="flex justify-center py-2" title={summary}>
        <Star aria-hidden="true" className="size-5 text-wait" />
        <span className="sr-only">{summary}</span>
      </div>
    )
  }
  return (
    <section data-testid="stars-widget" aria-label="Estrellas Cielo" className="rounded-lg border border-line bg-surface-muted p-3 text-sm">
      <p className="flex items-center gap-2 font-medium text-ink">
        <Star aria-hidden="true" className="size-4 text-wait" />
        Estrellas Cielo
      </p>
      <p className="mt-1 text-ink-muted">{summary}</p>
      <div
        className="mt-2 h-2 overflow-hidden rounded-full bg-surface"
        role="progressbar"
        aria-label="Uso de Estrellas Cielo"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={stars.usagePercentage}
      >
        <div className={cn('h-full rounded-full', toneClass[level.tone])} style={{ width: `${stars.usagePercentage}%` }} />
      </div>
      {level.message ? <p className="mt-1 font-medium text-ink">{level.message}</p> : null}
      {stars.demoEndDate ? (
        <p className="mt-1 text-xs text-ink-muted">
          {stars.isExpired ? 'Demo terminada el' : 'Demo 2025 hasta el'} {formatDate(stars.demoEndDate)}
        </p>
      ) : null}
    </section>
  )
}
