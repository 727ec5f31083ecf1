/**
 * Pure health-check fetchers. Each takes the `fetch` to use (the network
 * boundary) and resolves to a {@link HealthCheckResult}; none of them throws.
 *
 * In the app the `fetch` passed in is supabase-js's own authenticated wrapper
 * (see `getClientFetch` in `src/lib/supabase.ts`), so every request carries
 * `apikey` and `Authorization: Bearer …` exactly as the client's queries do.
 */
import type { SupabaseClient } from '@supabase/supabase-js'
import type { HealthCheckResult, ServiceName } from './types'

export const DEFAULT_TIMEOUT_MS = 8000

export interface CheckOptions {
  /** Abort and report failure after this many milliseconds. */
  timeoutMs?: number
}

type Json = Record<string, unknown>

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function stringField(body: unknown, key: string): string | undefined {
  if (!isRecord(body)) return undefined
  const value = body[key]
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** Error text from Supabase-style error bodies (PostgREST, GoTrue, gateway). */
function errorMessage(body: unknown): string | undefined {
  return (
    stringField(body, 'message') ??
    stringField(body, 'msg') ??
    stringField(body, 'error_description') ??
    stringField(body, 'error')
  )
}

function elapsedSince(start: number): number {
  return Math.max(0, Math.round(performance.now() - start))
}

type Outcome =
  | { kind: 'response'; status: number; ok: boolean; json: unknown; isJson: boolean; latencyMs: number }
  | { kind: 'failure'; reason: string; latencyMs: number }

class TimeoutError extends Error {}

/** GET `url`, read the body and try to parse it as JSON; never throws. */
async function timedGet(fetchFn: typeof fetch, url: string, options: CheckOptions): Promise<Outcome> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort()
      reject(new TimeoutError())
    }, timeoutMs)
  })
  const start = performance.now()
  try {
    // Race as well as abort, so a fetch that ignores the signal still times out.
    return await Promise.race([
      (async (): Promise<Outcome> => {
        const response = await fetchFn(url, { method: 'GET', signal: controller.signal })
        const text = await response.text()
        let json: unknown = undefined
        let isJson = false
        try {
          json = JSON.parse(text)
          isJson = true
        } catch {
          // Not JSON (e.g. an HTML fallback page); reported by the caller.
        }
        return { kind: 'response', status: response.status, ok: response.ok, json, isJson, latencyMs: elapsedSince(start) }
      })(),
      timeout,
    ])
  } catch (error) {
    const reason =
      error instanceof TimeoutError
        ? `Sin respuesta tras ${Math.round(timeoutMs / 1000)} s.`
        : `No se pudo conectar: ${error instanceof Error ? error.message : String(error)}`
    return { kind: 'failure', reason, latencyMs: elapsedSince(start) }
  } finally {
    clearTimeout(timer)
  }
}

function result(service: ServiceName, ok: boolean, status: number | null, latencyMs: number, detail: string): HealthCheckResult {
  return { service, ok, status, latencyMs, detail }
}

function failureResult(service: ServiceName, outcome: Outcome & { kind: 'failure' }): HealthCheckResult {
  return result(service, false, null, outcome.latencyMs, outcome.reason)
}

const NOT_JSON = 'Respuesta inesperada: el cuerpo no es JSON.'

/** 1. Gateway + database: `GET {supabaseUrl}/health`. */
export async function checkGateway(
  fetchFn: typeof fetch,
  supabaseUrl: string,
  options: CheckOptions = {},
): Promise<HealthCheckResult> {
  const outcome = await timedGet(fetchFn, `${supabaseUrl}/health`, options)
  if (outcome.kind === 'failure') return failureResult('gateway', outcome)
  const { status, latencyMs, json } = outcome
  if (!outcome.isJson) return result('gateway', false, status, latencyMs, NOT_JSON)

  const version = stringField(json, 'version')
  const database = stringField(json, 'database')
  const healthy = outcome.ok && stringField(json, 'status') === 'ok' && database === 'ok'
  if (healthy) {
    return result('gateway', true, status, latencyMs, `Base de datos operativa${version ? ` · versión ${version}` : ''}.`)
  }
  const reason =
    database && database !== 'ok'
      ? `Base de datos no disponible (${database}).`
      : (errorMessage(json) ?? 'El gateway informa un error.')
  return result('gateway', false, status, latencyMs, reason)
}

/** 2. Auth (GoTrue): `GET {supabaseUrl}/auth/v1/health`. */
export async function checkAuth(
  fetchFn: typeof fetch,
  supabaseUrl: string,
  options: CheckOptions = {},
): Promise<HealthCheckResult> {
  const outcome = await timedGet(fetchFn, `${supabaseUrl}/auth/v1/health`, options)
  if (outcome.kind === 'failure') return failureResult('auth', outcome)
  const { status, latencyMs, json } = outcome
  if (!outcome.isJson) return result('auth', false, status, latencyMs, NOT_JSON)
  if (!outcome.ok) {
    return result('auth', false, status, latencyMs, errorMessage(json) ?? 'El servicio de autenticación respondió con error.')
  }
  const name = stringField(json, 'name') ?? 'Auth'
  const version = stringField(json, 'version')
  return result('auth', true, status, latencyMs, version ? `${name} ${version}.` : `${name} responde.`)
}

/**
 * 3. REST (PostgREST): `GET {restUrl}/` — the OpenAPI (Swagger 2.0) document.
 * `restUrl` is `{supabaseUrl}/rest/v1`. Needs `apikey` + `Authorization`,
 * which supabase-js's fetch wrapper adds.
 */
export async function checkRest(
  fetchFn: typeof fetch,
  restUrl: string,
  options: CheckOptions = {},
): Promise<HealthCheckResult> {
  const outcome = await timedGet(fetchFn, `${restUrl}/`, options)
  if (outcome.kind === 'failure') return failureResult('rest', outcome)
  const { status, latencyMs, json } = outcome
  if (!outcome.isJson) return result('rest', false, status, latencyMs, NOT_JSON)
  if (status === 503) {
    const extra = errorMessage(json)
    return result('rest', false, status, latencyMs, `La base de datos aún no está lista${extra ? `: ${extra}` : '.'}`)
  }
  if (!outcome.ok) {
    return result('rest', false, status, latencyMs, errorMessage(json) ?? 'La API REST respondió con error.')
  }
  if (stringField(json, 'swagger') !== '2.0') {
    return result('rest', false, status, latencyMs, 'La respuesta no es una especificación OpenAPI (Swagger 2.0).')
  }
  const paths = isRecord(json) && isRecord(json.paths) ? Object.keys(json.paths).length : 0
  return result('rest', true, status, latencyMs, `OpenAPI (Swagger 2.0) · ${paths} ${paths === 1 ? 'ruta' : 'rutas'}.`)
}

/** 4. Client session: `supabase.auth.getSession()` (local; may refresh an expired token). */
export async function checkSession(auth: Pick<SupabaseClient['auth'], 'getSession'>): Promise<HealthCheckResult> {
  const start = performance.now()
  try {
    const { data, error } = await auth.getSession()
    const latencyMs = elapsedSince(start)
    if (error) return result('session', false, null, latencyMs, `Error al leer la sesión: ${error.message}`)
    const user = data.session?.user
    if (!user) return result('session', true, null, latencyMs, 'Sin sesión (acceso anónimo).')
    return result('session', true, null, latencyMs, `Sesión iniciada como ${user.email ?? user.id}.`)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return result('session', false, null, elapsedSince(start), `Error al leer la sesión: ${reason}`)
  }
}
