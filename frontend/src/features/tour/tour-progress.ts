/**
 * Tour progress per user and page (spec sections 3 and 4), kept in localStorage, and the
 * transitions between its states: next and previous bounded to 1..N, skip sets `skipped`,
 * finish sets `tourCompleted`, restart goes back to step 1 with both flags cleared and is
 * announced to this tab and to the others open on the app.
 */

export interface TourProgress {
  tourCompleted: boolean
  currentStep: number
  skipped: boolean
}

/** Same-tab restarts (the event's detail is `{ page }`). */
export const TOUR_RESTART_EVENT = 'cielo:tour-restart'
/** Restarts from other tabs: `{ userId, page }` on this channel. */
export const TOUR_CHANNEL = 'cielo-tour'

export const FRESH_PROGRESS: TourProgress = { tourCompleted: false, currentStep: 1, skipped: false }

export function tourStorageKey(userId: string, page: string): string {
  return `cielo_tour:${userId}:${page}`
}

/** A tour starts by itself for an onboarded teacher on a page that has one she has not finished or skipped. */
export function shouldAutoStart(onboarded: boolean, steps: number, progress: TourProgress): boolean {
  return onboarded && steps > 0 && !progress.tourCompleted && !progress.skipped
}

const clampStep = (step: number, steps: number) => Math.min(Math.max(1, Math.trunc(step)), Math.max(1, steps))

export const tourMachine = {
  next: (progress: TourProgress, steps: number): TourProgress => ({ ...progress, currentStep: clampStep(progress.currentStep + 1, steps) }),
  previous: (progress: TourProgress, steps: number): TourProgress => ({ ...progress, currentStep: clampStep(progress.currentStep - 1, steps) }),
  skip: (progress: TourProgress): TourProgress => ({ ...progress, skipped: true }),
  finish: (progress: TourProgress): TourProgress => ({ ...progress, tourCompleted: true }),
  restart: (): TourProgress => ({ ...FRESH_PROGRESS }),
}

export function readTourProgress(userId: string, page: string, steps: number, storage: Storage = localStorage): TourProgress {
  try {
    const stored = JSON.parse(storage.getItem(tourStorageKey(userId, page)) ?? 'null') as Partial<TourProgress> | null
    if (stored && typeof stored === 'object') {
      return {
        tourCompleted: stored.tourCompleted === true,
        currentStep: typeof stored.currentStep === 'number' && Number.isFinite(stored.currentStep) ? clampStep(stored.currentStep, steps) : 1,
        skipped: stored.skipped === true,
      }
    }
  } catch {
    // Unreadable progress starts over.
  }
  return { ...FRESH_PROGRESS }
}

export function writeTourProgress(userId: string, page: string, progress: TourProgress, storage: Storage = localStorage): void {
  try {
    storage.setItem(tourStorageKey(userId, page), JSON.stringify(progress))
  } catch {
    // Blocked storage: the tour may show again on the next visit, nothing worse.
  }
}

/** Restart: progress back to step 1, announced here and to the other tabs. */
export function restartTour(userId: string, page: string, storage: Storage = localStorage): TourProgress {
  const progress = tourMachine.restart()
  writeTourProgress(userId, page, progress, storage)
  window.dispatchEvent(new CustomEvent(TOUR_RESTART_EVENT, { detail: { page } }))
  if (typeof BroadcastChannel !== 'undefined') {
    const channel = new BroadcastChannel(TOUR_CHANNEL)
    channel.postMessage({ userId, page })
    channel.close()
  }
  return progress
}

/** Runs a step's `autoAction` 150 ms after the step shows (spec section 9); returns the cancel. */
export const AUTO_ACTION_DELAY_MS = 150

export function scheduleAutoAction(action: (() => void) | undefined, timers: Pick<Window, 'setTimeout' | 'clearTimeout'> = window): () => void {
  if (!action) return () => undefined
  const handle = timers.setTimeout(action, AUTO_ACTION_DELAY_MS)
  return () => timers.clearTimeout(handle)
}
