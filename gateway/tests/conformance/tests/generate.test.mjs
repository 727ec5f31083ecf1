// supabase-js `functions.invoke('generate-plan')` against the real gateway with no model
// configured (AI_PROVIDER=none): the curriculum skeleton of the pinned contract, the
// refusals (unknown or mismatched OA, no session, expired demo, bad bodies), and nothing
// charged.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createClient, FunctionsHttpError } from '@supabase/supabase-js'
import { spawnGateway } from '../harness.mjs'
import { userToken } from '../support.mjs'

const TEACHER = '0e000000-0000-4000-8000-00000000000e'
const DEMO = '0d000000-0000-4000-8000-00000000000d'
const EXPIRED = '0f000000-0000-4000-8000-00000000000f'
const EMAILS = { [TEACHER]: 'profe@liceo.cl', [DEMO]: 'demo@liceo.cl', [EXPIRED]: 'vencida@liceo.cl' }

const SETUP_SQL = `
  INSERT INTO auth.users (instance_id, id, aud, role, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
  SELECT '00000000-0000-0000-0000-000000000000', id::uuid, 'authenticated', 'authenticated', email, now(),
         '{"provider": "email", "providers": ["email"]}', '{}', now(), now()
    FROM (VALUES ${Object.entries(EMAILS).map(([id, email]) => `('${id}', '${email}')`).join(', ')}) AS u(id, email);
  INSERT INTO public.demo_users_2025 (user_id, total_stars, used_stars, demo_end_date) VALUES
    ('${DEMO}', 10, 0, '2099-12-31'),
    ('${EXPIRED}', 10, 0, '2020-12-31');
`

const PINNED = { level_code: '7B', subject_code: 'matematica', objective_codes: ['MA07 OA 03'], blocks: 2 }

const ZONES = [
  ['objetivo', 'Objetivo de la clase'],
  ['inicio', 'Inicio'],
  ['desarrollo', 'Desarrollo'],
  ['cierre', 'Cierre'],
  ['evaluacion', 'Evaluación formativa'],
  ['recursos', 'Recursos'],
  ['adecuaciones', 'Adecuaciones (PIE/DUA)'],
  ['evaluacion', 'Indicadores de evaluación'],
]

let gateway
const options = { auth: { persistSession: false, autoRefreshToken: false } }
const as = (user) =>
  createClient(gateway.url, gateway.anonKey, { ...options, accessToken: async () => userToken(gateway, user, EMAILS[user]) })

/** Every text of an editor document, concatenated. */
function plainText(node) {
  return (node.text ?? '') + (node.content ?? []).map(plainText).join('')
}

/** Asserts a refusal: FunctionsHttpError with this status and body code. */
async function assertRefused(result, status, code) {
  assert.ok(result.error instanceof FunctionsHttpError, `expected FunctionsHttpError, got ${result.error}`)
  assert.equal(result.response.status, status)
  const body = await result.error.context.json()
  assert.equal(body.code, code)
  assert.equal(typeof body.message, 'string')
  assert.ok(body.message.length > 0)
  return body
}

async function ledger() {
  return gateway.admin(async (client) => {
    const { rows } = await client.query(
      'SELECT (SELECT count(*)::int FROM public.ai_usage_ledger) AS entries, (SELECT sum(used_stars)::int FROM public.demo_users_2025) AS used',
    )
    return rows[0]
  })
}

before(async () => {
  gateway = await spawnGateway({ AI_PROVIDER: 'none' })
  await gateway.admin((client) => client.query(SETUP_SQL))
})

after(async () => {
  await gateway?.stop()
})

describe('generate-plan without a model', () => {
  test('the pinned request answers the curriculum skeleton, every zone, nothing charged', async () => {
    const { data, error, response } = await as(DEMO).functions.invoke('generate-plan', { body: PINNED })
    assert.equal(error, null)
    assert.equal(response.status, 200)
    assert.deepEqual(data.objective_codes, ['MA07 OA 03'])
    assert.deepEqual(data.usage, { prompt_tokens: 0, completion_tokens: 0, stars_charged: 0 })
    assert.equal(data.model, null)
    assert.equal(data.draft, true)
    assert.equal(data.source, 'skeleton')
    assert.deepEqual(
      data.zones.map((zone) => [zone.zone_type, zone.title]),
      ZONES,
    )
    for (const zone of data.zones) {
      assert.deepEqual(Object.keys(zone).sort(), ['content', 'title', 'zone_type'])
      assert.equal(zone.content.type, 'doc')
      assert.ok(Array.isArray(zone.content.content) && zone.content.content.length > 0)
      assert.match(plainText(zone.content), /\[Por completar\]/)
    }
    const objective = plainText(data.zones[0].content)
    assert.match(objective, /7° Básico · Matemática · 2 bloques de 45 minutos \(90 minutos\)/)
    assert.match(objective, /MA07 OA 03 Resolver problemas que involucren la multiplicación y la división de fracciones/)
    assert.match(objective, /Eje: Números/)
    assert.match(plainText(data.zones[1].content), /Tiempo: 15 minutos \(de 90\)/)
    assert.match(plainText(data.zones[2].content), /Tiempo: 60 minutos \(de 90\)/)
    assert.match(plainText(data.zones[3].content), /Tiempo: 15 minutos \(de 90\)/)
    // The only OA codes anywhere are the requested ones.
    const codes = JSON.stringify(data.zones).match(/[A-Z]{2}\d{2} OA \d{2}/g)
    assert.deepEqual([...new Set(codes)], ['MA07 OA 03'])
    assert.deepEqual(await ledger(), { entries: 0, used: 0 })
  })

  test('the zones are stored as they come: plan_zones accepts every one', async () => {
    const { data } = await as(TEACHER).functions.invoke('generate-plan', {
      body: { ...PINNED, objective_codes: ['MA07 OA 03', 'MA07 OA 01'], blocks: 1, course: '7° A', class_title: 'Fracciones' },
    })
    assert.deepEqual(data.objective_codes, ['MA07 OA 03', 'MA07 OA 01'])
    assert.match(plainText(data.zones[0].content), /Curso: 7° A/)
    assert.match(plainText(data.zones[1].content), /Tiempo: 10 minutos \(de 45\)/)
    await gateway.admin(async (client) => {
      await client.query('BEGIN')
      try {
        const { rows: [{ id: course }] } = await client.query(
          `INSERT INTO public.courses (teacher_id, level_code, letter, subject_code)
           VALUES ($1, '7B', 'A', 'matematica') RETURNING id`, [TEACHER])
        const { rows: [{ id: plan }] } = await client.query(
          `INSERT INTO public.plans (teacher_id, course_id, title) VALUES ($1, $2, 'Fracciones') RETURNING id`, [TEACHER, course])
        const { rows: [{ id: planClass }] } = await client.query('SELECT id FROM public.plan_classes WHERE plan_id = $1', [plan])
        for (const [index, zone] of data.zones.entries()) {
          await client.query(
            `INSERT INTO public.plan_zones (plan_class_id, teacher_id, zone_type, position, title, content)
             VALUES ($1, $2, $3, $4, $5, $6)`,
            [planClass, TEACHER, zone.zone_type, index + 1, zone.title, zone.content],
          )
        }
        const { rows } = await client.query('SELECT count(*)::int AS zones, min(content_length) AS shortest FROM public.plan_zones WHERE plan_class_id = $1', [planClass])
        assert.equal(rows[0].zones, 8)
        assert.ok(rows[0].shortest > 0)
      } finally {
        await client.query('ROLLBACK')
      }
    })
  })

  test('a streaming client gets the skeleton, then done with the same answer', async () => {
    const response = await fetch(`${gateway.url}/functions/v1/generate-plan`, {
      method: 'POST',
      headers: {
        apikey: gateway.anonKey,
        authorization: `Bearer ${userToken(gateway, TEACHER, EMAILS[TEACHER])}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify(PINNED),
    })
    assert.equal(response.status, 200)
    assert.match(response.headers.get('content-type'), /^text\/event-stream/)
    const text = await response.text()
    const events = text.trim().split('\n\n').map((frame) => {
      const [, event] = /^event: (.*)$/m.exec(frame)
      const [, data] = /^data: (.*)$/m.exec(frame)
      return { event, data: JSON.parse(data) }
    })
    assert.deepEqual(events.map((e) => e.event), ['skeleton', 'done'])
    assert.deepEqual(events[0].data.zones, events[1].data.zones)
    assert.deepEqual(events[1].data.objective_codes, ['MA07 OA 03'])
    assert.equal(events[1].data.usage.stars_charged, 0)
  })

  test('an OA that does not exist is unknown_objective', async () => {
    const body = await assertRefused(
      await as(TEACHER).functions.invoke('generate-plan', { body: { ...PINNED, objective_codes: ['MA07 OA 99'] } }),
      400,
      'unknown_objective',
    )
    assert.match(body.message, /MA07 OA 99/)
  })

  test('an OA of another level or subject is unknown_objective', async () => {
    await assertRefused(
      await as(TEACHER).functions.invoke('generate-plan', { body: { ...PINNED, objective_codes: ['MA08 OA 01'] } }),
      400,
      'unknown_objective',
    )
    await assertRefused(
      await as(TEACHER).functions.invoke('generate-plan', { body: { ...PINNED, objective_codes: ['MA07 OA 03', 'LE07 OA 01'] } }),
      400,
      'unknown_objective',
    )
    await assertRefused(
      await as(TEACHER).functions.invoke('generate-plan', { body: { ...PINNED, subject_code: 'lengua_y_literatura' } }),
      400,
      'unknown_objective',
    )
  })

  test('without a user session it is 401', async () => {
    const anon = createClient(gateway.url, gateway.anonKey, options)
    const result = await anon.functions.invoke('generate-plan', { body: PINNED })
    assert.ok(result.error instanceof FunctionsHttpError)
    assert.equal(result.response.status, 401)
    const service = createClient(gateway.url, gateway.serviceRoleKey, options)
    await assertRefused(await service.functions.invoke('generate-plan', { body: PINNED }), 401, 'not_authenticated')
  })

  test('an expired demo is demo_expired', async () => {
    await assertRefused(await as(EXPIRED).functions.invoke('generate-plan', { body: PINNED }), 403, 'demo_expired')
  })

  test('malformed and oversized bodies are invalid_request', async () => {
    const client = as(TEACHER)
    await assertRefused(await client.functions.invoke('generate-plan', { body: 'not json' }), 400, 'invalid_request')
    await assertRefused(await client.functions.invoke('generate-plan', { body: { ...PINNED, blocks: 0 } }), 400, 'invalid_request')
    await assertRefused(await client.functions.invoke('generate-plan', { body: { ...PINNED, objective_codes: [] } }), 400, 'invalid_request')
    await assertRefused(await client.functions.invoke('generate-plan', { body: { ...PINNED, level_code: '13B' } }), 400, 'invalid_request')
    await assertRefused(
      await client.functions.invoke('generate-plan', { body: { ...PINNED, notes: 'x'.repeat(20_000) } }),
      400,
      'invalid_request',
    )
  })

  test('nothing was charged by any of these', async () => {
    assert.deepEqual(await ledger(), { entries: 0, used: 0 })
  })
})
