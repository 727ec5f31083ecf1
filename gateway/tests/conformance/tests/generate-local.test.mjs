// supabase-js `functions.invoke('generate-plan')` against the real gateway with its embedded
// default: no AI_PROVIDER, a GGUF model at AI_MODEL_PATH run in-process by llama.cpp (the
// tests' SmolLM2-135M-Instruct, short zones so the suite stays fast). The plan's structure
// and Spanish skeleton, zones the editor stores, OA codes only the requested ones, stars
// charged exactly from the tokenizer's count, concurrent requests that cannot overspend a
// demo, an expired demo refused before the model runs, and an anonymous visitor (Supabase's
// anonymous sign-in) generating for free within the daily limit.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createClient, FunctionsHttpError } from '@supabase/supabase-js'
import { spawnGateway, testModelPath } from '../harness.mjs'
import { userToken } from '../support.mjs'

const TEACHER = '1e000000-0000-4000-8000-00000000001e'
const SCARCE = '1d000000-0000-4000-8000-00000000001d'
const EXPIRED = '1f000000-0000-4000-8000-00000000001f'
const EMAILS = { [TEACHER]: 'profe@liceo.cl', [SCARCE]: 'escasa@liceo.cl', [EXPIRED]: 'vencida@liceo.cl' }
const SCARCE_STARS = 3

const SETUP_SQL = `
  INSERT INTO auth.users (instance_id, id, aud, role, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
  SELECT '00000000-0000-0000-0000-000000000000', id::uuid, 'authenticated', 'authenticated', email, now(),
         '{"provider": "email", "providers": ["email"]}', '{}', now(), now()
    FROM (VALUES ${Object.entries(EMAILS).map(([id, email]) => `('${id}', '${email}')`).join(', ')}) AS u(id, email);
  INSERT INTO public.demo_users_2025 (user_id, total_stars, used_stars, demo_end_date) VALUES
    ('${TEACHER}', 100, 0, '2099-12-31'),
    ('${SCARCE}', ${SCARCE_STARS}, 0, '2099-12-31'),
    ('${EXPIRED}', 10, 0, '2020-12-31');
  UPDATE public.ai_allowance SET visitor_daily_generations = 1;
`

const PINNED = { level_code: '7B', subject_code: 'matematica', objective_codes: ['MA07 OA 03'], blocks: 2 }
const MODEL = 'smollm2-135m-instruct-q4_1'

let gateway
const options = { auth: { persistSession: false, autoRefreshToken: false } }
const as = (user) =>
  createClient(gateway.url, gateway.anonKey, { ...options, accessToken: async () => userToken(gateway, user, EMAILS[user]) })

function plainText(node) {
  return (node.text ?? '') + (node.content ?? []).map(plainText).join('')
}

async function account(user) {
  return gateway.admin(async (client) => {
    const { rows } = await client.query(
      `SELECT (SELECT used_stars FROM public.demo_users_2025 WHERE user_id = $1) AS used,
              (SELECT coalesce(sum(stars_charged), 0)::int FROM public.ai_usage_ledger WHERE user_id = $1) AS charged,
              (SELECT count(*)::int FROM public.ai_usage_ledger WHERE user_id = $1) AS entries`,
      [user],
    )
    return rows[0]
  })
}

before(async () => {
  const modelPath = await testModelPath()
  gateway = await spawnGateway({ AI_MODEL_PATH: modelPath, AI_ZONE_MAX_TOKENS: '16', ENABLE_ANONYMOUS_USERS: 'true' })
  await gateway.admin((client) => client.query(SETUP_SQL))
})

after(async () => {
  await gateway?.stop()
})

describe('generate-plan with the embedded model', () => {
  test('the model writes every zone of the skeleton; the tokens are charged exactly', async () => {
    const { data, error, response } = await as(TEACHER).functions.invoke('generate-plan', { body: PINNED })
    assert.equal(error, null)
    assert.equal(response.status, 200)
    assert.equal(data.source, 'model')
    assert.equal(data.model, MODEL)
    assert.equal(data.draft, true)
    assert.deepEqual(data.objective_codes, ['MA07 OA 03'])
    assert.deepEqual(
      data.zones.map((zone) => zone.zone_type),
      ['objetivo', 'inicio', 'desarrollo', 'cierre', 'evaluacion', 'recursos', 'adecuaciones', 'evaluacion'],
    )
    for (const zone of data.zones) {
      assert.equal(zone.content.type, 'doc')
      assert.ok(zone.content.content.length > 0)
    }
    // The Chilean structure comes from code, in Spanish, whatever the model writes.
    const objective = plainText(data.zones[0].content)
    assert.match(objective, /MA07 OA 03 Resolver problemas que involucren la multiplicación y la división de fracciones/)
    assert.match(plainText(data.zones[1].content), /Tiempo: 15 minutos \(de 90\)/)
    // Only the requested code, in any spelling the model might try.
    const codes = JSON.stringify(data.zones).match(/\b[A-Z]{2,4} ?-?\d{1,2} ?-?OA ?-?\d{1,2}\b/gi) ?? []
    assert.deepEqual([...new Set(codes)], ['MA07 OA 03'])

    const { prompt_tokens: prompt, completion_tokens: completion, stars_charged: stars } = data.usage
    assert.ok(prompt > 8 * 50, `eight prompts carrying the curriculum: ${prompt}`)
    assert.ok(completion >= 1 && completion <= 8 * 16, `${completion}`)
    assert.equal(stars, Math.ceil((prompt + completion) / 515))
    assert.deepEqual(await account(TEACHER), { used: stars, charged: stars, entries: 1 })

    // The editor stores what was generated.
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
      } finally {
        await client.query('ROLLBACK')
      }
    })
  })

  test('concurrent requests cannot spend more stars than the demo has', async () => {
    const results = await Promise.all(
      [1, 2, 3].map(() => as(SCARCE).functions.invoke('generate-plan', { body: { ...PINNED, blocks: 1 } })),
    )
    let charged = 0
    let refused = 0
    for (const result of results) {
      if (result.error) {
        assert.ok(result.error instanceof FunctionsHttpError)
        assert.equal(result.response.status, 402)
        assert.equal((await result.error.context.json()).code, 'stars_exhausted')
        refused++
      } else {
        charged += result.data.usage.stars_charged
      }
    }
    const after = await account(SCARCE)
    assert.equal(after.used, SCARCE_STARS, 'the balance is spent, never more')
    assert.equal(after.charged, charged, 'answers say what was taken')
    assert.ok(refused >= 1, 'a plan costs more than one star: not all three can be paid')

    // Nothing left: refused before the model runs.
    const again = await as(SCARCE).functions.invoke('generate-plan', { body: PINNED })
    assert.equal(again.response.status, 402)
  })

  test('an expired demo is refused before the model runs', async () => {
    const result = await as(EXPIRED).functions.invoke('generate-plan', { body: PINNED })
    assert.ok(result.error instanceof FunctionsHttpError)
    assert.equal(result.response.status, 403)
    assert.equal((await result.error.context.json()).code, 'demo_expired')
    assert.deepEqual(await account(EXPIRED), { used: 0, charged: 0, entries: 0 })
  })

  test('an anonymous visitor generates for free, within the daily limit', async () => {
    const visitor = createClient(gateway.url, gateway.anonKey, options)
    const { data: signIn, error: signInError } = await visitor.auth.signInAnonymously()
    assert.equal(signInError, null)
    assert.equal(signIn.user.is_anonymous, true)

    const first = await visitor.functions.invoke('generate-plan', { body: PINNED })
    assert.equal(first.error, null)
    assert.equal(first.data.source, 'model')
    assert.equal(first.data.usage.stars_charged, 0)
    assert.ok(first.data.usage.completion_tokens > 0)

    const second = await visitor.functions.invoke('generate-plan', { body: PINNED })
    assert.ok(second.error instanceof FunctionsHttpError)
    assert.equal(second.response.status, 429)
    assert.equal((await second.error.context.json()).code, 'visitor_limit')
    assert.deepEqual(await account(signIn.user.id), { used: null, charged: 0, entries: 1 })
  })
})
