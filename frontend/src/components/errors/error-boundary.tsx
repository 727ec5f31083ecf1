/**
 * Catches render errors below it and shows the error screen. 'Intentar de nuevo' renders
 * the children again (or reloads the page when a code chunk failed to download, since a
 * failed dynamic import is never retried by the browser); 'Ir al Dashboard' leaves. The
 * boundary resets itself when `resetKey` (the location) changes.
 */
import { Component, type ErrorInfo, type ReactNode } from 'react'
import { logger } from '@/lib/logger'
import { ErrorScreen } from './error-screen'

export interface ErrorBoundaryProps {
  children: ReactNode
  onGoToDashboard: () => void
  resetKey?: string
  /** Defaults to reloading the page. */
  reload?: () => void
}

interface ErrorBoundaryState {
  error: Error | null
  resetKey: string | undefined
}

export function isChunkLoadError(error: Error): boolean {
  return /dynamically imported module|importing a module script failed|error loading dynamically/i.test(error.message)
}

export class ErrorBoundary extends Component<ErrorBoundaryProps, ErrorBoundaryState> {
  override state: ErrorBoundaryState = { error: null, resetKey: this.props.resetKey }

  static getDerivedStateFromError(error: unknown): Partial<ErrorBoundaryState> {
    return { error: error instanceof Error ? error : new Error(String(error)) }
  }

  static getDerivedStateFromProps(props: ErrorBoundaryProps, state: ErrorBoundaryState): Partial<ErrorBoundaryState> | null {
    if (props.resetKey !== state.resetKey) return { error: null, resetKey: props.resetKey }
    return null
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    logger.error('Error al mostrar la página', { error, componentStack: info.componentStack })
  }

  private retry = () => {
    const { error } = this.state
    if (error && isChunkLoadError(error)) {
      ;(this.props.reload ?? (() => window.location.reload()))()
      return
    }
    this.setState({ error: null })
  }

  private goToDashboard = () => {
    // Already on the dashboard, the location does not change: start over here too.
    this.setState({ error: null })
    this.props.onGoToDashboard()
  }

  override render() {
    if (this.state.error) {
      return (
        <ErrorScreen
          onRetry={this.retry}
          onGoToDashboard={this.goToDashboard}
          detail={import.meta.env.DEV ? this.state.error.stack : this.state.error.message}
        />
      )
    }
    return this.props.children
  }
}
