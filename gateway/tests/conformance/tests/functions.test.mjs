// supabase-js `functions.invoke` against Edge Functions written for Supabase, run by the
// gateway under real Deno: every body type, every error class, streaming, verify_jwt, the
// Supabase environment, and functions added or edited while the gateway runs.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, FunctionsHttpError, FunctionsRelayError } from '@supabase/supabase-js'
import { repoRoot, spawnFixtureGateway } from '../harness.mjs'
import { ANA, anonClient, clientWithHeader, userToken } from '../support.mjs'

const options = { auth: { persistSession: false, autoRefreshToken: false } }

/** The Deno binary `scripts/npm-install.sh functions/runtime` installs. */
function denoBinary() {
  const dir = join(repoRoot, 'functions/runtime/node_modules/@deno')
  const [platform] = readdirSync(dir)
  return join(dir, platform, 'deno')
}

let gateway
let project

before(async () => {
  // A copy, so tests can add and edit functions while the gateway serves them.
  project = mkdtempSync(join(tmpdir(), 'cielo-functions-'))
  cpSync(join(repoRoot, 'gateway/tests/fixtures/supabase'), project, { recursive: true })
  gateway = await spawnFixtureGateway({
    FUNCTIONS_DIR: join(project, 'functions'),
    DENO_PATH: denoBinary(),
    FUNCTIONS_TIMEOUT: '4',
    FUNCTIONS_MEMORY_LIMIT_MB: '64',
  })
})

after(async () => {
  await gateway?.stop()
  if (project) rmSync(project, { recursive: true, force: true })
})

describe('invoking Edge Functions', () => {
  test('hello world gets JSON in and out, with Supabase env and .env files', async () => {
    const { data, error } = await anonClient(gateway).functions.invoke('hello', {
      body: { name: 'Functions' },
    })
    assert.equal(error, null)
    assert.deepEqual(data, {
      message: 'Hola Functions!',
      shared: 'from the directory',
      supabase: { url: gateway.url, anon: true, serviceRole: true, db: true },
    })
  })

  test("a function's own deno.json maps its bare imports", async () => {
    const { data, error } = await anonClient(gateway).functions.invoke('import-map', { body: { name: 'Ana' } })
    assert.equal(error, null)
    assert.deepEqual(data, { message: 'Hola Ana, desde el mapa de importaciones' })
  })

  test('every body type arrives as sent and comes back as supabase-js parses it', async () => {
    const functions = anonClient(gateway).functions

    const json = await functions.invoke('echo', { body: { a: [1, 'dos'] } })
    assert.equal(json.error, null)
    assert.deepEqual(json.data, { a: [1, 'dos'] })
    assert.equal(json.response.headers.get('x-echo-method'), 'POST')
    assert.equal(json.response.headers.get('x-echo-remote'), '127.0.0.1')
    assert.equal(json.response.headers.get('x-echo-protocol'), 'http:', 'request.url is http:// as on Supabase')

    const text = await functions.invoke('echo', { body: 'plain text, ñandú' })
    assert.equal(text.error, null)
    assert.equal(text.data, 'plain text, ñandú')
    // The length goes along with the streamed body.
    assert.equal(text.response.headers.get('x-echo-content-length'), String(Buffer.byteLength('plain text, ñandú')))
    assert.match(text.response.headers.get('content-type'), /^text\/plain/)

    const bytes = new Uint8Array(70_000).map((_, index) => index % 251)
    const binary = await functions.invoke('echo', { body: bytes.buffer })
    assert.equal(binary.error, null)
    assert.ok(binary.data instanceof Blob)
    assert.deepEqual(new Uint8Array(await binary.data.arrayBuffer()), bytes)

    const form = new FormData()
    form.append('field', 'value')
    form.append('file', new Blob(['file body'], { type: 'text/plain' }), 'note.txt')
    const multipart = await functions.invoke('echo', { body: form })
    assert.equal(multipart.error, null)
    assert.ok(multipart.data instanceof FormData)
    assert.equal(multipart.data.get('field'), 'value')
    assert.equal(await multipart.data.get('file').text(), 'file body')
  })

  test('a worker is kept warm between requests', async () => {
    const functions = anonClient(gateway).functions
    const first = await functions.invoke('echo', { body: 'one' })
    const second = await functions.invoke('echo', { body: 'two' })
    assert.equal(
      Number(second.response.headers.get('x-echo-served')),
      Number(first.response.headers.get('x-echo-served')) + 1,
    )
  })

  test('any method, sub-paths, query, x-region and forceFunctionRegion reach the function', async () => {
    const functions = anonClient(gateway).functions
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const { error, response } = await functions.invoke('echo/items/7?page=2', { method })
      assert.equal(error, null, method)
      assert.equal(response.headers.get('x-echo-method'), method)
      assert.equal(response.headers.get('x-echo-path'), '/echo/items/7')
      assert.equal(response.headers.get('x-echo-query'), '?page=2')
      assert.equal(response.headers.get('x-echo-length'), '0')
    }
    const escaped = await functions.invoke('echo/a%2Fb%20c', { method: 'GET' })
    assert.equal(escaped.response.headers.get('x-echo-path'), '/echo/a%2Fb%20c')
    // An escaped name still keeps its sub-path.
    const escapedName = await functions.invoke('ech%6F/items/7', { method: 'GET' })
    assert.equal(escapedName.error, null)
    assert.equal(escapedName.response.headers.get('x-echo-path'), '/echo/items/7')
    const regional = await functions.invoke('echo', { body: 'x', region: 'eu-west-1' })
    assert.equal(regional.error, null)
    assert.equal(regional.response.headers.get('x-echo-region'), 'eu-west-1')
    assert.match(regional.response.url, /forceFunctionRegion=eu-west-1/)
  })

  test("a function calls rest/v1 back with the caller's JWT, under the caller's RLS", async () => {
    const token = userToken(gateway, ANA, 'ana@example.com')
    const asAna = await clientWithHeader(gateway, token).functions.invoke('courses')
    assert.equal(asAna.error, null)
    assert.deepEqual(asAna.data, [
      { id: 1, name: 'Matemática' },
      { id: 2, name: 'Lenguaje' },
    ])
    const asAnon = await anonClient(gateway).functions.invoke('courses')
    assert.equal(asAnon.error, null)
    assert.equal(asAnon.data.length, 3)
  })

  test('a text/event-stream answer is read incrementally', async () => {
    const { data, error } = await anonClient(gateway).functions.invoke('stream')
    assert.equal(error, null)
    // supabase-js hands the raw Response over for event streams.
    assert.ok(data instanceof Response)
    const reader = data.body.getReader()
    const decoder = new TextDecoder()
    const arrivals = []
    let text = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
      arrivals.push(Date.now())
    }
    const events = text.split('\n\n').filter(Boolean).map((event) => JSON.parse(event.slice('data: '.length)))
    assert.deepEqual(events.map((event) => event.count), [1, 2, 3])
    // Not buffered: the first chunk arrived well before the last one was produced.
    assert.ok(arrivals.length >= 3, `chunks: ${arrivals.length}`)
    assert.ok(arrivals.at(-1) - arrivals[0] >= 400, `spread ${arrivals.at(-1) - arrivals[0]} ms`)
  })
})

describe('errors', () => {
  test("a function's own non-2xx is a FunctionsHttpError with its answer unchanged", async () => {
    const { data, error } = await anonClient(gateway).functions.invoke('teapot')
    assert.equal(data, null)
    assert.ok(error instanceof FunctionsHttpError, error?.name)
    assert.equal(error.context.status, 418)
    assert.equal(error.context.headers.get('x-teapot'), 'short and stout')
    assert.equal(error.context.headers.get('sb-error-code'), null)
    assert.deepEqual(await error.context.json(), { code: 'teapot', message: 'I am a teapot' })
  })

  test('an unknown function is 404 NOT_FOUND', async () => {
    const { error } = await anonClient(gateway).functions.invoke('nope')
    assert.ok(error instanceof FunctionsHttpError, error?.name)
    assert.equal(error.context.status, 404)
    assert.equal(error.context.headers.get('sb-error-code'), 'NOT_FOUND')
    assert.deepEqual(await error.context.json(), { code: 'NOT_FOUND', message: 'Requested function was not found' })
  })

  test('verify_jwt: a missing or invalid JWT is 401; verify_jwt = false lets anyone in', async () => {
    const bare = await fetch(`${gateway.url}/functions/v1/hello`, { method: 'POST', body: '{}' })
    assert.equal(bare.status, 401)
    assert.deepEqual(await bare.json(), { code: 401, message: 'Missing authorization header' })

    const forged = await clientWithHeader(gateway, userToken(gateway, ANA, 'a@b.c', { secret: 'x'.repeat(40) }))
      .functions.invoke('hello', { body: { name: 'x' } })
    assert.ok(forged.error instanceof FunctionsHttpError, forged.error?.name)
    assert.equal(forged.error.context.status, 401)
    assert.deepEqual(await forged.error.context.json(), { code: 401, message: 'Invalid JWT' })

    const open = await fetch(`${gateway.url}/functions/v1/public`)
    assert.equal(open.status, 200)
    assert.deepEqual(await open.json(), { authorization: 'absent' })
  })

  test('a method edge functions do not take is 405', async () => {
    const response = await fetch(`${gateway.url}/functions/v1/echo`, {
      method: 'HEAD',
      headers: { Authorization: `Bearer ${gateway.anonKey}` },
    })
    assert.equal(response.status, 405)
    assert.equal(response.headers.get('sb-error-code'), 'METHOD_NOT_ALLOWED')
  })

  test('an uncaught exception is 500 WORKER_ERROR, and the function keeps serving', async () => {
    for (let round = 0; round < 2; round++) {
      const { error } = await anonClient(gateway).functions.invoke('throws')
      assert.ok(error instanceof FunctionsHttpError, error?.name)
      assert.equal(error.context.status, 500)
      assert.equal(error.context.headers.get('sb-error-code'), 'WORKER_ERROR')
      assert.deepEqual(await error.context.json(), {
        code: 'WORKER_ERROR',
        message: 'Function exited due to an error (please check logs)',
      })
    }
  })

  test('a worker that dies while answering is 500 WORKER_ERROR and is restarted', async () => {
    for (let round = 0; round < 2; round++) {
      const { error } = await anonClient(gateway).functions.invoke('exits?die')
      assert.ok(error instanceof FunctionsHttpError, error?.name)
      assert.equal(error.context.status, 500)
      assert.equal(error.context.headers.get('sb-error-code'), 'WORKER_ERROR')
      const { data, error: afterwards } = await anonClient(gateway).functions.invoke('exits')
      assert.equal(afterwards, null)
      assert.equal(data, 'alive')
    }
  })

  test('a function that fails to load is 503 BOOT_ERROR', async () => {
    const { error } = await anonClient(gateway).functions.invoke('boot-error')
    assert.ok(error instanceof FunctionsHttpError, error?.name)
    assert.equal(error.context.status, 503)
    assert.equal(error.context.headers.get('sb-error-code'), 'BOOT_ERROR')
    assert.deepEqual(await error.context.json(), {
      code: 'BOOT_ERROR',
      message: 'Worker failed to boot (please check logs)',
    })
  })

  test('a function past the wall-time limit is 504 IDLE_TIMEOUT', async () => {
    const { error } = await anonClient(gateway).functions.invoke('slow')
    assert.ok(error instanceof FunctionsHttpError, error?.name)
    assert.equal(error.context.status, 504)
    assert.equal(error.context.headers.get('sb-error-code'), 'IDLE_TIMEOUT')
  })

  test('a worker that runs out of memory is 546 WORKER_LIMIT', async () => {
    const { error } = await anonClient(gateway).functions.invoke('hog')
    assert.ok(error instanceof FunctionsHttpError, error?.name)
    assert.equal(error.context.status, 546)
    assert.equal(error.context.headers.get('sb-error-code'), 'WORKER_LIMIT')
    assert.deepEqual(await error.context.json(), {
      code: 'WORKER_LIMIT',
      message: 'Worker failed to respond due to a resource limit (please check logs)',
    })
  })

  test('a worker that cannot be reached is a relay failure: x-relay-error, FunctionsRelayError', async () => {
    const { data, error } = await anonClient(gateway).functions.invoke('unreachable')
    assert.equal(data, null)
    assert.ok(error instanceof FunctionsRelayError, error?.name)
    assert.equal(error.context.status, 502)
    assert.equal(error.context.headers.get('x-relay-error'), 'true')
    assert.equal(error.context.headers.get('sb-error-code'), 'RELAY_ERROR')
  })
})

describe('the functions directory', () => {
  test('a function added or edited while the gateway runs is served without a restart', async () => {
    const dir = join(project, 'functions/added-later')
    mkdirSync(dir)
    writeFileSync(join(dir, 'index.ts'), `Deno.serve(() => new Response('first'))\n`)
    const first = await anonClient(gateway).functions.invoke('added-later')
    assert.equal(first.data, 'first')
    const served = async () =>
      Number((await anonClient(gateway).functions.invoke('echo', { body: 'x' })).response.headers.get('x-echo-served'))
    const echoBefore = await served()
    // mtimes have a coarse grain on some file systems.
    await new Promise((done) => setTimeout(done, 20))
    writeFileSync(join(dir, 'index.ts'), `Deno.serve(() => new Response('second'))\n`)
    // An edit is served within 250 ms of being saved (the host looks at the directory
    // again after that long, not on every request).
    await new Promise((done) => setTimeout(done, 300))
    const second = await anonClient(gateway).functions.invoke('added-later')
    assert.equal(second.data, 'second')
    assert.equal(await served(), echoBefore + 1, "another function's worker kept running")

    rmSync(dir, { recursive: true })
    await new Promise((done) => setTimeout(done, 300))
    const removed = await anonClient(gateway).functions.invoke('added-later')
    assert.equal(removed.response.status, 404)
  })

  test('the anon key is a valid JWT for verify_jwt, as on Supabase', async () => {
    const supabase = createClient(gateway.url, gateway.anonKey, options)
    const { error } = await supabase.functions.invoke('hello', { body: { name: 'anon' } })
    assert.equal(error, null)
  })
})

describe('CORS', () => {
  test('preflights are answered and x-relay-error is exposed', async () => {
    const response = await fetch(`${gateway.url}/functions/v1/hello`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example.com',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, x-client-info, apikey, content-type, x-region',
      },
    })
    assert.ok(response.ok, String(response.status))
    assert.equal(response.headers.get('access-control-allow-origin'), '*')
    const answered = await fetch(`${gateway.url}/functions/v1/nope`, {
      method: 'POST',
      headers: { Origin: 'https://app.example.com' },
    })
    assert.equal(answered.headers.get('access-control-allow-origin'), '*')
    const exposed = answered.headers.get('access-control-expose-headers').split(',').map((name) => name.trim())
    assert.ok(exposed.includes('x-relay-error'), exposed.join())
    assert.ok(exposed.includes('sb-error-code'), exposed.join())
  })
})
