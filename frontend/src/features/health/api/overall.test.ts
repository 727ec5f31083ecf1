import { describe, expect, it } from 'vitest'
import { deriveOverallStatus, OVERALL_LABELS, serviceStatus } from './overall'
import type { HealthCheckResult, HealthResults, ServiceName } from './types'

function res(service: ServiceName, ok: boolean): HealthCheckResult {
  return { service, ok, status: ok ? 200 : 503, latencyMs: 5, detail: '' }
}

const allOk: HealthResults = {
  gateway: res('gateway', true),
  auth: res('auth', true),
  rest: res('rest', true),
  session: res('session', true),
}

describe('deriveOverallStatus', () => {
  it('is "checking" before any result', () => {
    expect(deriveOverallStatus({})).toBe('checking')
  })

  it('is "checking" while some checks are pending and none failed', () => {
    expect(deriveOverallStatus({ gateway: res('gateway', true), auth: res('auth', true) })).toBe('checking')
  })

  it('is "ok" when every check passed', () => {
    expect(deriveOverallStatus(allOk)).toBe('ok')
    expect(OVERALL_LABELS[deriveOverallStatus(allOk)]).toBe('Todo operativo')
  })

  it('is "degraded" as soon as one check failed, even with others pending', () => {
    expect(deriveOverallStatus({ rest: res('rest', false) })).toBe('degraded')
    expect(deriveOverallStatus({ ...allOk, gateway: res('gateway', false) })).toBe('degraded')
    expect(OVERALL_LABELS.degraded).toBe('Hay servicios con problemas')
  })

  it('only considers the given services', () => {
    expect(deriveOverallStatus({ gateway: res('gateway', true) }, ['gateway'])).toBe('ok')
  })
})

describe('serviceStatus', () => {
  it('maps a missing, passing and failing result', () => {
    expect(serviceStatus({}, 'auth')).toBe('checking')
    expect(serviceStatus(allOk, 'auth')).toBe('ok')
    expect(serviceStatus({ auth: res('auth', false) }, 'auth')).toBe('degraded')
  })
})
