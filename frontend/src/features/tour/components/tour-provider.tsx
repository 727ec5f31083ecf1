/**
 * The guided tours' place in the app: tells a page whether its tour is on screen (Horario
 * shows example data meanwhile) and, on pages that have a tour, runs it with the tour
 * controller, which loads apart from the pages.
 */
import { createContext, lazy, Suspense, use, useState, type ReactNode } from 'react'
import { useLocation } from 'react-router'
import { useAuth } from '@/lib/auth/auth-provider'
import { hasTour } from '@/features/tour/tour-pages'

const TourController = lazy(() => import('./tour-controller').then((module) => ({ default: module.TourController })))

const RunningTour = createContext<string | null>(null)

/** Whether the tour of `page` is on screen now. */
export function useTourRunning(page: string): boolean {
  return use(RunningTour) === page
}

export function TourProvider({ children }: { children: ReactNode }) {
  const { pathname } = useLocation()
  const { user } = useAuth()
  const [shown, setShown] = useState<string | null>(null)
  const active = user && hasTour(pathname)
  return (
    <RunningTour value={active ? shown : null}>
      {children}
      {active ? (
        <Suspense fallback={null}>
          <TourController key={`${user.id}|${pathname}`} pathname={pathname} userId={user.id} onShown={setShown} />
        </Suspense>
      ) : null}
    </RunningTour>
  )
}
