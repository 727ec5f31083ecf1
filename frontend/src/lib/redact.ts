/**
 * Redaction of logged data (spec section 5): the value of every field whose name contains
 * password, token, key, secret, email or phone is replaced, at any depth. Errors become
 * plain objects (name, message, stack) so they survive JSON.
 */

export const REDACTED = '[REDACTED]'

const SENSITIVE_KEY = /password|token|key|secret|email|phone/i

export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY.test(key)
}

/** A JSON-safe copy of `value` with sensitive fields replaced by {@link REDACTED}. */
export function redact(value: unknown, seen: WeakSet<object> = new WeakSet()): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return value.toString()
    if (typeof value === 'function' || typeof value === 'symbol') return undefined
    return value
  }
  if (seen.has(value)) return '[Circular]'
  seen.add(value)
  if (value instanceof Error) {
    const plain: Record<string, unknown> = { name: value.name, message: value.message }
    if (value.stack) plain.stack = value.stack
    for (const [key, item] of Object.entries(value)) {
      plain[key] = isSensitiveKey(key) ? REDACTED : redact(item, seen)
    }
    return plain
  }
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return value.map((item) => redact(item, seen))
  const result: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    result[key] = isSensitiveKey(key) ? REDACTED : redact(item, seen)
  }
  return result
}
