/**
 * Runs a page's guided tour: starts it by itself when the spec says so, keeps its progress
 * per user and page, starts it again on a restart (from this tab or another one), shows the
 * step's card, and reports whether the tour is on screen.
 */
import { lazy, Suspense, useEffect, useState } from 'react'
import { useOnboardingStatus } from '@/features/onboarding'
import {
  TOUR_CHANNEL,
  TOUR_RESTART_EVENT,
  readTourProgress,
  shouldAutoStart,
  tourMachine,
  writeTourProgress,
  type TourProgress,
} from '@/features/tour/tour-progress'
import { tourLength } from '@/features/tour/tour-pages'

// The card and the tours' texts load when a tour is about to show, not with every page.
const TourPopover = lazy(() => import('./tour-popover').then((module) => ({ default: module.TourPopover })))

interface Running {
  page: string
  progress: TourProgress
}

export function TourController({
  pathname,
  userId,
  onShown,
}: {
  pathname: string
  userId: string
  /** Called with the page whose tour is on screen, or null. */
  onShown: (page: string | null) => void
}) {
  const status = useOnboardingStatus()
  const length = tourLength(pathname)
  const steps = length > 0 ? length : null
  // On arriving at a page (or once the onboarding check is in): its tour starts if she is
  // onboarded and has neither finished nor skipped it. Derived while rendering, keyed by
  // what it depends on, so a page never shows a frame of the wrong tour.
  const key = userId && steps && !status.loading ? `${userId}|${pathname}|${String(status.onboarded)}` : null
  const [state, setState] = useState<{ key: string | null; running: Running | null }>({ key: null, running: null })
  if (state.key !== key) {
    const progress = key && userId && steps ? readTourProgress(userId, pathname, steps) : null
    const starts = progress && steps ? shouldAutoStart(status.onboarded, steps, progress) : false
    setState({ key, running: starts && progress ? { page: pathname, progress } : null })
  }
  const running = state.running

  // A restart of this page's tour, here or in another tab, starts it at step 1.
  useEffect(() => {
    if (!userId || !steps) return
    const restart = (page: string) => {
      if (page === pathname) setState((current) => ({ ...current, running: { page, progress: tourMachine.restart() } }))
    }
    const onEvent = (event: Event) => restart((event as CustomEvent<{ page: string }>).detail.page)
    window.addEventListener(TOUR_RESTART_EVENT, onEvent)
    const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(TOUR_CHANNEL)
    if (channel) {
      channel.onmessage = (message: MessageEvent<{ userId?: string; page?: string }>) => {
        if (message.data.userId === userId && typeof message.data.page === 'string') restart(message.data.page)
      }
    }
    return () => {
      window.removeEventListener(TOUR_RESTART_EVENT, onEvent)
      channel?.close()
    }
  }, [userId, pathname, steps])

  const count = steps ?? 0
  const update = (change: (progress: TourProgress) => TourProgress) => {
    if (!running || !userId) return
    const progress = change(running.progress)
    writeTourProgress(userId, running.page, progress)
    const next = progress.skipped || progress.tourCompleted ? null : { ...running, progress }
    setState((current) => ({ ...current, running: next }))
  }
  const controls = {
    next: () => update((p) => tourMachine.next(p, count)),
    previous: () => update((p) => tourMachine.previous(p, count)),
    skip: () => update(tourMachine.skip),
    finish: () => update(tourMachine.finish),
  }

  const shown = running && running.page === pathname && steps ? running : null
  const shownPage = shown ? shown.page : null
  useEffect(() => onShown(shownPage), [onShown, shownPage])
  return shown ? (
    <Suspense fallback={null}>
      <TourPopover page={shown.page} progress={shown.progress} {...controls} />
    </Suspense>
  ) : null
}
