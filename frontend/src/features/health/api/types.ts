/** Services shown on the health page; also used in `data-testid="health-card-<service>"`. */
export type ServiceName = 'gateway' | 'auth' | 'rest' | 'session'

export const SERVICES: readonly ServiceName[] = ['gateway', 'auth', 'rest', 'session']

/** Result of one check. */
export interface HealthCheckResult {
  service: ServiceName
  /** Whether the service is operating normally. */
  ok: boolean
  /** HTTP status code, or `null` when there was no HTTP response (network error, local check). */
  status: number | null
  /** Round-trip time in milliseconds (rounded), including reading the body. */
  latencyMs: number
  /** Human-readable detail (es-CL). */
  detail: string
}

/** Per-card and overall state; mirrored in the `data-status` attributes. */
export type HealthStatus = 'ok' | 'degraded' | 'checking'

export type HealthResults = Partial<Record<ServiceName, HealthCheckResult>>
