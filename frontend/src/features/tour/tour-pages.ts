/**
 * Which pages have a guided tour and how many steps it has (spec section 4). The steps
 * themselves (tours.ts) load with the tour's card, when a tour is about to show.
 */
import { paths } from '@/config/paths'

export const TOUR_LENGTHS: Partial<Record<string, number>> = {
  [paths.dashboard]: 7,
  [paths.courses]: 5,
  [paths.schedule]: 7,
  [paths.planner]: 7,
}

export function tourLength(page: string): number {
  return TOUR_LENGTHS[page] ?? 0
}

export function hasTour(page: string): boolean {
  return tourLength(page) > 0
}
