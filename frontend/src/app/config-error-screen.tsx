import { CieloLogo } from '@/components/cielo-logo'
import { CONFIG_PATH, ConfigError } from '@/config/env'

export interface ConfigErrorScreenProps {
  error: unknown
  /** Defaults to reloading the page. */
  onRetry?: () => void
}

/** Full-page error shown when the runtime configuration cannot be loaded. */
export function ConfigErrorScreen({ error, onRetry = () => window.location.reload() }: ConfigErrorScreenProps) {
  const message =
    error instanceof ConfigError
      ? error.message
      : `Error inesperado: ${error instanceof Error ? error.message : String(error)}`

  return (
    <main className="mx-auto flex min-h-dvh max-w-xl flex-col justify-center gap-6 px-4 py-10">
      <CieloLogo />
      <section
        role="alert"
        aria-labelledby="config-error-title"
        data-testid="config-error"
        className="rounded-card border border-bad-line bg-surface p-6 shadow-card"
      >
        <h1 id="config-error-title" className="text-xl font-semibold text-bad">
          No se pudo cargar la configuración
        </h1>
        <p className="mt-3 text-ink">{message}</p>
        <p className="mt-3 text-sm text-ink-muted">
          La aplicación necesita el archivo <code className="font-mono">{CONFIG_PATH}</code> que entrega el
          gateway de Cielo (o las variables <code className="font-mono">VITE_SUPABASE_URL</code> y{' '}
          <code className="font-mono">VITE_SUPABASE_ANON_KEY</code> en desarrollo). Verifica que el servidor
          esté funcionando e inténtalo de nuevo.
        </p>
        <button
          type="button"
          onClick={onRetry}
          className="mt-5 inline-flex min-h-11 items-center rounded-lg bg-brand px-4 font-medium text-brand-ink hover:bg-brand-strong focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand"
        >
          Reintentar
        </button>
      </section>
    </main>
  )
}
