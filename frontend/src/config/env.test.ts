import { describe, expect, it, vi } from 'vitest'
import { createFakeNetwork, json } from '@/test/fake-network'
import { ConfigError, loadConfig, parseConfig } from './env'

const KEY = 'eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.sig'

describe('parseConfig', () => {
  it('accepts a valid config and strips trailing slashes', () => {
    expect(parseConfig({ supabaseUrl: 'http://localhost:54321/', supabaseAnonKey: KEY })).toEqual({
      supabaseUrl: 'http://localhost:54321',
      supabaseAnonKey: KEY,
    })
  })

  it.each([
    ['not an object', null, /no es un objeto/],
    ['an array', [], /no es un objeto/],
    ['missing url', { supabaseAnonKey: KEY }, /supabaseUrl/],
    ['missing key', { supabaseUrl: 'http://localhost:54321' }, /supabaseAnonKey/],
    ['empty key', { supabaseUrl: 'http://localhost:54321', supabaseAnonKey: '  ' }, /supabaseAnonKey/],
    ['non-string key', { supabaseUrl: 'http://localhost:54321', supabaseAnonKey: 42 }, /supabaseAnonKey/],
    ['non-http url', { supabaseUrl: 'ftp://example.com', supabaseAnonKey: KEY }, /http\(s\)/],
    ['relative url', { supabaseUrl: '/api', supabaseAnonKey: KEY }, /http\(s\)/],
    ['unparsable url', { supabaseUrl: 'http://', supabaseAnonKey: KEY }, /http\(s\)/],
  ])('rejects %s', (_name, raw, message) => {
    expect(() => parseConfig(raw)).toThrow(ConfigError)
    expect(() => parseConfig(raw)).toThrow(message)
  })
})

describe('loadConfig', () => {
  it('loads /config.json from the same origin', async () => {
    const network = createFakeNetwork({
      '/config.json': () => json({ supabaseUrl: 'https://cielo.example.cl', supabaseAnonKey: KEY }),
    })
    const config = await loadConfig({ fetch: network.fetch, env: {} })
    expect(config).toEqual({ supabaseUrl: 'https://cielo.example.cl', supabaseAnonKey: KEY })
    expect(network.requests.map((r) => r.url)).toEqual(['/config.json'])
  })

  it('uses the Vite env vars without fetching when both are set', async () => {
    const network = createFakeNetwork({})
    const config = await loadConfig({
      fetch: network.fetch,
      env: { VITE_SUPABASE_URL: 'http://127.0.0.1:54321', VITE_SUPABASE_ANON_KEY: 'env-key' },
    })
    expect(config).toEqual({ supabaseUrl: 'http://127.0.0.1:54321', supabaseAnonKey: 'env-key' })
    expect(network.requests).toHaveLength(0)
  })

  it('lets a single env var override one field of /config.json', async () => {
    const network = createFakeNetwork({
      '/config.json': () => json({ supabaseUrl: 'http://localhost:54321', supabaseAnonKey: KEY }),
    })
    const config = await loadConfig({ fetch: network.fetch, env: { VITE_SUPABASE_URL: 'http://10.0.0.5:54321', VITE_SUPABASE_ANON_KEY: '' } })
    expect(config).toEqual({ supabaseUrl: 'http://10.0.0.5:54321', supabaseAnonKey: KEY })
  })

  it('reads import.meta.env by default', async () => {
    vi.stubEnv('VITE_SUPABASE_URL', 'http://localhost:9999')
    vi.stubEnv('VITE_SUPABASE_ANON_KEY', 'from-import-meta')
    await expect(loadConfig({ fetch: createFakeNetwork({}).fetch })).resolves.toEqual({
      supabaseUrl: 'http://localhost:9999',
      supabaseAnonKey: 'from-import-meta',
    })
  })

  it('validates env values too', async () => {
    await expect(
      loadConfig({ fetch: createFakeNetwork({}).fetch, env: { VITE_SUPABASE_URL: 'localhost:54321', VITE_SUPABASE_ANON_KEY: KEY } }),
    ).rejects.toThrow(/http\(s\)/)
  })

  it.each([
    ['an HTTP error', () => new Response('not found', { status: 404 }), /HTTP 404/],
    ['a non-JSON body (SPA fallback)', () => new Response('<!doctype html><html></html>', { status: 200 }), /JSON válido/],
    ['a JSON array', () => json([1, 2]), /objeto JSON/],
    ['an incomplete config', () => json({ supabaseUrl: 'http://localhost:54321' }), /supabaseAnonKey/],
  ])('fails with a ConfigError on %s', async (_name, handler, message) => {
    const network = createFakeNetwork({ '/config.json': handler })
    const promise = loadConfig({ fetch: network.fetch, env: {} })
    await expect(promise).rejects.toBeInstanceOf(ConfigError)
    await expect(promise).rejects.toThrow(message)
  })

  it('fails with a ConfigError when the server is unreachable', async () => {
    const network = createFakeNetwork({})
    await expect(loadConfig({ fetch: network.fetch, env: {} })).rejects.toThrow(/No se pudo conectar/)
  })
})
