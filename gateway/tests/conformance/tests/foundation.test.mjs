// supabase-js against the foundation of the stack: keys, the API gateway's answers,
// functions' error contract, and auth's local session handling.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createClient } from '@supabase/supabase-js'
import { FunctionsHttpError } from '@supabase/supabase-js'
import { spawnGateway } from '../harness.mjs'

let gateway

before(async () => {
  gateway = await spawnGateway()
})

after(async () => {
  await gateway?.stop()
})

const options = { auth: { persistSession: false, autoRefreshToken: false } }

describe('keys', () => {
  test('the anon key reaches rest/v1 through supabase-js fetch', async () => {
    const supabase = createClient(gateway.url, gateway.anonKey, options)
    const rest = supabase.schema('public')
    const response = await rest.fetch(`${gateway.url}/rest/v1/`)
    assert.equal(response.status, 200)
    const document = await response.json()
    assert.equal(document.swagger, '2.0')
  })

  test('the publishable and secret keys are accepted like on Supabase', async () => {
    for (const key of [gateway.publishableKey, gateway.secretKey]) {
      const supabase = createClient(gateway.url, key, options)
      const response = await supabase.schema('public').fetch(`${gateway.url}/rest/v1/`)
      assert.equal(response.status, 200, key.slice(0, 16))
    }
  })

  test('a wrong key gets the gateway refusal as a PostgrestError', async () => {
    const supabase = createClient(gateway.url, 'not-a-project-key', options)
    const { data, error, status } = await supabase.from('cursos').select('*')
    assert.equal(data, null)
    assert.equal(status, 401)
    assert.equal(error.message, 'Invalid API key')
    assert.equal(error.hint, 'Double check your Supabase `anon` or `service_role` API key.')
  })
})

describe('rest/v1', () => {
  test('an unknown table answers in PostgREST error shape', async () => {
    const supabase = createClient(gateway.url, gateway.anonKey, options)
    const { data, error, status } = await supabase.from('cursos').select('*')
    assert.equal(data, null)
    assert.equal(status, 404)
    assert.equal(error.code, 'PGRST205')
    assert.equal(error.message, "Could not find the table 'public.cursos' in the schema cache")
    // 'cursos' is too far from 'courses' (similarity below PostgREST's 0.75) for a hint.
    assert.equal(error.hint, null)
  })
})

describe('functions/v1', () => {
  test('an unknown function is a FunctionsHttpError with the runtime body', async () => {
    const supabase = createClient(gateway.url, gateway.anonKey, options)
    const { data, error } = await supabase.functions.invoke('generar-planificacion', {
      body: { curso: '1° Básico' },
    })
    assert.equal(data, null)
    assert.ok(error instanceof FunctionsHttpError, error?.name)
    assert.equal(error.context.status, 404)
    assert.equal(error.context.headers.get('sb-error-code'), 'NOT_FOUND')
    assert.deepEqual(await error.context.json(), {
      code: 'NOT_FOUND',
      message: 'Requested function was not found',
    })
  })
})

describe('auth/v1', () => {
  test('a fresh client has no session and signs out cleanly', async () => {
    const supabase = createClient(gateway.url, gateway.anonKey, options)
    const { data, error } = await supabase.auth.getSession()
    assert.equal(error, null)
    assert.equal(data.session, null)
    const signOut = await supabase.auth.signOut({ scope: 'local' })
    assert.equal(signOut.error, null)
  })

  test('the health endpoint answers like GoTrue', async () => {
    const response = await fetch(`${gateway.url}/auth/v1/health`)
    assert.equal(response.status, 200)
    const body = await response.json()
    assert.equal(body.name, 'GoTrue')
  })
})
