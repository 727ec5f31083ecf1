// Shared pieces of the supabase-js conformance tests: fixture users, tokens signed like
// GoTrue signs them, clients configured the ways apps configure them, result assertions.

import assert from 'node:assert/strict'
import { createHmac, randomUUID } from 'node:crypto'
import { createClient } from '@supabase/supabase-js'
import { JWT_SECRET } from './harness.mjs'

/** Fixture users (gateway/tests/fixtures/school.sql, schema `fixture`). */
export const ANA = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'
export const BETO = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'
export const STRANGER = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc'

const clientOptions = { auth: { persistSession: false, autoRefreshToken: false } }

/** Client options for `gateway`: its rest/v1 schema when it serves another than `public`. */
function optionsFor(gateway, options = clientOptions) {
  return gateway.schema ? { ...options, db: { schema: gateway.schema } } : options
}

function base64url(value) {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

/** An HS256 JWT signed like GoTrue signs access tokens. */
export function signJwt(claims, secret = JWT_SECRET) {
  const header = base64url({ alg: 'HS256', typ: 'JWT' })
  const payload = base64url(claims)
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url')
  return `${header}.${payload}.${signature}`
}

/** GoTrue-like access token for `sub` issued by `gateway`; `expiresIn` in seconds. */
export function userToken(gateway, sub, email, { expiresIn = 3600, secret } = {}) {
  const now = Math.floor(Date.now() / 1000)
  return signJwt(
    {
      aud: 'authenticated',
      exp: now + expiresIn,
      iat: now - 5,
      iss: `${gateway.url}/auth/v1`,
      sub,
      email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: {},
      role: 'authenticated',
      aal: 'aal1',
      amr: [{ method: 'password', timestamp: now }],
      session_id: randomUUID(),
      is_anonymous: false,
    },
    secret,
  )
}

/** The anon client. */
export function anonClient(gateway) {
  return createClient(gateway.url, gateway.anonKey, optionsFor(gateway))
}

/** A client whose requests carry `token` through `global.headers.Authorization`. */
export function clientWithHeader(gateway, token) {
  return createClient(gateway.url, gateway.anonKey, optionsFor(gateway, {
    ...clientOptions,
    global: { headers: { Authorization: `Bearer ${token}` } },
  }))
}

/** A client whose requests carry `token` through the `accessToken` option. */
export function clientWithAccessToken(gateway, token) {
  return createClient(gateway.url, gateway.anonKey, optionsFor(gateway, { accessToken: async () => token }))
}

/** The service_role client (bypasses RLS). */
export function serviceClient(gateway) {
  return createClient(gateway.url, gateway.serviceRoleKey, optionsFor(gateway))
}

/** Asserts a successful result: exact data, status and count. */
export function assertOk(result, data, { status = 200, statusText, count = null } = {}) {
  assert.equal(result.error, null, `unexpected error: ${JSON.stringify(result.error)}`)
  assert.deepEqual(result.data, data)
  assert.equal(result.status, status)
  if (statusText !== undefined) assert.equal(result.statusText, statusText)
  assert.equal(result.count, count)
}

/** Asserts a failed result: data null, the exact error body and status. */
export function assertError(result, error, status, statusText) {
  assert.equal(result.data, null)
  assert.deepEqual(result.error, error)
  assert.equal(result.status, status)
  if (statusText !== undefined) assert.equal(result.statusText, statusText)
  assert.equal(result.count, null)
}

/**
 * Polls until `table` answers 200, at most ~5 s: DDL's event trigger notifies the gateway,
 * which reloads its schema cache.
 */
/** Calls `probe` every 100 ms until `settled(result)` or 5 s have passed; the last result. */
export async function pollUntil(probe, settled) {
  const deadline = Date.now() + 5000
  for (;;) {
    const result = await probe()
    if (settled(result) || Date.now() > deadline) return result
    await new Promise((done) => setTimeout(done, 100))
  }
}

export async function waitForTable(gateway, table) {
  const { status } = await pollUntil(
    () => anonClient(gateway).from(table).select('*').limit(0),
    (result) => result.status === 200,
  )
  if (status !== 200) throw new Error(`${table} did not become readable (last status ${status})`)
}

/**
 * A seeded random generator (mulberry32) for the property tests: a seed names one sequence
 * of requests, so a failure is reproduced by its seed alone.
 */
export function seededRandom(seed) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const below = (n) => Math.floor(next() * n)
  return { below, pick: (items) => items[below(items.length)], chance: (p) => next() < p }
}
