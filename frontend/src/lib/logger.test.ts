import { describe, expect, it, vi } from 'vitest'
import { appendErrorLog, auditAction, createLogger, ERROR_LOG_KEY, type AuditEntry } from './logger'
import { redact, REDACTED } from './redact'

const quietConsole = () => ({ debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() })

describe('redact', () => {
  it('replaces fields whose names contain password, token, key, secret, email or phone, at any depth', () => {
    const input = {
      message: 'hola',
      password: 'hunter2',
      newPassword: 'x',
      access_token: 'a',
      apiKey: 'k',
      client_secret: 's',
      userEmail: 'ana@liceo.cl',
      phoneNumber: '+56912345678',
      nested: { deeper: [{ Token: 't', keep: 1 }], email: 'b@c.cl' },
    }
    expect(redact(input)).toEqual({
      message: 'hola',
      password: REDACTED,
      newPassword: REDACTED,
      access_token: REDACTED,
      apiKey: REDACTED,
      client_secret: REDACTED,
      userEmail: REDACTED,
      phoneNumber: REDACTED,
      nested: { deeper: [{ Token: REDACTED, keep: 1 }], email: REDACTED },
    })
    // The input is left as it was.
    expect(input.password).toBe('hunter2')
  })

  it('turns errors into plain objects and survives cycles', () => {
    const error = Object.assign(new Error('falló'), { token: 'secreto' })
    const cyclic: Record<string, unknown> = { error }
    cyclic.self = cyclic
    const result = redact(cyclic) as { error: Record<string, unknown>; self: unknown }
    expect(result.error).toMatchObject({ name: 'Error', message: 'falló', token: REDACTED })
    expect(result.self).toBe('[Circular]')
  })
})

describe('error log (localStorage app_errors)', () => {
  it('keeps the newest 50 entries', () => {
    for (let index = 0; index < 60; index++) {
      appendErrorLog(localStorage, { timestamp: `t${index}`, level: 'error', message: `error ${index}` })
    }
    const stored = JSON.parse(localStorage.getItem(ERROR_LOG_KEY) ?? '[]') as Array<{ message: string }>
    expect(stored).toHaveLength(50)
    expect(stored[0]?.message).toBe('error 10')
    expect(stored[49]?.message).toBe('error 59')
  })

  it('starts again over a corrupt log', () => {
    localStorage.setItem(ERROR_LOG_KEY, '{not json')
    appendErrorLog(localStorage, { timestamp: 't', level: 'error', message: 'nuevo' })
    expect(JSON.parse(localStorage.getItem(ERROR_LOG_KEY) ?? '[]')).toHaveLength(1)
  })

  it('logger.error stores redacted entries', () => {
    const logger = createLogger({ development: false, console: quietConsole(), now: () => new Date('2025-05-21T12:00:00Z') })
    logger.error('Falló el guardado', { password: 'x', plan: 7 })
    expect(logger.errors()).toEqual([
      { timestamp: '2025-05-21T12:00:00.000Z', level: 'error', message: 'Falló el guardado', context: { password: REDACTED, plan: 7 }, url: '/' },
    ])
  })
})

describe('logger levels', () => {
  it('outside development only error and warn are logged', () => {
    const out = quietConsole()
    const logger = createLogger({ development: false, console: out })
    logger.debug('d')
    logger.info('i')
    logger.warn('w', { email: 'a@b.cl' })
    logger.error('e')
    expect(out.debug).not.toHaveBeenCalled()
    expect(out.info).not.toHaveBeenCalled()
    expect(out.warn).toHaveBeenCalledWith('[Cielo] w', { email: REDACTED })
    expect(out.error).toHaveBeenCalledWith('[Cielo] e')
  })

  it('in development everything is logged', () => {
    const out = quietConsole()
    const logger = createLogger({ development: true, console: out })
    logger.debug('d')
    logger.info('i')
    expect(out.debug).toHaveBeenCalledOnce()
    expect(out.info).toHaveBeenCalledOnce()
  })
})

describe('security events', () => {
  it('outside development: one security_audit_log insert per event, sanitized', async () => {
    const sink = vi.fn<(entry: AuditEntry) => Promise<void>>().mockResolvedValue()
    const logger = createLogger({
      development: false,
      console: quietConsole(),
      now: () => new Date('2025-05-21T12:00:00Z'),
      userAgent: () => 'Mozilla/5.0 (Test)',
    })
    logger.setAuditSink(sink)
    logger.security('access denied', { route: '/admin', user: { email: 'a@b.cl' } }, 'high')
    expect(sink).toHaveBeenCalledOnce()
    expect(sink).toHaveBeenCalledWith({
      action: 'logger_access_denied',
      resource_type: 'system',
      new_values: { severity: 'high', route: '/admin', user: { email: REDACTED }, timestamp: '2025-05-21T12:00:00.000Z' },
      user_agent: 'Mozilla/5.0 (Test)',
    })
  })

  it('in development nothing is audited, and a failing sink never throws', () => {
    const sink = vi.fn<(entry: AuditEntry) => Promise<void>>().mockRejectedValue(new Error('offline'))
    const dev = createLogger({ development: true, console: quietConsole() })
    dev.setAuditSink(sink)
    dev.security('x')
    expect(sink).not.toHaveBeenCalled()
    const prod = createLogger({ development: false, console: quietConsole() })
    prod.setAuditSink(sink)
    expect(() => prod.security('x')).not.toThrow()
  })

  it('audit actions are logger_ plus a name the database accepts', () => {
    expect(auditAction('sign_in_failed')).toBe('logger_sign_in_failed')
    expect(auditAction('acceso denegado/admin')).toBe('logger_acceso_denegado_admin')
  })
})
