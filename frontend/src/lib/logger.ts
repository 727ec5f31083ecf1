/**
 * The app's logger (spec sections 5, 7, 8, 9).
 *
 * * Every context object is redacted (see `redact.ts`) before it goes anywhere.
 * * Outside development only `error` and `warn` reach the console.
 * * Errors are kept in localStorage under `app_errors`, the newest 50.
 * * Security events: outside development, one insert into `security_audit_log` per event
 *   (action `logger_<event>`, resource_type `system`, sanitized `new_values`, user agent),
 *   through the sink the app installs once the Supabase client exists.
 */
import type { Json, TablesInsert } from './database.types'
import { redact } from './redact'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type SecuritySeverity = 'high' | 'medium' | 'low'

export const ERROR_LOG_KEY = 'app_errors'
export const ERROR_LOG_LIMIT = 50

export interface ErrorLogEntry {
  timestamp: string
  level: 'error'
  message: string
  context?: unknown
  url?: string
}

/** The `security_audit_log` insert the logger makes: always these columns, resource type `system`. */
export type AuditEntry = Required<Pick<TablesInsert<'security_audit_log'>, 'action' | 'new_values' | 'user_agent'>> & {
  resource_type: 'system'
}

/** Writes one audit entry; failures are the sink's to swallow. */
export type AuditSink = (entry: AuditEntry) => Promise<void>

export interface LoggerOptions {
  development: boolean
  storage?: Pick<Storage, 'getItem' | 'setItem'> | undefined
  console?: Pick<Console, 'debug' | 'info' | 'warn' | 'error'>
  now?: () => Date
  userAgent?: () => string
}

export interface Logger {
  debug(message: string, context?: unknown): void
  info(message: string, context?: unknown): void
  warn(message: string, context?: unknown): void
  error(message: string, context?: unknown): void
  /** A security event: logged as a warning and, outside development, audited once. */
  security(event: string, context?: Record<string, unknown>, severity?: SecuritySeverity): void
  setAuditSink(sink: AuditSink | null): void
  /** The stored error log, oldest first. */
  errors(): ErrorLogEntry[]
}

/** Audit actions are `logger_` plus a name the database accepts (`[A-Za-z0-9_.:-]`). */
export function auditAction(event: string): string {
  const name = event.replace(/[^A-Za-z0-9_.:-]+/g, '_').slice(0, 100) || 'event'
  return `logger_${name}`
}

/** Appends `entry` to the list kept under {@link ERROR_LOG_KEY}, keeping the newest 50. */
export function appendErrorLog(storage: Pick<Storage, 'getItem' | 'setItem'>, entry: ErrorLogEntry): void {
  let entries: ErrorLogEntry[] = []
  try {
    const stored: unknown = JSON.parse(storage.getItem(ERROR_LOG_KEY) ?? '[]')
    if (Array.isArray(stored)) entries = stored as ErrorLogEntry[]
  } catch {
    // A corrupt log is started again.
  }
  entries.push(entry)
  try {
    storage.setItem(ERROR_LOG_KEY, JSON.stringify(entries.slice(-ERROR_LOG_LIMIT)))
  } catch {
    // Storage full or unavailable: the console still has it.
  }
}

function defaultStorage(): Storage | undefined {
  try {
    return globalThis.localStorage
  } catch {
    return undefined
  }
}

export function createLogger(options: LoggerOptions): Logger {
  const out = options.console ?? globalThis.console
  const now = options.now ?? (() => new Date())
  const userAgent = options.userAgent ?? (() => globalThis.navigator?.userAgent ?? '')
  const storage = () => options.storage ?? defaultStorage()
  let sink: AuditSink | null = null

  const emit = (level: LogLevel, message: string, context: unknown) => {
    if (!options.development && (level === 'debug' || level === 'info')) return
    const safe = context === undefined ? undefined : redact(context)
    const line = `[Cielo] ${message}`
    if (safe === undefined) out[level](line)
    else out[level](line, safe)
    if (level === 'error') {
      const store = storage()
      if (store) {
        appendErrorLog(store, {
          timestamp: now().toISOString(),
          level: 'error',
          message,
          ...(safe === undefined ? {} : { context: safe }),
          url: globalThis.location?.pathname,
        })
      }
    }
  }

  return {
    debug: (message, context) => emit('debug', message, context),
    info: (message, context) => emit('info', message, context),
    warn: (message, context) => emit('warn', message, context),
    error: (message, context) => emit('error', message, context),
    security(event, context = {}, severity = 'medium') {
      emit('warn', `Evento de seguridad: ${event}`, { severity, ...context })
      if (options.development || !sink) return
      const entry: AuditEntry = {
        action: auditAction(event),
        resource_type: 'system',
        new_values: redact({ severity, ...context, timestamp: now().toISOString() }) as Json,
        user_agent: userAgent(),
      }
      sink(entry).catch(() => {
        // Auditing must never break the app; the event is already on the console.
      })
    },
    setAuditSink(next) {
      sink = next
    },
    errors() {
      try {
        const stored: unknown = JSON.parse(storage()?.getItem(ERROR_LOG_KEY) ?? '[]')
        return Array.isArray(stored) ? (stored as ErrorLogEntry[]) : []
      } catch {
        return []
      }
    },
  }
}

/** The app's logger: development builds log everything and audit nothing. */
export const logger: Logger = createLogger({ development: import.meta.env.DEV })
