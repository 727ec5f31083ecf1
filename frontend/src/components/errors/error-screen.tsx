import { TriangleAlert } from 'lucide-react'
import { Button } from '@/components/ui/button'

export interface ErrorScreenProps {
  onRetry: () => void
  onGoToDashboard: () => void
  /** Technical detail for the curious (shown folded). */
  detail?: string | undefined
}

/** The error screen (spec section 2): '¡Ups! Algo salió mal'. */
export function ErrorScreen({ onRetry, onGoToDashboard, detail }: ErrorScreenProps) {
  return (
    <section
      role="alert"
      aria-labelledby="error-screen-title"
      data-testid="error-screen"
      className="mx-auto flex max-w-lg flex-col items-center gap-4 px-4 py-16 text-center"
    >
      <TriangleAlert aria-hidden="true" className="size-12 text-bad" />
      <h1 id="error-screen-title" className="text-2xl font-bold text-ink">
        ¡Ups! Algo salió mal
      </h1>
      <p className="text-ink-muted">
        Ocurrió un error inesperado al mostrar esta página. El equipo técnico ha sido notificado.
      </p>
      <div className="flex flex-wrap justify-center gap-3">
        <Button onClick={onRetry}>Intentar de nuevo</Button>
        <Button variant="secondary" onClick={onGoToDashboard}>
          Ir al Dashboard
        </Button>
      </div>
      {detail ? (
        <details className="w-full text-left text-sm text-ink-muted">
          <summary className="cursor-pointer">Detalles técnicos</summary>
          <pre className="mt-2 overflow-auto rounded-md bg-surface-muted p-3 font-mono text-xs whitespace-pre-wrap">{detail}</pre>
        </details>
      ) : null}
    </section>
  )
}
