import { AppDialog } from '@/components/ui/dialog'
import { formatDate } from '@/lib/dates'
import { usageLevel, type DemoStars } from '@/features/demo-stars/api/demo-stars'
import { UsageBar, number, wholePercent } from './stars-widget'

/** About 515 AI tokens are one star (spec section 9). */
export const TOKENS_PER_STAR = 515

/** The demo's details: stars used and left, what a star is, the course cap and the end date. */
export function StarsDialog({ stars, onClose }: { stars: DemoStars; onClose: () => void }) {
  const level = usageLevel(stars.usagePercentage)
  const rows: Array<[string, string]> = [
    ['Estrellas usadas', `${number(stars.usedStars)} de ${number(stars.totalStars)} (${wholePercent(stars.usagePercentage)} %)`],
    ['Estrellas disponibles', number(stars.remainingStars)],
    ['Cursos en la demo', stars.maxCourses === null ? 'Sin límite' : `Hasta ${number(stars.maxCourses)}`],
    [stars.isExpired ? 'La demo terminó el' : 'La demo dura hasta el', stars.demoEndDate ? formatDate(stars.demoEndDate) : '—'],
    ['Estado', !stars.isActive ? 'Demo desactivada' : stars.isExpired ? 'Demo terminada' : 'Demo activa'],
  ]
  return (
    <AppDialog
      title="Tus Estrellas Cielo"
      description="Con ellas generas planificaciones y contenidos con IA durante la Demo 2025."
      onClose={onClose}
      testId="stars-dialog"
    >
      <UsageBar stars={stars} />
      {level.message ? <p className="mt-2 font-medium text-ink">{level.message}</p> : null}
      <dl className="mt-4 grid grid-cols-[1fr_auto] gap-x-4 gap-y-2 text-sm">
        {rows.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="text-ink-muted">{label}</dt>
            <dd className="text-right font-medium text-ink" data-testid={`stars-${label}`}>
              {value}
            </dd>
          </div>
        ))}
      </dl>
      <p className="mt-4 text-sm text-ink-muted">
        Cada estrella equivale a unos {TOKENS_PER_STAR} tokens de IA (lo que la IA lee y escribe): una planificación
        más larga usa más estrellas. Se descuentan solo cuando la IA genera contenido para ti.
      </p>
    </AppDialog>
  )
}
