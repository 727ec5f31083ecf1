// The stack run.mjs started (gateway URL and keys), and helpers that set up what a test
// needs through the gateway's own APIs: users (auth/v1 admin API), roles, profiles and
// alerts (rest/v1 as service_role), the dev inbox.

import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'

export function stack() {
  const raw = process.env.CIELO_E2E_STACK
  if (!raw) throw new Error('CIELO_E2E_STACK is not set: run the browser tests through e2e/run.mjs (npm run e2e)')
  return JSON.parse(raw)
}

export const PASSWORD = 'clave-segura-2025'

export const uniqueEmail = (label) => `${label}-${randomUUID().slice(0, 8)}@colegio.cl`

async function call(path, { method = 'GET', body, key = stack().serviceRoleKey, headers = {} } = {}) {
  const response = await fetch(`${stack().url}${path}`, {
    method,
    headers: {
      apikey: key,
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  const data = text ? JSON.parse(text) : null
  assert.ok(response.ok, `${method} ${path} answered ${response.status}: ${text}`)
  return data
}

/** A confirmed e-mail account (auth/v1 admin API), with its id. */
export async function createUser(label, { password = PASSWORD } = {}) {
  const email = uniqueEmail(label)
  const user = await call('/auth/v1/admin/users', { method: 'POST', body: { email, password, email_confirm: true } })
  return { id: user.id, email, password }
}

/** An account as the auth/v1 admin API sees it. */
export async function getUser(id) {
  return call(`/auth/v1/admin/users/${id}`)
}

/** rest/v1 insert as service_role (bypasses RLS, as a trusted server would). */
export async function insertRows(table, rows) {
  return call(`/rest/v1/${table}`, { method: 'POST', body: rows, headers: { Prefer: 'return=representation' } })
}

/** rest/v1 update as service_role of the rows `query` selects. */
export async function updateRows(table, query, values) {
  return call(`/rest/v1/${table}?${query}`, { method: 'PATCH', body: values, headers: { Prefer: 'return=representation' } })
}

/** rest/v1 delete as service_role of the rows `query` selects. */
export async function deleteRows(table, query) {
  return call(`/rest/v1/${table}?${query}`, { method: 'DELETE' })
}

/** rest/v1 select as service_role. */
export async function selectRows(table, query) {
  return call(`/rest/v1/${table}?${query}`)
}

export async function grantRole(userId, role) {
  await insertRows('user_roles', [{ user_id: userId, role }])
}

/** auth/v1's session for an e-mail account (the password grant). */
export async function passwordSession({ email, password = PASSWORD }) {
  return call('/auth/v1/token?grant_type=password', { method: 'POST', body: { email, password }, key: stack().anonKey })
}

/** An anonymous visitor's session (the public trial's), if the stack allows anonymous sign-ins. */
export async function anonymousSession() {
  return call('/auth/v1/signup', { method: 'POST', body: {}, key: stack().anonKey })
}

/**
 * A rest/v1 request as the user of `session`, with RLS: the raw answer (status and body), so
 * the test can assert on refusals too.
 */
export async function asUser(session, path, { method = 'GET', body, headers = {} } = {}) {
  const response = await fetch(`${stack().url}${path}`, {
    method,
    headers: {
      apikey: stack().anonKey,
      Authorization: `Bearer ${session.access_token}`,
      'Content-Type': 'application/json',
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : null }
}

/** A phone + password account: signed in at once, with no e-mail confirmed. */
export async function phoneSession() {
  const phone = `+569${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`
  return call('/auth/v1/signup', { method: 'POST', body: { phone, password: PASSWORD }, key: stack().anonKey })
}

/** The newest dev-inbox mail for `recipient`, waiting for it to arrive. */
export async function latestMail(recipient, { timeoutMs = 10_000 } = {}) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const response = await fetch(`${stack().url}/inbox/api/messages?recipient=${encodeURIComponent(recipient)}`)
    assert.equal(response.status, 200)
    const messages = await response.json()
    if (messages.length > 0) return messages[0]
    if (Date.now() > deadline) throw new Error(`no mail for ${recipient}`)
    await new Promise((done) => setTimeout(done, 200))
  }
}

/** supabase-js's storage key for the stack's URL (`sb-<first host label>-auth-token`). */
export function storageKey() {
  return `sb-${new URL(stack().url).hostname.split('.')[0]}-auth-token`
}
