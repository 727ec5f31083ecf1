// Random auth/v1 requests over GoTrue's routes (sign-up, every token grant, OTP and links,
// the user, factors, the admin API), with hostile bodies, tokens and keys, checked for what
// every answer must have: no transport failure, no 5xx, and every error as JSON with its
// message (GoTrue's shapes, or the API gateway's for a bad key) but for the paths GoTrue
// itself answers with Go's plain-text 404. Seeded like tests/rest-fuzz.test.mjs:
// FUZZ_SEEDS=7 FUZZ_REQUESTS=5000 TEST_FILES=auth-fuzz npm test reproduces a failure alone.

import { after, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnFixtureGateway } from '../harness.mjs'
import { seededRandom } from '../support.mjs'

const SEEDS = (process.env.FUZZ_SEEDS ?? '1,2').split(',').map(Number)
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 700)
const REPORTED = 10

const HOSTILE = ['', ' ', null, 1, -1, 1e308, true, [], {}, [1], { a: 1 }, 'a'.repeat(3000), '\u0000', 'a\u0000b',
  '\u{1F600}', 'ñ', '<script>', "'; drop table x;--", 'x@', '@x', 'a@b', '+56912345678', '123456', 'NaN', '2025-01-01']
const FIELDS = ['email', 'password', 'phone', 'data', 'options', 'token', 'token_hash', 'type', 'refresh_token',
  'code_challenge', 'code_challenge_method', 'redirect_to', 'create_user', 'channel', 'nonce', 'current_password',
  'user_metadata', 'app_metadata', 'email_confirm', 'phone_confirm', 'ban_duration', 'role', 'auth_code',
  'code_verifier', 'factor_type', 'friendly_name', 'issuer', 'challenge_id', 'code', 'provider', 'id_token',
  'new_email', 'scope', 'should_soft_delete', 'password_hash', 'id']
const TYPES = ['signup', 'recovery', 'magiclink', 'invite', 'email_change', 'email', 'sms', 'phone_change', 'x']
const ROUTES = [
  ['POST', '/signup'], ['POST', '/token?grant_type=password'], ['POST', '/token?grant_type=refresh_token'],
  ['POST', '/token?grant_type=pkce'], ['POST', '/token?grant_type=id_token'], ['POST', '/token?grant_type=x'],
  ['POST', '/token'], ['POST', '/otp'], ['POST', '/magiclink'], ['POST', '/recover'], ['POST', '/resend'],
  ['POST', '/verify'], ['GET', '/verify?type=signup&token=abc&redirect_to=http://localhost:3000'], ['GET', '/verify'],
  ['GET', '/user'], ['PUT', '/user'], ['POST', '/logout'], ['POST', '/logout?scope=global'], ['POST', '/logout?scope=x'],
  ['GET', '/settings'], ['GET', '/health'], ['GET', '/reauthenticate'], ['GET', '/authorize?provider=google'],
  ['POST', '/factors'], ['POST', '/factors/FACTOR/challenge'], ['POST', '/factors/FACTOR/verify'], ['DELETE', '/factors/FACTOR'],
  ['GET', '/admin/users'], ['GET', '/admin/users?page=x&per_page=-1'], ['POST', '/admin/users'],
  ['GET', '/admin/users/USER'], ['PUT', '/admin/users/USER'], ['DELETE', '/admin/users/USER'],
  ['GET', '/admin/users/USER/factors'], ['POST', '/admin/generate_link'], ['POST', '/invite'],
  ['POST', '/sso'], ['GET', '/passkeys'], ['GET', '/admin/oauth/clients'], ['GET', '/user/identities/authorize'],
]

describe('auth/v1 under random requests', () => {
  let gateway
  after(async () => {
    await gateway?.stop()
  })

  for (const seed of SEEDS) {
    test(`seed ${seed}: ${REQUESTS} requests, no 5xx, errors in GoTrue's shape`, async (context) => {
      // Limits far above the run, so requests reach their handlers instead of a 429.
      gateway ??= await spawnFixtureGateway({
        ENABLE_EMAIL_AUTOCONFIRM: 'true',
        ENABLE_ANONYMOUS_USERS: 'true',
        SMTP_MAX_FREQUENCY: '0',
        RATE_LIMIT_EMAIL_SENT: '1000000',
        RATE_LIMIT_TOKEN_REFRESH: '1000000',
        RATE_LIMIT_OTP: '1000000',
        RATE_LIMIT_VERIFY: '1000000',
        RATE_LIMIT_ANONYMOUS_USERS: '1000000',
        MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: '1000000',
      })
      const { below, pick, chance } = seededRandom(seed)
      const users = []
      const email = () => pick([`f${seed}-${below(1e9)}@colegio.cl`, ...users.map((u) => u.email), pick(HOSTILE)])
      const body = () => {
        const fields = {}
        for (const field of FIELDS) {
          if (chance(0.15)) fields[field] = field.includes('email') ? email() : chance(0.5) ? pick(['clave-segura-123', 'x', 'totp']) : pick(HOSTILE)
        }
        if (chance(0.2)) fields.type = pick(TYPES)
        return fields
      }
      const token = () => pick([gateway.anonKey, gateway.serviceRoleKey, ...users.map((u) => u.access), 'garbage', '', 'a.b.c'])
      // Well-formed requests with one field made hostile (nested in metadata too): they pass
      // the early checks and carry the bad value to the database.
      const wellFormed = () => {
        const user = users.length ? pick(users) : null
        const session = user ? { apikey: gateway.anonKey, token: user.access } : null
        const service = { apikey: gateway.serviceRoleKey, token: gateway.serviceRoleKey }
        const anon = { apikey: gateway.anonKey, token: gateway.anonKey }
        const fresh = `f${seed}-${below(1e9)}@colegio.cl`
        const known = user?.email ?? fresh
        const templates = [
          ['POST', '/signup', anon, { email: fresh, password: 'clave-segura-123', data: { nombre: 'Ana' } }],
          ['POST', '/token?grant_type=password', anon, { email: known, password: 'clave-segura-123' }],
          ['POST', '/token?grant_type=pkce', anon, { auth_code: 'x', code_verifier: 'y'.repeat(43) }],
          ['POST', '/otp', anon, { email: known, data: { curso: '1° medio' } }],
          ['POST', '/recover', anon, { email: known }],
          ['POST', '/resend', anon, { type: 'signup', email: known }],
          ['POST', '/verify', anon, { type: 'magiclink', token_hash: 'x'.repeat(56) }],
          ['POST', '/verify', anon, { type: 'email', email: known, token: '123456' }],
          ['POST', '/admin/users', service, { email: fresh, password: 'clave-segura-123', user_metadata: { a: 1 }, app_metadata: { b: 2 } }],
          ['POST', '/admin/generate_link', service, { type: 'magiclink', email: known }],
          ['POST', '/invite', service, { email: fresh, data: { rol: 'docente' } }],
          ...(session
            ? [
                ['PUT', '/user', session, { data: { curso: '2° medio' } }],
                ['PUT', '/user', session, { email: fresh }],
                ['POST', '/factors', session, { factor_type: 'totp', friendly_name: 'Teléfono', issuer: 'Cielo' }],
                ['PUT', `/admin/users/${user.id}`, service, { user_metadata: { c: 3 }, ban_duration: 'none' }],
                ['GET', `/admin/users?filter=${encodeURIComponent(user.email)}`, service, null],
              ]
            : []),
        ]
        const [method, path, who, fields] = pick(templates)
        if (fields) {
          const names = Object.keys(fields)
          const name = pick(names)
          const hostile = pick(HOSTILE)
          const value = fields[name]
          fields[name] = value !== null && typeof value === 'object' && chance(0.7) ? { ...value, [pick(['k', '\u0000', ''])]: hostile } : hostile
        }
        return { method, path, who, text: fields ? JSON.stringify(fields) : undefined }
      }
      const findings = []
      const statuses = {}
      let sent = 0
      for (let index = 0; index < REQUESTS; index++) {
        if (chance(0.4)) {
          const { method, path, who, text } = wellFormed()
          const headers = { apikey: who.apikey, Authorization: `Bearer ${who.token}`, 'Content-Type': 'application/json' }
          if (chance(0.5)) headers['X-Supabase-Api-Version'] = '2024-01-01'
          await send(method, path, headers, text)
          continue
        }
        let [method, path] = pick(ROUTES)
        path = path
          .replace('USER', pick([...users.map((u) => u.id), 'nope', '00000000-0000-0000-0000-000000000000']))
          .replace('FACTOR', pick(['nope', '00000000-0000-0000-0000-000000000000']))
        const headers = { apikey: chance(0.9) ? pick([gateway.anonKey, gateway.serviceRoleKey]) : pick(['', 'garbage']) }
        if (chance(0.85)) headers.Authorization = `Bearer ${token()}`
        if (chance(0.5)) headers['X-Supabase-Api-Version'] = '2024-01-01'
        let text
        if (method !== 'GET' && method !== 'DELETE') {
          headers['Content-Type'] = chance(0.9) ? 'application/json' : pick(['text/plain', 'application/x-www-form-urlencoded'])
          text = chance(0.9) ? JSON.stringify(body()) : pick(['', '{', '[]', 'null', '"x"', '1', '{"email":'])
        }
        // Some well-formed sign-ups, so later requests carry real users and sessions.
        if (path === '/signup' && chance(0.4)) {
          Object.assign(headers, { apikey: gateway.anonKey, Authorization: `Bearer ${gateway.anonKey}`, 'Content-Type': 'application/json' })
          text = JSON.stringify({ email: `f${seed}-${below(1e9)}@colegio.cl`, password: 'clave-segura-123' })
        }
        await send(method, path, headers, text)
      }

      async function send(method, path, headers, text) {
        const shown = `#${sent++} ${method} ${path} ${text?.slice(0, 200) ?? ''}`
        let response
        let answer
        try {
          response = await fetch(`${gateway.url}/auth/v1${path}`, { method, headers, body: text, redirect: 'manual' })
          answer = await response.text()
        } catch (error) {
          findings.push(`${shown}: no answer (${error.cause?.code ?? error.message})`)
          return
        }
        statuses[response.status] = (statuses[response.status] ?? 0) + 1
        if (response.status === 200 && path === '/signup') {
          const session = JSON.parse(answer)
          if (session.access_token) users.push({ id: session.user.id, email: session.user.email, access: session.access_token })
        }
        if (response.status >= 500) findings.push(`${shown}: status ${response.status}: ${answer.slice(0, 300)}`)
        if (response.status >= 400 && answer !== '404 page not found\n') {
          let error
          try {
            error = JSON.parse(answer)
          } catch {
            findings.push(`${shown}: an error body that is not JSON: ${answer.slice(0, 300)}`)
            return
          }
          // GoTrue's shapes (`msg`, or `message` with X-Supabase-Api-Version, `error_description`
          // for OAuth errors) and the API gateway's for a missing or bad key (`message`, `hint`).
          const described = [error.msg, error.message, error.error_description].some((text) => typeof text === 'string')
          if (!described) findings.push(`${shown}: an error outside GoTrue's shape: ${answer.slice(0, 300)}`)
        }
      }
      context.diagnostic(`statuses: ${JSON.stringify(statuses)}`)
      assert.deepEqual(findings.slice(0, REPORTED), [], `${findings.length} findings`)
      assert.ok(users.length > 0 && statuses[200] > 0, `the run reached the handlers: ${JSON.stringify(statuses)}`)
    })
  }
})
