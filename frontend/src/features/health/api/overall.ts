import { SERVICES, type HealthResults, type HealthStatus, type ServiceName } from './types'

/** Status of one card: `checking` until its result arrives. */
export function serviceStatus(results: HealthResults, service: ServiceName): HealthStatus {
  const result = results[service]
  if (!result) return 'checking'
  return result.ok ? 'ok' : 'degraded'
}

/**
 * Overall status: `degraded` as soon as any finished check failed, `checking`
 * while any is pending (and none failed), `ok` when every check passed.
 */
export function deriveOverallStatus(
  results: HealthResults,
  services: readonly ServiceName[] = SERVICES,
): HealthStatus {
  const statuses = services.map((service) => serviceStatus(results, service))
  if (statuses.includes('degraded')) return 'degraded'
  if (statuses.includes('checking')) return 'checking'
  return 'ok'
}

export const OVERALL_LABELS: Record<HealthStatus, string> = {
  ok: 'Todo operativo',
  degraded: 'Hay servicios con problemas',
  checking: 'Comprobando servicios…',
}

export const STATUS_LABELS: Record<HealthStatus, string> = {
  ok: 'Operativo',
  degraded: 'Con problemas',
  checking: 'Comprobando…',
}
