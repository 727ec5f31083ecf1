/**
 * Tour progress per user and page (spec sections 3 and 4), kept in localStorage. Restart
 * resets the step to 1, clears both flags and broadcasts `cielo:tour-restart` so the page's
 * tour (when it has one) starts again. The tours themselves (dashboard 7 steps, courses 5,
 * schedule 7, planner 7) come with their pages; until then no page has one.
 */

export interface TourProgress {
  tourCompleted: boolean
  currentStep: number
  skipped: boolean
}

export const TOUR_RESTART_EVENT = 'cielo:tour-restart'

/** Pages with a tour, and how many steps it has. Filled in as each page's tour is written. */
export const TOUR_STEPS: Partial<Record<string, number>> = {}

export function hasTour(page: string): boolean {
  return (TOUR_STEPS[page] ?? 0) > 0
}

export function tourStorageKey(userId: string, page: string): string {
  return `cielo_tour:${userId}:${page}`
}

export function readTourProgress(userId: string, page: string, storage: Storage = localStorage): TourProgress {
  try {
    const stored = JSON.parse(storage.getItem(tourStorageKey(userId, page)) ?? 'null') as Partial<TourProgress> | null
    if (stored && typeof stored === 'object') {
      return {
        tourCompleted: stored.tourCompleted === true,
        currentStep: typeof stored.currentStep === 'number' ? stored.currentStep : 1,
        skipped: stored.skipped === true,
      }
    }
  } catch {
    // Unreadable progress starts over.
  }
  return { tourCompleted: false, currentStep: 1, skipped: false }
}

export function restartTour(userId: string, page: string, storage: Storage = localStorage): TourProgress {
  const progress: TourProgress = { tourCompleted: false, currentStep: 1, skipped: false }
  storage.setItem(tourStorageKey(userId, page), JSON.stringify(progress))
  window.dispatchEvent(new CustomEvent(TOUR_RESTART_EVENT, { detail: { page } }))
  return progress
}
