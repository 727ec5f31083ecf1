/**
 * The Estrellas Cielo notices (spec sections 4 and 8): which one a demo user's usage calls
 * for, each shown once per browser session and forgotten when usage drops back below it
 * (after a renewal, say), so it can be shown again when usage climbs again.
 */
import type { DemoStars } from './api/demo-stars'

export type StarNotice = 'descending' | 'almostOut' | 'exhausted'

export const STAR_NOTICES: Record<StarNotice, { title: string; description: string; duration: number; tone: 'warning' | 'error' }> = {
  descending: {
    title: '⚠️ Estrellas Cielo en descenso',
    description: 'Ya usaste el 80 % de tus Estrellas Cielo de la demo. Úsalas en lo que más te ayude.',
    duration: 8000,
    tone: 'warning',
  },
  almostOut: {
    title: '🚨 Estrellas Cielo casi agotadas',
    description: 'Te queda menos del 5 % de tus Estrellas Cielo. Guarda las que quedan para lo importante.',
    duration: 10_000,
    tone: 'error',
  },
  exhausted: {
    title: '❌ Estrellas Cielo agotadas',
    description: 'No se puede generar más contenido con IA hasta que se renueve el periodo de demo.',
    duration: 15_000,
    tone: 'error',
  },
}

/** The notice `stars` calls for: 80 % to below 95 %, 95 % to below 100 %, none remaining. */
export function noticeFor(stars: Pick<DemoStars, 'isDemoUser' | 'usagePercentage' | 'remainingStars'>): StarNotice | null {
  if (!stars.isDemoUser) return null
  if (stars.remainingStars <= 0) return 'exhausted'
  if (stars.usagePercentage >= 95) return 'almostOut'
  if (stars.usagePercentage >= 80) return 'descending'
  return null
}

/** Whether usage has dropped back below where `notice` applies. */
function droppedBelow(notice: StarNotice, stars: Pick<DemoStars, 'usagePercentage' | 'remainingStars'>): boolean {
  if (notice === 'descending') return stars.usagePercentage < 80
  if (notice === 'almostOut') return stars.usagePercentage < 95
  return stars.remainingStars > 0
}

/**
 * Given the notices already shown this session and the current usage: the notice to show now
 * (or null) and the notices shown after it. Those usage dropped below are forgotten first.
 */
export function nextNotice(
  shown: readonly StarNotice[],
  stars: Pick<DemoStars, 'isDemoUser' | 'usagePercentage' | 'remainingStars'>,
): { show: StarNotice | null; shown: StarNotice[] } {
  const kept = shown.filter((notice) => !droppedBelow(notice, stars))
  const due = noticeFor(stars)
  if (!due || kept.includes(due)) return { show: null, shown: kept }
  return { show: due, shown: [...kept, due] }
}

const storageKey = (userId: string) => `cielo_star_notices:${userId}`

export function readShownNotices(userId: string, storage: Storage = sessionStorage): StarNotice[] {
  try {
    const value = JSON.parse(storage.getItem(storageKey(userId)) ?? '[]') as unknown
    return Array.isArray(value) ? value.filter((n): n is StarNotice => typeof n === 'string' && n in STAR_NOTICES) : []
  } catch {
    return []
  }
}

export function writeShownNotices(userId: string, shown: readonly StarNotice[], storage: Storage = sessionStorage): void {
  try {
    storage.setItem(storageKey(userId), JSON.stringify(shown))
  } catch {
    // Blocked storage: the notice may show again after a reload, nothing worse.
  }
}
