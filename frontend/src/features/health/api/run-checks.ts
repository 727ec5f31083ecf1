import { getClientFetch, type CieloClient } from '@/lib/supabase'
import { checkAuth, checkGateway, checkRest, checkSession, type CheckOptions } from './checks'
import type { HealthCheckResult } from './types'

/**
 * Runs every check in parallel through the given Supabase client, reporting
 * each result as soon as it arrives. Resolves with all results.
 */
export function runHealthChecks(
  client: CieloClient,
  supabaseUrl: string,
  onResult: (result: HealthCheckResult) => void = () => {},
  options: CheckOptions = {},
): Promise<HealthCheckResult[]> {
  const { fetch: clientFetch, restUrl } = getClientFetch(client)
  const checks: Promise<HealthCheckResult>[] = [
    checkGateway(clientFetch, supabaseUrl, options),
    checkAuth(clientFetch, supabaseUrl, options),
    checkRest(clientFetch, restUrl, options),
    checkSession(client.auth),
  ]
  return Promise.all(
    checks.map((check) =>
      check.then((result) => {
        onResult(result)
        return result
      }),
    ),
  )
}
