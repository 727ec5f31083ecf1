// supabase-js against auth/v1: every flow of the app, end to end, with the real client.
//
// Mail goes to the gateway's dev inbox; links are followed like a browser does and the
// redirect is handed to a client that believes it runs in a browser (a minimal `window`),
// so auth-js's own `detectSessionInUrl` code turns it into a session and its events —
// nothing of auth-js is mocked. The gateway signs user tokens with a managed ES256 key, so
// `getClaims()` verifies them locally from the JWKS.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac, randomUUID } from 'node:crypto'
import { AuthApiError, createClient } from '@supabase/supabase-js'
import { spawnFixtureGateway } from '../harness.mjs'

const SITE = 'http://localhost:3000'
const PASSWORD = 'clave-segura-123'

let gateway

before(async () => {
  gateway = await spawnFixtureGateway({
    SITE_URL: SITE,
    ADDITIONAL_REDIRECT_URLS: `${SITE}/**`,
    SMTP_MAX_FREQUENCY: '0',
    SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: '0',
    JWT_SIGNING_ALG: 'ES256',
  })
})

after(async () => {
  await gateway?.stop()
})

// ---------------------------------------------------------------------------------------------
// Helpers

class MemoryStorage {
  items = new Map()
  getItem(key) {
    return this.items.has(key) ? this.items.get(key) : null
  }
  setItem(key, value) {
    this.items.set(key, value)
  }
  removeItem(key) {
    this.items.delete(key)
  }
}

/** A client as an app creates it; `requests` records every URL it fetched. */
function client({
  flowType = 'implicit',
  storage = new MemoryStorage(),
  storageKey = `sb-${randomUUID()}`,
  key = gateway.anonKey,
} = {}) {
  const requests = []
  const supabase = createClient(gateway.url, key, {
    db: { schema: gateway.schema },
    auth: { persistSession: true, autoRefreshToken: false, detectSessionInUrl: true, flowType, storage, storageKey },
    global: {
      fetch: (input, init) => {
        requests.push(String(input))
        return fetch(input, init)
      },
    },
  })
  return { supabase, requests, storage, events: record(supabase) }
}

function record(supabase) {
  const events = []
  supabase.auth.onAuthStateChange((event, session) => events.push({ event, session }))
  return events
}

const email = (label) => `${label}-${randomUUID().slice(0, 8)}@colegio.cl`

/** Newest dev-inbox mail for `recipient`. */
async function latestMail(recipient) {
  const response = await fetch(`${gateway.url}/inbox/api/messages?recipient=${encodeURIComponent(recipient)}`)
  assert.equal(response.status, 200)
  const messages = await response.json()
  assert.ok(messages.length > 0, `no mail for ${recipient}`)
  return messages[0]
}

/** Follows a mail link like a browser (the link names API_EXTERNAL_URL); returns Location. */
async function followLink(link) {
  const url = new URL(link)
  const response = await fetch(`${gateway.url}${url.pathname}${url.search}`, { redirect: 'manual' })
  assert.equal(response.status, 303)
  return response.headers.get('location')
}

/**
 * A client that believes it runs in a browser at `href`, so auth-js's detectSessionInUrl
 * handles the redirect. Resolves after initialization and the events it queued.
 */
async function landOn(href, options = {}) {
  const location = { href, hash: new URL(href).hash }
  globalThis.window = {
    location,
    history: { state: null, replaceState: (_state, _title, url) => (location.href = url) },
    addEventListener() {},
    removeEventListener() {},
  }
  globalThis.document = { addEventListener() {}, removeEventListener() {}, visibilityState: 'visible' }
  // Cross-tab sync would keep a BroadcastChannel (and Node's event loop) open.
  const { BroadcastChannel } = globalThis
  delete globalThis.BroadcastChannel
  try {
    const landed = client(options)
    const { error } = await landed.supabase.auth.initialize()
    await new Promise((resolve) => setTimeout(resolve, 20))
    return { ...landed, error }
  } finally {
    delete globalThis.window
    delete globalThis.document
    globalThis.BroadcastChannel = BroadcastChannel
  }
}

function serviceClient() {
  return createClient(gateway.url, gateway.serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false },
  })
}

async function confirmedUser(label) {
  const address = email(label)
  const { data, error } = await serviceClient().auth.admin.createUser({
    email: address,
    password: PASSWORD,
    email_confirm: true,
  })
  assert.equal(error, null)
  return { address, user: data.user }
}

const eventNames = (events) => events.map(({ event }) => event)

/** The code an authenticator app shows for a base32 TOTP secret (RFC 6238, SHA-1, 30 s). */
function totpCode(secret, seconds = Date.now() / 1000) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  const bits = [...secret.replace(/=+$/, '')].map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0')).join('')
  const key = Buffer.from(bits.match(/.{8}/g).map((byte) => parseInt(byte, 2)))
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(seconds / 30)))
  const mac = createHmac('sha1', key).update(counter).digest()
  const offset = mac[19] & 0xf
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0')
}

// ---------------------------------------------------------------------------------------------

describe('sign-up with e-mail confirmation', () => {
  test('sign up → mail in the dev inbox → link → SIGNED_IN with email_confirmed_at', async () => {
    const address = email('nueva')
    const { supabase } = client()
    const { data, error } = await supabase.auth.signUp({
      email: address,
      password: PASSWORD,
      options: { data: { nombre: 'Ana' }, emailRedirectTo: `${SITE}/confirm-email` },
    })
    assert.equal(error, null)
    // Confirmation required: a user, no session.
    assert.equal(data.session, null)
    assert.equal(data.user.email, address)
    assert.equal(data.user.email_confirmed_at, undefined)
    assert.equal(data.user.user_metadata.nombre, 'Ana')

    const mail = await latestMail(address)
    assert.equal(mail.subject, 'Confirma tu correo en Cielo')
    assert.match(mail.text_body, /Confirma tu correo/)
    const location = await followLink(mail.links[0])
    assert.ok(location.startsWith(`${SITE}/confirm-email#access_token=`), location)

    const landed = await landOn(location)
    assert.equal(landed.error, null)
    const signedIn = landed.events.find(({ event }) => event === 'SIGNED_IN')
    assert.ok(signedIn, `events: ${eventNames(landed.events)}`)
    assert.equal(signedIn.session.user.email, address)
    assert.ok(signedIn.session.user.email_confirmed_at)
    const { data: current } = await landed.supabase.auth.getSession()
    assert.equal(current.session.user.id, data.user.id)
  })

  test('an unconfirmed user cannot sign in; a wrong password is invalid_credentials', async () => {
    const address = email('pendiente')
    const { supabase } = client()
    await supabase.auth.signUp({ email: address, password: PASSWORD })
    const unconfirmed = await supabase.auth.signInWithPassword({ email: address, password: PASSWORD })
    assert.ok(unconfirmed.error instanceof AuthApiError)
    assert.equal(unconfirmed.error.code, 'email_not_confirmed')
    assert.equal(unconfirmed.error.status, 400)

    const { address: confirmed } = await confirmedUser('clave')
    const wrong = await supabase.auth.signInWithPassword({ email: confirmed, password: 'incorrecta' })
    assert.equal(wrong.error.code, 'invalid_credentials')
    assert.equal(wrong.error.message, 'Invalid login credentials')
    assert.equal(wrong.data.session, null)
  })

  test('a used link redirects with the error in the fragment', async () => {
    const address = email('dos-veces')
    await client().supabase.auth.signUp({ email: address, password: PASSWORD })
    const link = (await latestMail(address)).links[0]
    await followLink(link)
    const location = await followLink(link)
    const landed = await landOn(location)
    assert.equal(landed.error.name, 'AuthImplicitGrantRedirectError')
    assert.equal(landed.error.details.code, 'otp_expired')
    assert.equal(landed.error.details.error, 'access_denied')
  })
})

describe('sessions', () => {
  test('refresh rotates the token; reuse of an old one ends the session', async () => {
    const { address } = await confirmedUser('refresco')
    const { supabase, events } = client()
    const { data: first } = await supabase.auth.signInWithPassword({ email: address, password: PASSWORD })
    const r1 = first.session.refresh_token
    const { data: second, error } = await supabase.auth.refreshSession()
    assert.equal(error, null)
    assert.notEqual(second.session.refresh_token, r1)
    assert.ok(eventNames(events).includes('TOKEN_REFRESHED'))
    const { data: third } = await supabase.auth.refreshSession()

    // R1 is two rotations old: reuse revokes the whole session.
    const thief = client()
    const stolen = await thief.supabase.auth.refreshSession({ refresh_token: r1 })
    assert.equal(stolen.error.code, 'refresh_token_already_used')
    assert.equal(stolen.error.message, 'Invalid Refresh Token: Already Used')
    const { error: gone } = await supabase.auth.refreshSession({ refresh_token: third.session.refresh_token })
    assert.equal(gone.code, 'refresh_token_not_found')
    // The access token died with its session: getUser() signs the client out.
    const { error: userError } = await supabase.auth.getUser()
    assert.equal(userError.name, 'AuthSessionMissingError')
    assert.ok(eventNames(events).includes('SIGNED_OUT'))
  })

  test('sign-out scopes', async () => {
    const { address } = await confirmedUser('salir')
    const devices = [client(), client(), client()]
    for (const device of devices) {
      const { error } = await device.supabase.auth.signInWithPassword({ email: address, password: PASSWORD })
      assert.equal(error, null)
    }
    const [laptop, phone, tablet] = devices
    assert.equal((await laptop.supabase.auth.signOut({ scope: 'others' })).error, null)
    assert.equal((await laptop.supabase.auth.getUser()).error, null)
    assert.ok((await phone.supabase.auth.getUser()).error)
    assert.ok((await tablet.supabase.auth.getUser()).error)
    const again = client()
    await again.supabase.auth.signInWithPassword({ email: address, password: PASSWORD })
    assert.equal((await laptop.supabase.auth.signOut({ scope: 'local' })).error, null)
    assert.equal((await laptop.supabase.auth.getSession()).data.session, null)
    assert.equal((await again.supabase.auth.getUser()).error, null)
    assert.equal((await again.supabase.auth.signOut()).error, null)
    assert.ok(eventNames(again.events).includes('SIGNED_OUT'))
  })

  test('RLS sees auth.uid() through rest/v1 with the issued token', async () => {
    const { address, user } = await confirmedUser('rls')
    const { supabase } = client()
    await supabase.auth.signInWithPassword({ email: address, password: PASSWORD })
    const { data, error } = await supabase.rpc('whoami')
    assert.equal(error, null)
    assert.deepEqual(data, { role: 'authenticated', sub: user.id })
    // Another user's rows stay invisible (the fixture's courses belong to Ana and Beto).
    const { data: courses } = await supabase.from('courses').select('id')
    assert.deepEqual(courses, [])
  })

  test('getClaims() verifies the ES256 token locally from the JWKS', async () => {
    const { address, user } = await confirmedUser('claims')
    const { supabase, requests } = client()
    const { data: signIn } = await supabase.auth.signInWithPassword({ email: address, password: PASSWORD })
    const header = JSON.parse(Buffer.from(signIn.session.access_token.split('.')[0], 'base64url'))
    assert.equal(header.alg, 'ES256')
    const before = requests.length
    const { data, error } = await supabase.auth.getClaims()
    assert.equal(error, null)
    assert.equal(data.claims.sub, user.id)
    assert.equal(data.claims.role, 'authenticated')
    assert.equal(data.claims.aal, 'aal1')
    assert.equal(data.claims.is_anonymous, false)
    assert.equal(data.header.kid, header.kid)
    const fetched = requests.slice(before)
    assert.ok(fetched.some((url) => url.endsWith('/auth/v1/.well-known/jwks.json')), fetched.join())
    assert.ok(!fetched.some((url) => url.includes('/auth/v1/user')), fetched.join())
  })

  test('a password hash made by Supabase GoTrue signs in after import', async () => {
    // bcrypt cost 10, `$2a$` as Go writes it, of "contraseña-de-supabase".
    const hash = '$2a$10$V/UKSB0kibtIu39V5AYdsey9RxhiZLNMxEpVMjQXsK1bktLqYtura'
    const id = randomUUID()
    const address = email('importada')
    await gateway.admin((db) =>
      db.query(
        `INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
           raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
         VALUES ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2, $3, now(),
           '{"provider":"email","providers":["email"]}', '{}', now(), now())`,
        [id, address, hash],
      ),
    )
    const { data, error } = await client().supabase.auth.signInWithPassword({
      email: address,
      password: 'contraseña-de-supabase',
    })
    assert.equal(error, null)
    assert.equal(data.user.id, id)
  })
})

describe('links and codes', () => {
  test('recovery → PASSWORD_RECOVERY → update password', async () => {
    const { address } = await confirmedUser('recuperar')
    const { error } = await client().supabase.auth.resetPasswordForEmail(address, { redirectTo: `${SITE}/reset` })
    assert.equal(error, null)
    const mail = await latestMail(address)
    assert.equal(mail.subject, 'Restablece tu contraseña de Cielo')
    const location = await followLink(mail.links[0])
    assert.ok(location.startsWith(`${SITE}/reset#`), location)
    const landed = await landOn(location)
    assert.deepEqual(eventNames(landed.events).filter((e) => e !== 'INITIAL_SESSION'), ['PASSWORD_RECOVERY'])
    const { data, error: updateError } = await landed.supabase.auth.updateUser({ password: 'nueva-clave-456' })
    assert.equal(updateError, null)
    assert.equal(data.user.email, address)
    assert.ok(eventNames(landed.events).includes('USER_UPDATED'))
    const signIn = await client().supabase.auth.signInWithPassword({ email: address, password: 'nueva-clave-456' })
    assert.equal(signIn.error, null)
  })

  test('PKCE magic link: ?code= exchanged by the client that asked for it', async () => {
    const { address } = await confirmedUser('pkce')
    const storage = new MemoryStorage()
    const storageKey = `sb-${randomUUID()}`
    const { supabase } = client({ flowType: 'pkce', storage, storageKey })
    const { error } = await supabase.auth.signInWithOtp({ email: address, options: { emailRedirectTo: `${SITE}/auth/callback` } })
    assert.equal(error, null)
    const mail = await latestMail(address)
    assert.equal(mail.subject, 'Tu enlace para entrar a Cielo')
    assert.match(mail.links[0], /token=pkce_/)
    const location = await followLink(mail.links[0])
    assert.match(location, new RegExp(`^${SITE}/auth/callback\\?code=[0-9a-f-]{36}$`))
    const landed = await landOn(location, { flowType: 'pkce', storage, storageKey })
    assert.equal(landed.error, null)
    const signedIn = landed.events.find(({ event }) => event === 'SIGNED_IN')
    assert.ok(signedIn, `events: ${eventNames(landed.events)}`)
    assert.equal(signedIn.session.user.email, address)
    // The code was used: a second exchange fails.
    const replay = await client({ flowType: 'pkce', storage, storageKey }).supabase.auth.exchangeCodeForSession(
      new URL(location).searchParams.get('code'),
    )
    assert.ok(replay.error)
  })

  test('six-digit e-mail OTP', async () => {
    const { address } = await confirmedUser('otp')
    const { supabase, events } = client()
    assert.equal((await supabase.auth.signInWithOtp({ email: address, options: { shouldCreateUser: false } })).error, null)
    const mail = await latestMail(address)
    const code = /<strong>(\d{6})<\/strong>/.exec(mail.html_body)[1]
    const wrong = await supabase.auth.verifyOtp({ email: address, token: '000000', type: 'email' })
    assert.equal(wrong.error.code, 'otp_expired')
    const { data, error } = await supabase.auth.verifyOtp({ email: address, token: code, type: 'email' })
    assert.equal(error, null)
    assert.equal(data.user.email, address)
    assert.ok(eventNames(events).includes('SIGNED_IN'))
    const unknown = await supabase.auth.signInWithOtp({ email: email('nadie'), options: { shouldCreateUser: false } })
    assert.equal(unknown.error.code, 'otp_disabled')
  })
})

describe('multi-factor authentication (TOTP)', () => {
  test('enroll → challengeAndVerify → aal2; unenroll needs aal2; the admin sees factors', async () => {
    const { address, user } = await confirmedUser('mfa')
    const { supabase, events } = client()
    await supabase.auth.signInWithPassword({ email: address, password: PASSWORD })

    const { data: enrolled, error } = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Teléfono' })
    assert.equal(error, null)
    assert.equal(enrolled.type, 'totp')
    assert.equal(enrolled.friendly_name, 'Teléfono')
    assert.ok(enrolled.totp.qr_code.startsWith('data:image/svg+xml;utf-8,<?xml'), enrolled.totp.qr_code)
    assert.ok(!enrolled.totp.qr_code.includes('#'), 'a # would cut the data: URI short')
    assert.equal(
      enrolled.totp.uri,
      `otpauth://totp/localhost:3000:${address}?algorithm=SHA1&digits=6&issuer=localhost:3000&period=30&secret=${enrolled.totp.secret}`,
    )
    let aal = (await supabase.auth.mfa.getAuthenticatorAssuranceLevel()).data
    assert.deepEqual([aal.currentLevel, aal.nextLevel], ['aal1', 'aal1'])

    const now = Date.now() / 1000
    const valid = [now - 30, now, now + 30].map((seconds) => totpCode(enrolled.totp.secret, seconds))
    const wrongCode = ['000000', '111111', '222222', '333333'].find((code) => !valid.includes(code))
    const wrong = await supabase.auth.mfa.challengeAndVerify({ factorId: enrolled.id, code: wrongCode })
    assert.equal(wrong.error.code, 'mfa_verification_failed')
    const { data: verified, error: verifyError } = await supabase.auth.mfa.challengeAndVerify({
      factorId: enrolled.id,
      code: totpCode(enrolled.totp.secret),
    })
    assert.equal(verifyError, null)
    assert.equal(verified.user.factors[0].status, 'verified')
    assert.ok(eventNames(events).includes('MFA_CHALLENGE_VERIFIED'))
    aal = (await supabase.auth.mfa.getAuthenticatorAssuranceLevel()).data
    assert.deepEqual([aal.currentLevel, aal.nextLevel], ['aal2', 'aal2'])
    assert.equal(aal.currentAuthenticationMethods[0].method, 'totp')
    const { data: factors } = await supabase.auth.mfa.listFactors()
    assert.deepEqual(factors.totp.map(({ id }) => id), [enrolled.id])
    // The aal2 session survives a refresh as aal2.
    const { data: refreshed } = await supabase.auth.refreshSession()
    assert.equal(JSON.parse(Buffer.from(refreshed.session.access_token.split('.')[1], 'base64url')).aal, 'aal2')

    // A new password sign-in is aal1 with aal2 to go, and cannot remove the factor.
    const other = client()
    await other.supabase.auth.signInWithPassword({ email: address, password: PASSWORD })
    aal = (await other.supabase.auth.mfa.getAuthenticatorAssuranceLevel()).data
    assert.deepEqual([aal.currentLevel, aal.nextLevel], ['aal1', 'aal2'])
    const refused = await other.supabase.auth.mfa.unenroll({ factorId: enrolled.id })
    assert.equal(refused.error.code, 'insufficient_aal')
    const { error: passwordError } = await other.supabase.auth.updateUser({ password: 'otra-clave-456' })
    assert.equal(passwordError.code, 'insufficient_aal')

    const { data: listed } = await serviceClient().auth.admin.mfa.listFactors({ userId: user.id })
    assert.deepEqual(listed.factors.map(({ id }) => id), [enrolled.id])
    const { data: removed, error: unenrollError } = await supabase.auth.mfa.unenroll({ factorId: enrolled.id })
    assert.equal(unenrollError, null)
    assert.equal(removed.id, enrolled.id)
    const { data: none } = await serviceClient().auth.admin.mfa.listFactors({ userId: user.id })
    assert.deepEqual(none.factors, [])
  })
})

describe('admin API', () => {
  test('create, list, ban, generate_link, delete', async () => {
    const admin = serviceClient().auth.admin
    const address = email('admin')
    const { data: created, error } = await admin.createUser({
      email: address,
      password: PASSWORD,
      email_confirm: true,
      user_metadata: { nombre: 'Profe' },
    })
    assert.equal(error, null)
    assert.ok(created.user.email_confirmed_at)

    const { data: listed, error: listError } = await admin.listUsers({ page: 1, perPage: 1 })
    assert.equal(listError, null)
    assert.equal(listed.users.length, 1)
    assert.ok(listed.total >= 3)
    assert.equal(listed.nextPage, 2)

    const { data: banned } = await admin.updateUserById(created.user.id, { ban_duration: '1h' })
    assert.ok(banned.user.banned_until)
    const refused = await client().supabase.auth.signInWithPassword({ email: address, password: PASSWORD })
    assert.equal(refused.error.code, 'user_banned')
    await admin.updateUserById(created.user.id, { ban_duration: 'none' })

    const { data: link, error: linkError } = await admin.generateLink({ type: 'magiclink', email: address })
    assert.equal(linkError, null)
    assert.equal(link.properties.verification_type, 'magiclink')
    assert.equal(link.properties.email_otp.length, 6)
    const landed = await landOn(await followLink(link.properties.action_link))
    assert.ok(eventNames(landed.events).includes('SIGNED_IN'))

    const { error: softError } = await admin.deleteUser(created.user.id, true)
    assert.equal(softError, null)
    const { data: soft } = await admin.getUserById(created.user.id)
    assert.ok(soft.user.deleted_at)
    assert.equal((await admin.deleteUser(created.user.id)).error, null)
    const { error: missing } = await admin.getUserById(created.user.id)
    assert.equal(missing.status, 404)

    const notAdmin = await client().supabase.auth.admin.listUsers()
    assert.equal(notAdmin.error.code, 'not_admin')
  })
})

// GoTrue, with SAML, passkeys, its OAuth 2.1 server and custom providers switched off (its
// defaults, and features Cielo does not offer), answers their paths with JSON errors that
// supabase-js turns into an AuthApiError with GoTrue's code.
describe('features not offered', () => {
  const disabled = (result, code, message) => {
    assert.ok(result.error instanceof AuthApiError, `${result.error}`)
    assert.deepEqual([result.error.status, result.error.code, result.error.message], [404, code, message])
  }

  test('signInWithSSO is saml_provider_disabled; passkeys are passkey_disabled', async () => {
    const { supabase } = client()
    disabled(await supabase.auth.signInWithSSO({ domain: 'colegio.cl' }), 'saml_provider_disabled', 'SAML 2.0 is disabled')
    disabled(await supabase.auth.passkey.startAuthentication(), 'passkey_disabled', 'Passkeys are disabled')
  })

  test('the OAuth server is feature_disabled after the session check; admins see no passkeys', async () => {
    const { address, user } = await confirmedUser('oauth')
    const { supabase } = client()
    const signedOut = await supabase.auth.oauth.listGrants()
    assert.equal(signedOut.error.name, 'AuthSessionMissingError')
    assert.equal((await supabase.auth.signInWithPassword({ email: address, password: PASSWORD })).error, null)
    disabled(await supabase.auth.oauth.listGrants(), 'feature_disabled', 'OAuth server is disabled')
    disabled(await supabase.auth.oauth.getAuthorizationDetails(randomUUID()), 'feature_disabled', 'OAuth server is disabled')

    const admin = serviceClient().auth.admin
    disabled(await admin.oauth.listClients(), 'feature_disabled', 'OAuth server is disabled')
    disabled(await admin.customProviders.listProviders(), 'feature_disabled', 'Custom OAuth providers are disabled')
    assert.equal((await supabase.auth.admin.oauth.listClients()).error.code, 'not_admin')

    assert.deepEqual(await admin.passkey.listPasskeys({ userId: user.id }), { data: [], error: null })
    const deleted = await admin.passkey.deletePasskey({ userId: user.id, passkeyId: randomUUID() })
    assert.deepEqual([deleted.error.status, deleted.error.code, deleted.error.message], [404, 'validation_failed', 'Passkey not found'])
    const unknownUser = await admin.passkey.listPasskeys({ userId: randomUUID() })
    assert.equal(unknownUser.error.code, 'user_not_found')
  })

  test('paths supabase-js does not call answer the same way, under any method', async () => {
    const cases = [
      ['GET', '/.well-known/oauth-authorization-server', 'feature_disabled', 'OAuth server is disabled'],
      ['GET', '/scim/v2/Users', 'feature_disabled', 'SCIM server is disabled'],
      ['GET', '/sso/saml/metadata', 'saml_provider_disabled', 'SAML 2.0 is disabled'],
      ['PUT', '/oauth/clients/register', 'feature_disabled', 'OAuth server is disabled'],
    ]
    for (const [method, path, code, message] of cases) {
      const response = await fetch(`${gateway.url}/auth/v1${path}`, {
        method,
        headers: { apikey: gateway.anonKey, Authorization: `Bearer ${gateway.anonKey}` },
      })
      assert.equal(response.status, 404, path)
      assert.deepEqual(await response.json(), { code: 404, error_code: code, msg: message }, path)
    }
  })
})

// PostgreSQL refuses the NUL character in text and JSON; GoTrue lets that fail as a 500
// "Database error". It is the request's input, so it is a 400 and nothing is written.
test('a NUL character in a value is validation_failed, and nothing is written', async () => {
  const nul = (result) => {
    assert.ok(result.error instanceof AuthApiError, `${result.error}`)
    assert.deepEqual(
      [result.error.status, result.error.code, result.error.message],
      [400, 'validation_failed', 'Text and JSON values must not contain the NUL character (\\u0000)'],
    )
  }
  const admin = serviceClient().auth.admin
  const address = email('nul')
  nul(await client().supabase.auth.signUp({ email: address, password: PASSWORD, options: { data: { nota: 'a\u0000b' } } }))
  const { data: listed } = await admin.listUsers({ perPage: 1000 })
  assert.ok(!listed.users.some((user) => user.email === address), 'no user was created')
  nul(await admin.createUser({ email: address, app_metadata: { '\u0000': 1 } }))
  nul(await client().supabase.auth.signInWithPassword({ email: 'a\u0000@colegio.cl', password: PASSWORD }))
  nul(await client().supabase.auth.verifyOtp({ token_hash: '\u0000', type: 'signup' }))

  const { address: own } = await confirmedUser('nul-own')
  const { supabase } = client()
  assert.equal((await supabase.auth.signInWithPassword({ email: own, password: PASSWORD })).error, null)
  assert.equal((await supabase.auth.updateUser({ data: { curso: '1° medio' } })).error, null)
  nul(await supabase.auth.updateUser({ data: { curso: '\u0000' } }))
  nul(await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'a\u0000' }))
  const { data: after } = await supabase.auth.getUser()
  assert.equal(after.user.user_metadata.curso, '1° medio')
  assert.deepEqual(after.user.factors ?? [], [])
})

// A double-clicked button sends the same request twice at once. Each must get the answer
// it would get one after the other: never a 500 from a unique index the other filled.
test('the same sign-up, user, address or factor name sent at once: one succeeds, the rest get GoTrue\'s answer', async () => {
  const times = 8
  const admin = serviceClient().auth.admin
  const codes = (results) => results.map((result) => result.error?.code ?? 'ok').sort()
  const others = (code) => Array(times - 1).fill(code)

  const address = email('twice')
  const signUps = await Promise.all(Array.from({ length: times }, () => client().supabase.auth.signUp({ email: address, password: PASSWORD })))
  assert.deepEqual(signUps.map((result) => result.error), Array(times).fill(null))
  const { data: listed } = await admin.listUsers({ perPage: 1000 })
  assert.equal(listed.users.filter((user) => user.email === address).length, 1)

  const created = email('twice-admin')
  const creates = await Promise.all(Array.from({ length: times }, () => admin.createUser({ email: created, email_confirm: true })))
  assert.deepEqual(codes(creates), ['ok', ...others('email_exists')].sort())

  const users = await Promise.all(Array.from({ length: times }, (_, i) => confirmedUser(`twice-${i}`)))
  const taken = email('twice-target')
  const moves = await Promise.all(users.map(({ user }) => admin.updateUserById(user.id, { email: taken, email_confirm: true })))
  assert.deepEqual(codes(moves), ['ok', ...others('email_exists')].sort())

  // The admin's signup and invite links create the user of a new address: then they are
  // links for that same unconfirmed user, every one of them.
  const linked = email('twice-link')
  const links = await Promise.all(Array.from({ length: times }, () => admin.generateLink({ type: 'signup', email: linked, password: PASSWORD })))
  assert.deepEqual(codes(links), Array(times).fill('ok'))
  assert.equal(new Set(links.map(({ data }) => data.user.id)).size, 1)
  const invited = email('twice-invite')
  const invites = await Promise.all(Array.from({ length: times }, () => admin.inviteUserByEmail(invited)))
  assert.deepEqual(codes(invites), Array(times).fill('ok'))
  assert.equal(new Set(invites.map(({ data }) => data.user.id)).size, 1)

  const { address: own } = await confirmedUser('twice-mfa')
  const { supabase } = client()
  assert.equal((await supabase.auth.signInWithPassword({ email: own, password: PASSWORD })).error, null)
  const enrolls = await Promise.all(Array.from({ length: times }, () => supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Teléfono' })))
  assert.deepEqual(codes(enrolls), ['ok', ...others('mfa_factor_name_conflict')].sort())
})

test('a link or code verified several times at once signs in once', async () => {
  const { address } = await confirmedUser('spent')
  const admin = serviceClient().auth.admin
  const times = 8
  const outcomes = (results) => results.map((result) => (result.data.session ? 'session' : result.error?.code)).sort()
  const once = ['session', ...Array(times - 1).fill('otp_expired')].sort()

  const { data: link } = await admin.generateLink({ type: 'magiclink', email: address })
  const byHash = await Promise.all(
    Array.from({ length: times }, () => client().supabase.auth.verifyOtp({ token_hash: link.properties.hashed_token, type: 'magiclink' })),
  )
  assert.deepEqual(outcomes(byHash), once)

  const { data: code } = await admin.generateLink({ type: 'magiclink', email: address })
  const byCode = await Promise.all(
    Array.from({ length: times }, () => client().supabase.auth.verifyOtp({ email: address, token: code.properties.email_otp, type: 'email' })),
  )
  assert.deepEqual(outcomes(byCode), once)
})

// A double-clicked "send me the link" or "change my password", with GoTrue's defaults for
// mail frequency (60 s) and the reauthentication nonce: each client gets the answer it
// would get after the other's, so one mail goes out and one nonce changes the password.
describe('mails and nonces asked for at once', () => {
  const times = 8
  let strict

  before(async () => {
    strict = await spawnFixtureGateway({ SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: 'true', RATE_LIMIT_EMAIL_SENT: '1000' })
  })

  after(async () => {
    await strict?.stop()
  })

  /** A separate client per request (one client runs its own session calls one at a time). */
  const fresh = () => createClient(strict.url, strict.anonKey, { auth: { persistSession: false, autoRefreshToken: false } })
  const mails = async (recipient) => {
    const response = await fetch(`${strict.url}/inbox/api/messages?recipient=${encodeURIComponent(recipient)}`)
    return response.json()
  }
  const codes = (results) => results.map((result) => result.error?.code ?? 'ok').sort()
  const once = (code) => ['ok', ...Array(times - 1).fill(code)].sort()

  test('one mail and one password change each', async () => {
    const address = email('double')
    const admin = createClient(strict.url, strict.serviceRoleKey, { auth: { persistSession: false, autoRefreshToken: false } }).auth.admin
    assert.equal((await admin.createUser({ email: address, password: PASSWORD, email_confirm: true })).error, null)

    const resets = await Promise.all(Array.from({ length: times }, () => fresh().auth.resetPasswordForEmail(address)))
    assert.deepEqual(codes(resets), once('over_email_send_rate_limit'))
    assert.equal((await mails(address)).length, 1)

    const { data } = await fresh().auth.signInWithPassword({ email: address, password: PASSWORD })
    await strict.admin((sql) => sql.query("UPDATE auth.sessions SET created_at = now() - interval '2 days'"))
    const signedIn = () => {
      const supabase = fresh()
      return supabase.auth.setSession(data.session).then(() => supabase)
    }
    const clients = await Promise.all(Array.from({ length: times }, signedIn))
    const asked = await Promise.all(clients.map((supabase) => supabase.auth.reauthenticate()))
    assert.deepEqual(codes(asked), once('over_email_send_rate_limit'))
    const inbox = await mails(address)
    assert.equal(inbox.length, 2)
    const nonce = /<strong>(\d{6})<\/strong>/.exec(inbox[0].html_body)[1]
    const changes = await Promise.all(clients.map((supabase, i) => supabase.auth.updateUser({ password: `${PASSWORD}-${i}`, nonce })))
    assert.deepEqual(codes(changes), once('reauthentication_not_valid'))
  })
})
