/**
 * Toasts with the spec's durations (section 9) and the error catalogue's texts (section 8).
 * Rendered by the one <Toaster> in the app providers (bottom-right, Alt+T, "Notifications").
 */
import { toast } from 'sonner'
import type { SecuritySeverity } from './logger'

export const TOAST_DURATION = {
  success: 4000,
  error: 6000,
  warning: 5000,
  info: 4000,
} as const

export const SECURITY_TOAST_DURATION: Record<SecuritySeverity, number> = {
  high: 10_000,
  medium: 7000,
  low: 5000,
}

export const GLOBAL_ERROR_TITLE = 'Error inesperado'
export const GLOBAL_ERROR_DESCRIPTION = 'Ha ocurrido un error. El equipo técnico ha sido notificado.'
export const NETWORK_ERROR_TITLE = 'Error de Conexión'

export function networkErrorDescription(action: string): string {
  return `No se pudo ${action}. Verifica tu conexión a internet.`
}

export const notify = {
  success: (title: string, description?: string) =>
    toast.success(title, { description, duration: TOAST_DURATION.success }),
  error: (title: string, description?: string) => toast.error(title, { description, duration: TOAST_DURATION.error }),
  warning: (title: string, description?: string) =>
    toast.warning(title, { description, duration: TOAST_DURATION.warning }),
  info: (title: string, description?: string) => toast.info(title, { description, duration: TOAST_DURATION.info }),

  /** 'Error inesperado': something failed that the user cannot fix. */
  unexpected: () =>
    toast.error(GLOBAL_ERROR_TITLE, { id: 'global-error', description: GLOBAL_ERROR_DESCRIPTION, duration: TOAST_DURATION.error }),

  /** 'Error de Conexión' for a failed `action` (e.g. "cargar tus cursos"), with an optional retry. */
  network: (action: string, retry?: () => void) =>
    toast.error(NETWORK_ERROR_TITLE, {
      id: `network-${action}`,
      description: networkErrorDescription(action),
      duration: TOAST_DURATION.error,
      ...(retry ? { action: { label: 'Reintentar', onClick: retry } } : {}),
    }),

  /** A security alert the user must see; lasts 10 s, 7 s or 5 s by severity. */
  security: (severity: SecuritySeverity, title: string, description?: string) => {
    const options = { description, duration: SECURITY_TOAST_DURATION[severity] }
    if (severity === 'high') return toast.error(title, options)
    if (severity === 'medium') return toast.warning(title, options)
    return toast.info(title, options)
  },
}
