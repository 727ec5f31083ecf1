import { RotateCcw } from 'lucide-react'
import { useLocation } from 'react-router'
import { Tooltip } from '@/components/ui/tooltip'
import { useAuth } from '@/lib/auth/auth-provider'
import { notify } from '@/lib/notify'
import { hasTour } from './tour-pages'

/** Top-right button that starts the current page's guided tour again. */
export function TourRestartButton() {
  const { pathname } = useLocation()
  const { user } = useAuth()

  const onClick = () => {
    if (!user) return
    if (hasTour(pathname)) {
      // The tour code loads on the first restart: most clicks happen once in a while.
      void import('./tour-progress').then(({ restartTour }) => restartTour(user.id, pathname))
    } else {
      notify.info('Sin recorrido guiado', 'Esta página aún no tiene un recorrido guiado.')
    }
  }

  return (
    <Tooltip content="Reiniciar recorrido" side="bottom">
      <button
        type="button"
        onClick={onClick}
        aria-label="Reiniciar recorrido"
        data-testid="tour-restart"
        data-tour="tour-restart"
        className="inline-flex size-11 items-center justify-center rounded-lg text-ink-muted hover:bg-surface-muted hover:text-ink focus-visible:outline-2 focus-visible:outline-brand"
      >
        <RotateCcw aria-hidden="true" className="size-5" />
      </button>
    </Tooltip>
  )
}
