/**
 * The query client and its defaults (spec section 7): data is fresh for 5 minutes, kept
 * 10 minutes after its last observer leaves, retried once, and not refetched when the
 * window regains focus. A query may name what it does in `meta.action` (e.g. "cargar tus
 * cursos"): its failures then reach the user as a toast; others are only logged.
 */
import { QueryCache, QueryClient } from '@tanstack/react-query'
import { databaseErrorMessage, isDatabaseError, isNetworkError } from './errors'
import { logger } from './logger'
import { notify } from './notify'

export const QUERY_DEFAULTS = {
  staleTime: 5 * 60 * 1000,
  gcTime: 10 * 60 * 1000,
  retry: 1,
  refetchOnWindowFocus: false,
} as const

declare module '@tanstack/react-query' {
  interface Register {
    queryMeta: { action?: string }
  }
}

export function createQueryClient(): QueryClient {
  const queryClient: QueryClient = new QueryClient({
    defaultOptions: { queries: { ...QUERY_DEFAULTS } },
    queryCache: new QueryCache({
      onError(error, query) {
        logger.error('Falló una consulta', { queryKey: query.queryKey, error })
        const action = query.meta?.action
        if (!action) return
        const retry = () => void queryClient.refetchQueries({ queryKey: query.queryKey, exact: true })
        if (isNetworkError(error)) notify.network(action, retry)
        else if (isDatabaseError(error)) notify.error(`No se pudo ${action}`, databaseErrorMessage(error))
        else notify.unexpected()
      },
    }),
  })
  return queryClient
}
