/**
 * The router's last resort (spec section 2: 'Unexpected Application Error'): an error the
 * page error boundaries did not catch, e.g. in a layout or a guard.
 */
import { useEffect } from 'react'
import { isRouteErrorResponse, useRouteError } from 'react-router'
import { paths } from '@/config/paths'
import { logger } from '@/lib/logger'
import { buttonClass } from '@/components/ui/button'

export function RouterFallback() {
  const error = useRouteError()
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : String(error)

  useEffect(() => {
    logger.error('Error no controlado en la navegación', { error })
  }, [error])

  return (
    <main className="mx-auto flex min-h-dvh max-w-xl flex-col justify-center gap-4 px-4 py-10" data-testid="router-fallback">
      <h1 className="text-2xl font-bold text-bad">Unexpected Application Error</h1>
      <p className="text-ink">La aplicación encontró un error que no pudo manejar.</p>
      <pre className="overflow-auto rounded-md bg-surface-muted p-3 font-mono text-sm whitespace-pre-wrap text-ink-muted">{message}</pre>
      <div className="flex flex-wrap gap-3">
        <button type="button" className={buttonClass('primary')} onClick={() => window.location.reload()}>
          Recargar la página
        </button>
        <a className={buttonClass('secondary')} href={paths.dashboard}>
          Ir al Dashboard
        </a>
      </div>
    </main>
  )
}
