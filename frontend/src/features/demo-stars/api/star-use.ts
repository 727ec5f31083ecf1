/**
 * What the planner needs of the demo's stars: whether a demo user may generate now, and the
 * stars a call charged applied to the cached row at once.
 */
import { useQueryClient } from '@tanstack/react-query'
import { useAuth } from '@/lib/auth/auth-provider'
import { demoStarsKeys, type DemoStars, type DemoUserRow } from './demo-stars'

/**
 * Why a demo user cannot generate with AI now (spec section 5), or null: no stars left, or the
 * demo over or inactive. Users outside the demo are never stopped here (the server's
 * allowance answers for them).
 */
export function generationBlock(stars: DemoStars | undefined): string | null {
  if (!stars?.isDemoUser) return null
  if (stars.isExpired || !stars.isActive)
    return 'Tu demo terminó: no se puede generar más contenido con IA hasta que se renueve el periodo de demo.'
  if (stars.remainingStars <= 0)
    return '❌ Estrellas Cielo agotadas: no se puede generar más contenido con IA hasta que se renueve el periodo de demo.'
  return null
}

/** The row after `charged` stars were spent here: used stars never above the total. */
export function consumeStars(row: DemoUserRow | null | undefined, charged: number): DemoUserRow | null | undefined {
  return row ? { ...row, used_stars: Math.min(row.total_stars, row.used_stars + Math.max(0, charged)) } : row
}

/**
 * After an AI call: the stars it charged added to the cached row at once (capped at the total),
 * then the server's value fetched, which is the one that stays.
 */
export function useRecordStarUse() {
  const queryClient = useQueryClient()
  const { user } = useAuth()
  return (charged: number) => {
    if (!user) return
    const key = demoStarsKeys.detail(user.id)
    queryClient.setQueryData<DemoUserRow | null | undefined>(key, (row) => consumeStars(row, charged))
    void queryClient.invalidateQueries({ queryKey: key })
  }
}
