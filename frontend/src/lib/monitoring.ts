/**
 * Browser-wide error and performance reporting: uncaught errors and unhandled rejections
 * are logged and shown as 'Error inesperado'; page loads over 3000 ms are logged.
 */
import { logger } from './logger'
import { notify } from './notify'

export const SLOW_PAGE_LOAD_MS = 3000

export function installGlobalErrorHandlers(target: Window = window): () => void {
  const onError = (event: ErrorEvent) => {
    logger.error('Error no controlado', { message: event.message, source: event.filename, error: event.error })
    notify.unexpected()
  }
  const onRejection = (event: PromiseRejectionEvent) => {
    logger.error('Promesa rechazada sin manejar', { reason: event.reason })
    notify.unexpected()
  }
  target.addEventListener('error', onError)
  target.addEventListener('unhandledrejection', onRejection)
  return () => {
    target.removeEventListener('error', onError)
    target.removeEventListener('unhandledrejection', onRejection)
  }
}

/** Logs the page load when it took longer than {@link SLOW_PAGE_LOAD_MS}. */
export function reportPageLoad(entry: Pick<PerformanceNavigationTiming, 'duration' | 'name'> | undefined): boolean {
  if (!entry || entry.duration <= SLOW_PAGE_LOAD_MS) return false
  logger.warn('Carga de página lenta', { durationMs: Math.round(entry.duration), page: new URL(entry.name).pathname })
  return true
}

export function watchPageLoad(): void {
  const report = () =>
    // loadEventEnd is set just after the load handlers ran.
    setTimeout(() => {
      const [entry] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[]
      reportPageLoad(entry)
    }, 0)
  if (document.readyState === 'complete') report()
  else window.addEventListener('load', report, { once: true })
}
