/**
 * Runtime configuration loader.
 *
 * One build serves every deployment: at startup the app fetches
 * `GET /config.json` (same origin), which the Cielo gateway serves as
 * `{"supabaseUrl": "...", "supabaseAnonKey": "..."}`. During development the
 * Vite env vars `VITE_SUPABASE_URL` / `VITE_SUPABASE_ANON_KEY` override it
 * field by field; when both are set `/config.json` is not requested at all.
 */

export interface AppConfig {
  /** Base URL of the Supabase-compatible API, without a trailing slash. */
  supabaseUrl: string
  /** Public anon key (JWT) sent as `apikey` and as the default bearer token. */
  supabaseAnonKey: string
}

/** Env vars that may override the runtime config (a subset of `import.meta.env`). */
export interface ConfigEnv {
  VITE_SUPABASE_URL?: string | undefined
  VITE_SUPABASE_ANON_KEY?: string | undefined
}

export const CONFIG_PATH = '/config.json'

/** Raised when the configuration cannot be loaded or is invalid. Messages are user-facing (es-CL). */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function canParseUrl(value: string): boolean {
  try {
    new URL(value)
    return true
  } catch {
    return false
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed ? trimmed : undefined
}

/**
 * Validates an untrusted value and returns a normalized config.
 * Throws {@link ConfigError} with a Spanish message describing the first problem.
 */
export function parseConfig(raw: unknown): AppConfig {
  if (!isRecord(raw)) {
    throw new ConfigError('La configuración no es un objeto JSON.')
  }
  const { supabaseUrl, supabaseAnonKey } = raw
  if (typeof supabaseUrl !== 'string' || supabaseUrl.trim() === '') {
    throw new ConfigError('Falta «supabaseUrl» en la configuración.')
  }
  if (typeof supabaseAnonKey !== 'string' || supabaseAnonKey.trim() === '') {
    throw new ConfigError('Falta «supabaseAnonKey» en la configuración.')
  }
  const url = supabaseUrl.trim()
  if (!/^https?:\/\//i.test(url) || !canParseUrl(url)) {
    throw new ConfigError(`«supabaseUrl» debe ser una URL http(s) válida (se recibió «${url}»).`)
  }
  return {
    supabaseUrl: url.replace(/\/+$/, ''),
    supabaseAnonKey: supabaseAnonKey.trim(),
  }
}

async function fetchConfigJson(fetchFn: typeof fetch): Promise<Record<string, unknown>> {
  let response: Response
  try {
    response = await fetchFn(CONFIG_PATH, {
      headers: { Accept: 'application/json' },
      cache: 'no-store',
    })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new ConfigError(`No se pudo conectar para obtener ${CONFIG_PATH}: ${reason}`)
  }
  if (!response.ok) {
    throw new ConfigError(`El servidor respondió HTTP ${response.status} al pedir ${CONFIG_PATH}.`)
  }
  let body: unknown
  try {
    body = await response.json()
  } catch {
    throw new ConfigError(`${CONFIG_PATH} no contiene JSON válido.`)
  }
  if (!isRecord(body)) {
    throw new ConfigError(`${CONFIG_PATH} no contiene un objeto JSON.`)
  }
  return body
}

export interface LoadConfigOptions {
  /** Network boundary; defaults to the global `fetch`. */
  fetch?: typeof fetch
  /** Override source; defaults to `import.meta.env`. */
  env?: ConfigEnv
}

/** Loads, merges (env wins) and validates the runtime configuration. */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<AppConfig> {
  const env = options.env ?? (import.meta.env as ConfigEnv)
  const envUrl = nonEmpty(env.VITE_SUPABASE_URL)
  const envKey = nonEmpty(env.VITE_SUPABASE_ANON_KEY)

  const fromServer =
    envUrl && envKey ? {} : await fetchConfigJson(options.fetch ?? globalThis.fetch.bind(globalThis))

  return parseConfig({
    ...fromServer,
    ...(envUrl ? { supabaseUrl: envUrl } : {}),
    ...(envKey ? { supabaseAnonKey: envKey } : {}),
  })
}
