import { describe, expect, it, vi } from 'vitest'
import { createFakeNetwork, json } from '@/test/fake-network'
import { createTestClient, testSession } from '@/test/render-app'
import { fetchIsAdmin, fetchIsContentCreator } from './roles'

const jwtExpired = () => json({ code: 'PGRST303', message: 'JWT expired', details: null, hint: null }, 401)

describe('admin check', () => {
  it('retries up to 3 times, waiting 1 s, 2 s, 3 s, when the error mentions the JWT or session', async () => {
    let calls = 0
    const network = createFakeNetwork({ '/rest/v1/rpc/is_admin': () => (++calls < 4 ? jwtExpired() : json(true)) })
    const waits: number[] = []
    const result = await fetchIsAdmin(createTestClient(network.fetch, testSession()), async (ms) => void waits.push(ms))
    expect(result).toBe(true)
    expect(waits).toEqual([1000, 2000, 3000])
    expect(network.requestsTo('/rest/v1/rpc/is_admin')).toHaveLength(4)
  })

  it('gives up after 3 retries: no access', async () => {
    const network = createFakeNetwork({ '/rest/v1/rpc/is_admin': jwtExpired })
    const sleep = vi.fn(async () => {})
    expect(await fetchIsAdmin(createTestClient(network.fetch, testSession()), sleep)).toBe(false)
    expect(sleep).toHaveBeenCalledTimes(3)
    expect(network.requestsTo('/rest/v1/rpc/is_admin')).toHaveLength(4)
  })

  it('other errors are not retried', async () => {
    const network = createFakeNetwork({
      '/rest/v1/rpc/is_admin': () => json({ code: '57014', message: 'canceling statement due to statement timeout', details: null, hint: null }, 500),
    })
    const sleep = vi.fn(async () => {})
    expect(await fetchIsAdmin(createTestClient(network.fetch, testSession()), sleep)).toBe(false)
    expect(sleep).not.toHaveBeenCalled()
  })
})

describe('content-creator check', () => {
  it('answers the function', async () => {
    const network = createFakeNetwork({ '/rest/v1/rpc/is_content_creator': () => json(true) })
    expect(await fetchIsContentCreator(createTestClient(network.fetch, testSession()))).toBe(true)
  })

  it('resolves to false on error', async () => {
    const network = createFakeNetwork({ '/rest/v1/rpc/is_content_creator': jwtExpired })
    expect(await fetchIsContentCreator(createTestClient(network.fetch, testSession()))).toBe(false)
    const offline = createFakeNetwork({})
    expect(await fetchIsContentCreator(createTestClient(offline.fetch, testSession()))).toBe(false)
  })
})
