import { describe, expect, it } from 'vitest'
import { createFakeNetwork, databaseDownRoutes, healthyRoutes, json } from '@/test/fake-network'
import { checkAuth, checkGateway, checkRest, checkSession } from './checks'

const URL_BASE = 'http://localhost:54321'

describe('checkGateway', () => {
  it('reports the gateway and database as operational', async () => {
    const { fetch } = createFakeNetwork(healthyRoutes)
    const result = await checkGateway(fetch, URL_BASE)
    expect(result).toMatchObject({ service: 'gateway', ok: true, status: 200 })
    expect(result.detail).toContain('0.1.0')
    expect(result.latencyMs).toBeGreaterThanOrEqual(0)
  })

  it('reports a 503 with the database unavailable', async () => {
    const { fetch } = createFakeNetwork(databaseDownRoutes)
    const result = await checkGateway(fetch, URL_BASE)
    expect(result).toMatchObject({ service: 'gateway', ok: false, status: 503 })
    expect(result.detail).toMatch(/Base de datos no disponible/)
  })

  it('reports a network error without throwing', async () => {
    const { fetch } = createFakeNetwork({})
    const result = await checkGateway(fetch, URL_BASE)
    expect(result).toMatchObject({ ok: false, status: null })
    expect(result.detail).toMatch(/No se pudo conectar/)
  })

  it('rejects a non-JSON answer (e.g. the SPA fallback page)', async () => {
    const { fetch } = createFakeNetwork({ '/health': () => new Response('<!doctype html>', { status: 200 }) })
    expect(await checkGateway(fetch, URL_BASE)).toMatchObject({ ok: false, status: 200, detail: expect.stringMatching(/no es JSON/) })
  })

  it('times out a request that never answers', async () => {
    const { fetch } = createFakeNetwork({ '/health': () => new Promise<Response>(() => {}) })
    const result = await checkGateway(fetch, URL_BASE, { timeoutMs: 20 })
    expect(result).toMatchObject({ ok: false, status: null })
    expect(result.detail).toMatch(/Sin respuesta/)
  })
})

describe('checkAuth', () => {
  it('reports GoTrue name and version', async () => {
    const { fetch } = createFakeNetwork(healthyRoutes)
    expect(await checkAuth(fetch, URL_BASE)).toMatchObject({ service: 'auth', ok: true, status: 200, detail: 'GoTrue v2.170.0.' })
  })

  it('reports an error status with its message', async () => {
    const { fetch } = createFakeNetwork({ '/auth/v1/health': () => json({ msg: 'boom' }, 500) })
    expect(await checkAuth(fetch, URL_BASE)).toMatchObject({ ok: false, status: 500, detail: 'boom' })
  })
})

describe('checkRest', () => {
  it('accepts a Swagger 2.0 document', async () => {
    const { fetch } = createFakeNetwork(healthyRoutes)
    expect(await checkRest(fetch, `${URL_BASE}/rest/v1`)).toMatchObject({
      service: 'rest',
      ok: true,
      status: 200,
      detail: 'OpenAPI (Swagger 2.0) · 2 rutas.',
    })
  })

  it('reports 503 as database not ready', async () => {
    const { fetch } = createFakeNetwork(databaseDownRoutes)
    const result = await checkRest(fetch, `${URL_BASE}/rest/v1`)
    expect(result).toMatchObject({ ok: false, status: 503 })
    expect(result.detail).toMatch(/aún no está lista/)
  })

  it('rejects a 200 that is not an OpenAPI document', async () => {
    const { fetch } = createFakeNetwork({ '/rest/v1/': () => json({ hello: 'world' }) })
    expect(await checkRest(fetch, `${URL_BASE}/rest/v1`)).toMatchObject({ ok: false, status: 200 })
  })

  it('reports 401 with the PostgREST message', async () => {
    const { fetch } = createFakeNetwork({ '/rest/v1/': () => json({ message: 'JWT expired' }, 401) })
    expect(await checkRest(fetch, `${URL_BASE}/rest/v1`)).toMatchObject({ ok: false, status: 401, detail: 'JWT expired' })
  })
})

describe('checkSession', () => {
  it('reports an anonymous session', async () => {
    const auth = { getSession: async () => ({ data: { session: null }, error: null }) } as const
    expect(await checkSession(auth)).toMatchObject({ service: 'session', ok: true, status: null, detail: expect.stringMatching(/^Sin sesión/) })
  })

  it('reports a thrown error as a failure', async () => {
    const auth = {
      getSession: async () => {
        throw new Error('storage unavailable')
      },
    }
    expect(await checkSession(auth)).toMatchObject({ ok: false, detail: expect.stringContaining('storage unavailable') })
  })
})
