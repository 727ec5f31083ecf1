import { Star } from 'lucide-react'
import { lazy, Suspense, useState } from 'react'
import { cn } from '@/lib/cn'
import { formatDate } from '@/lib/dates'
import { usageLevel, useDemoStars, type DemoStars } from '@/features/demo-stars/api/demo-stars'

// The details load when she opens them.
const StarsDialog = lazy(() => import('./stars-dialog').then((module) => ({ default: module.StarsDialog })))

const toneClass = {
  yellow: 'bg-wait-line',
  orange: 'bg-orange-500',
  red: 'bg-bad',
} as const

export const wholePercent = (value: number) => Math.floor(value)
export const number = (value: number) => value.toLocaleString('es-CL')

/**
 * Estrellas Cielo for demo users: what is left of the Demo 2025 quota, opening the details.
 * Nothing for anyone else.
 */
export function StarsWidget({ collapsed }: { collapsed: boolean }) {
  const { data: stars } = useDemoStars()
  const [open, setOpen] = useState(false)
  if (!stars?.isDemoUser) return null
  const level = usageLevel(stars.usagePercentage)
  const summary = `${number(stars.remainingStars)} de ${number(stars.totalStars)} Estrellas Cielo disponibles`
  const dialog = open ? (
    <Suspense fallback={null}>
      <StarsDialog stars={stars} onClose={() => setOpen(false)} />
    </Suspense>
  ) : null

  if (collapsed) {
    return (
      <>
        <button
          type="button"
          data-testid="stars-widget"
          data-tone={level.tone}
          onClick={() => setOpen(true)}
          className="flex min-h-11 items-center justify-center rounded-lg py-2 hover:bg-surface-muted"
          title={summary}
        >
          <Star aria-hidden="true" className="size-5 text-wait" />
          <span className="sr-only">{summary}. Ver detalles</span>
        </button>
        {dialog}
      </>
    )
  }
  return (
    <>
      <button
        type="button"
        data-testid="stars-widget"
        data-tone={level.tone}
        onClick={() => setOpen(true)}
        aria-label={`Estrellas Cielo: ${summary}. Ver detalles`}
        className="block w-full rounded-lg border border-line bg-surface-muted p-3 text-left text-sm hover:border-brand focus-visible:outline-2 focus-visible:outline-brand"
      >
        <span className="flex items-center gap-2 font-medium text-ink">
          <Star aria-hidden="true" className="size-4 text-wait" />
          Estrellas Cielo
        </span>
        <span className="mt-1 block text-ink-muted">{summary}</span>
        <UsageBar stars={stars} />
        {level.message ? (
          <span className="mt-1 block font-medium text-ink" data-testid="stars-message">
            {level.message}
          </span>
        ) : null}
        {stars.demoEndDate ? (
          <span className="mt-1 block text-xs text-ink-muted">
            {stars.isExpired ? 'Demo terminada el' : 'Demo 2025 hasta el'} {formatDate(stars.demoEndDate)}
          </span>
        ) : null}
      </button>
      {dialog}
    </>
  )
}

export function UsageBar({ stars }: { stars: DemoStars }) {
  const level = usageLevel(stars.usagePercentage)
  return (
    <span
      className="mt-2 block h-2 overflow-hidden rounded-full bg-surface"
      role="progressbar"
      aria-label="Uso de Estrellas Cielo"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={wholePercent(stars.usagePercentage)}
    >
      <span
        data-testid="stars-bar"
        className={cn('block h-full rounded-full', toneClass[level.tone])}
        style={{ width: `${Math.min(100, stars.usagePercentage)}%` }}
      />
    </span>
  )
}
