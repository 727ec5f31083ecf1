// supabase-js against the product's data model: the calls the spec lists (section 7) exactly
// as the app makes them, through rest/v1 with RLS, as each kind of user.
//
// Users are created directly in auth.users and their tokens signed with the test JWT secret,
// as GoTrue would issue them; nothing relies on the demo seed.

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createClient } from '@supabase/supabase-js'
import { spawnGateway } from '../harness.mjs'
import { assertError, assertOk, userToken } from '../support.mjs'

const TEACHER_A = '0a000000-0000-4000-8000-00000000000a'
const TEACHER_B = '0b000000-0000-4000-8000-00000000000b'
const ADMIN = '0ad00000-0000-4000-8000-0000000000ad'
const CREATOR = '0cc00000-0000-4000-8000-0000000000cc'
const EMAILS = {
  [TEACHER_A]: 'ana@liceo.cl',
  [TEACHER_B]: 'beto@escuela.cl',
  [ADMIN]: 'admin@cielo.cl',
  [CREATOR]: 'creadora@cielo.cl',
}

const SETUP_SQL = `
  INSERT INTO auth.users (instance_id, id, aud, role, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
  SELECT '00000000-0000-0000-0000-000000000000', id::uuid, 'authenticated', 'authenticated', email, now(),
         '{"provider": "email", "providers": ["email"]}', '{}', now(), now()
    FROM (VALUES ${Object.entries(EMAILS).map(([id, email]) => `('${id}', '${email}')`).join(', ')}) AS u(id, email);
  INSERT INTO public.user_roles (user_id, role) VALUES ('${ADMIN}', 'admin'), ('${CREATOR}', 'content_creator');
  INSERT INTO public.demo_users_2025 (user_id, total_stars, used_stars, demo_end_date, max_courses)
  VALUES ('${TEACHER_A}', 500, 410, '2099-12-31', 2);
  INSERT INTO public.admin_alerts (severity, title, is_resolved) VALUES
    ('critical', 'Base de datos caída', false), ('error', 'Fallo de IA', false), ('error', 'Correo rebotado', true),
    ('warning', 'Disco al 80 %', false), ('info', 'Respaldo listo', false);
`

let gateway
const options = { auth: { persistSession: false, autoRefreshToken: false } }
const as = (user) =>
  createClient(gateway.url, gateway.anonKey, { ...options, accessToken: async () => userToken(gateway, user, EMAILS[user]) })
const anon = () => createClient(gateway.url, gateway.anonKey, options)
const service = () => createClient(gateway.url, gateway.serviceRoleKey, options)

before(async () => {
  gateway = await spawnGateway()
  await gateway.admin((client) => client.query(SETUP_SQL))
})

after(async () => {
  await gateway?.stop()
})

describe('profiles (select profiles, filter user_id, single or none)', () => {
  test('maybeSingle() is null before onboarding, the row after', async () => {
    const ana = as(TEACHER_A)
    assertOk(await ana.from('profiles').select('*').eq('user_id', TEACHER_A).maybeSingle(), null)
    const created = await ana
      .from('profiles')
      .insert({ user_id: TEACHER_A, first_name: 'Ana', last_name: 'Pérez', how_found_us: 'Un colega', school_rbd: 8485 })
    assertOk(created, null, { status: 201, statusText: 'Created' })
    const result = await ana
      .from('profiles')
      .select('user_id, first_name, last_name, how_found_us, school_rbd, encrypted_phone, is_complete')
      .eq('user_id', TEACHER_A)
      .maybeSingle()
    assertOk(result, {
      user_id: TEACHER_A,
      first_name: 'Ana',
      last_name: 'Pérez',
      how_found_us: 'Un colega',
      school_rbd: 8485,
      encrypted_phone: null,
      is_complete: true,
    })
  })

  test('another user gets null for it, not an error', async () => {
    assertOk(await as(TEACHER_B).from('profiles').select('*').eq('user_id', TEACHER_A).maybeSingle(), null)
  })

  test('a profile cannot be written for someone else', async () => {
    const result = await as(TEACHER_B).from('profiles').insert({ user_id: TEACHER_A, first_name: 'Intruso' })
    assertError(
      result,
      { code: '42501', details: null, hint: null, message: 'new row violates row-level security policy for table "profiles"' },
      403,
    )
  })

  test('the phone is stored encrypted by set_phone and read back with decrypt_phone', async () => {
    const ana = as(TEACHER_A)
    assertOk(await ana.rpc('set_phone', { phone: '+56 9 8765 4321' }), null, { status: 204 })
    const { data: profile } = await ana.from('profiles').select('encrypted_phone').eq('user_id', TEACHER_A).single()
    assert.match(profile.encrypted_phone, /^[A-Za-z0-9+/]+=*$/)
    assert.ok(!profile.encrypted_phone.includes('8765'))
    assertOk(await ana.rpc('decrypt_phone', { encrypted_phone: profile.encrypted_phone }), '+56987654321')
    assertOk(await as(ADMIN).rpc('decrypt_phone', { encrypted_phone: profile.encrypted_phone }), '+56987654321')
    assertError(
      await as(TEACHER_B).rpc('decrypt_phone', { encrypted_phone: profile.encrypted_phone }),
      { code: '42501', details: null, hint: null, message: 'No puedes descifrar este teléfono' },
      403,
    )
    const badPhone = await ana.rpc('set_phone', { phone: '123' })
    assert.equal(badPhone.error.code, '22023')
    assert.equal(badPhone.error.hint, 'Usa el formato +56 9 1234 5678.')
  })
})

describe('schools (select school, filter RBD)', () => {
  test('a signed-in user finds a school by RBD', async () => {
    const result = await as(TEACHER_A).from('schools').select('RBD, NOM_RBD, comuna, dependencia').eq('RBD', 8485).single()
    assertOk(result, { RBD: 8485, NOM_RBD: 'LICEO INSTITUTO NACIONAL', comuna: 'Santiago', dependencia: 'Municipal' })
  })

  test('the profile embeds its school (sidebar header)', async () => {
    const result = await as(TEACHER_A).from('profiles').select('first_name, schools(NOM_RBD)').eq('user_id', TEACHER_A).single()
    assertOk(result, { first_name: 'Ana', schools: { NOM_RBD: 'LICEO INSTITUTO NACIONAL' } })
  })

  test('anon sees no schools', async () => {
    assertOk(await anon().from('schools').select('RBD').eq('RBD', 8485), [])
  })
})

describe('roles (function is_admin, function is_content_creator)', () => {
  test('rpc(is_admin) answers for the caller', async () => {
    assertOk(await as(ADMIN).rpc('is_admin'), true)
    assertOk(await as(TEACHER_A).rpc('is_admin'), false)
    assertOk(await as(CREATOR).rpc('is_admin'), false)
    assertOk(await anon().rpc('is_admin'), false)
  })

  test('rpc(is_content_creator) answers for the caller', async () => {
    assertOk(await as(CREATOR).rpc('is_content_creator'), true)
    assertOk(await as(ADMIN).rpc('is_content_creator'), false)
    assertOk(await as(TEACHER_A).rpc('is_content_creator'), false)
  })

  test('a user cannot make herself admin', async () => {
    const result = await as(TEACHER_A).from('user_roles').insert({ user_id: TEACHER_A, role: 'admin' })
    assert.equal(result.error.code, '42501')
    assert.equal(result.status, 403)
    assertOk(await as(TEACHER_A).rpc('is_admin'), false)
  })
})

describe('demo_users_2025 (select, filter user_id)', () => {
  test('a demo user reads her row', async () => {
    const result = await as(TEACHER_A)
      .from('demo_users_2025')
      .select('user_id, total_stars, used_stars, demo_end_date, max_courses, is_active')
      .eq('user_id', TEACHER_A)
      .maybeSingle()
    assertOk(result, {
      user_id: TEACHER_A,
      total_stars: 500,
      used_stars: 410,
      demo_end_date: '2099-12-31',
      max_courses: 2,
      is_active: true,
    })
  })

  test('others get null: no demo row, or not theirs to read', async () => {
    assertOk(await as(TEACHER_B).from('demo_users_2025').select('*').eq('user_id', TEACHER_B).maybeSingle(), null)
    assertOk(await as(TEACHER_B).from('demo_users_2025').select('*').eq('user_id', TEACHER_A).maybeSingle(), null)
  })

  test('the derived stars view', async () => {
    assertOk(await as(TEACHER_A).from('demo_stars').select('is_demo_user, is_expired, remaining_stars, usage_percentage').single(), {
      is_demo_user: true,
      is_expired: false,
      remaining_stars: 90,
      usage_percentage: 82,
    })
  })

  test('a user cannot give herself stars', async () => {
    assertOk(await as(TEACHER_A).from('demo_users_2025').update({ used_stars: 0 }).eq('user_id', TEACHER_A).select('used_stars'), [])
  })

  test('spending stars is atomic and capped at the total (service_role)', async () => {
    const spend = (requestId, tokens) =>
      service().rpc('record_ai_usage', {
        user_id: TEACHER_A,
        request_id: requestId,
        feature: 'plan_simple',
        prompt_tokens: tokens,
        completion_tokens: 0,
      })
    const first = await spend('js-1', 515 * 100)
    assert.equal(first.error, null)
    assert.deepEqual([first.data.stars_cost, first.data.stars_charged], [100, 90])
    assertError(
      await spend('js-2', 10),
      {
        code: 'PT402',
        details: 'No se puede generar más contenido con IA hasta que se renueve el período de demostración.',
        hint: null,
        message: 'Estrellas Cielo agotadas',
      },
      402,
    )
    assertOk(await as(TEACHER_A).from('demo_stars').select('remaining_stars, usage_percentage').single(), {
      remaining_stars: 0,
      usage_percentage: 100,
    })
    const byUser = await as(TEACHER_A).rpc('record_ai_usage', {
      user_id: TEACHER_A, request_id: 'js-3', feature: 'zona', prompt_tokens: 1, completion_tokens: 0,
    })
    assert.equal(byUser.error.code, '42501')
  })
})

describe('admin_alerts (count unresolved error/critical, admins only)', () => {
  const countUnresolved = (client) =>
    client
      .from('admin_alerts')
      .select('*', { count: 'exact', head: true })
      .eq('is_resolved', false)
      .in('severity', ['error', 'critical'])

  test('an admin gets the badge count with head and an exact count', async () => {
    assertOk(await countUnresolved(as(ADMIN)), null, { count: 2 })
  })

  test('non-admins count nothing', async () => {
    assertOk(await countUnresolved(as(TEACHER_A)), null, { count: 0 })
    assertOk(await countUnresolved(as(CREATOR)), null, { count: 0 })
    assertOk(await countUnresolved(anon()), null, { count: 0 })
  })

  test('resolving is recorded by the database', async () => {
    const result = await as(ADMIN)
      .from('admin_alerts')
      .update({ is_resolved: true })
      .eq('title', 'Fallo de IA')
      .select('is_resolved, resolved_by')
      .single()
    assertOk(result, { is_resolved: true, resolved_by: ADMIN })
    assertOk(await countUnresolved(as(ADMIN)), null, { count: 1 })
  })
})

describe('courses (select, filter teacher_id, limit 1, with count)', () => {
  test('the onboarding check: no course yet', async () => {
    assertOk(await as(TEACHER_A).from('courses').select('*', { count: 'exact' }).eq('teacher_id', TEACHER_A).limit(1), [], { count: 0 })
  })

  test('with courses: one row and the exact count', async () => {
    const ana = as(TEACHER_A)
    const created = await ana.from('courses').insert([
      { level_code: '7B', letter: 'A', subject_code: 'matematica', students_count: 38 },
      { level_code: '8B', letter: 'B', subject_code: 'matematica' },
    ])
    assertOk(created, null, { status: 201, statusText: 'Created' })
    const result = await ana.from('courses').select('teacher_id, school_rbd, academic_year', { count: 'exact' }).eq('teacher_id', TEACHER_A).limit(1)
    assertOk(result, [{ teacher_id: TEACHER_A, school_rbd: 8485, academic_year: 2025 }], { status: 206, count: 2 })
  })

  test('a demo user cannot go past max_courses', async () => {
    const result = await as(TEACHER_A).from('courses').insert({ level_code: '1M', letter: 'A', subject_code: 'matematica' })
    assertError(
      result,
      {
        code: '23514',
        details: 'La demo 2025 permite 2 cursos y ya tienes 2.',
        hint: 'Elimina un curso o pide más cupos al equipo de Cielo.',
        message: 'Alcanzaste el máximo de 2 cursos de la demo',
      },
      400,
    )
  })

  test('another teacher neither sees nor counts them', async () => {
    assertOk(await as(TEACHER_B).from('courses').select('*', { count: 'exact' }).eq('teacher_id', TEACHER_A).limit(1), [], { count: 0 })
    assertOk(await as(TEACHER_B).from('courses').update({ letter: 'Z' }).eq('teacher_id', TEACHER_A).select('id'), [])
  })

  test('a subject must be taught at the level', async () => {
    const result = await as(TEACHER_B).from('courses').insert({ level_code: '1B', letter: 'A', subject_code: 'filosofia' })
    assert.equal(result.error.code, '23503')
    assert.equal(result.status, 409)
  })
})

describe('security_audit_log (one insert per event)', () => {
  test('a signed-in user inserts an entry', async () => {
    const result = await as(TEACHER_A).from('security_audit_log').insert({
      action: 'logger_error',
      resource_type: 'system',
      new_values: { message: 'Error inesperado', password: 'hunter2', user: { email: 'ana@liceo.cl' } },
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
    })
    assertOk(result, null, { status: 201, statusText: 'Created' })
  })

  test('but cannot read it back', async () => {
    const result = await as(TEACHER_A)
      .from('security_audit_log')
      .insert({ action: 'logger_warn', resource_type: 'system' })
      .select()
    assertError(
      result,
      { code: '42501', details: null, hint: null, message: 'new row violates row-level security policy for table "security_audit_log"' },
      403,
    )
    assertOk(await as(TEACHER_A).from('security_audit_log').select('id'), [])
  })

  test('actions must start with logger_', async () => {
    const result = await as(TEACHER_A).from('security_audit_log').insert({ action: 'login', resource_type: 'system' })
    assert.equal(result.error.code, '23514')
    assert.equal(result.status, 400)
  })

  test('anon cannot write the log', async () => {
    const result = await anon().from('security_audit_log').insert({ action: 'logger_error', resource_type: 'system' })
    assert.equal(result.error.code, '42501')
    assert.equal(result.status, 401)
  })

  test('an admin reads it, sanitized and attributed by the database', async () => {
    const result = await as(ADMIN).from('security_audit_log').select('user_id, action, resource_type, new_values, user_agent')
    assertOk(result, [
      {
        user_id: TEACHER_A,
        action: 'logger_error',
        resource_type: 'system',
        new_values: { message: 'Error inesperado', password: '[REDACTED]', user: { email: '[REDACTED]' } },
        user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
      },
    ])
  })

  test("without a user_agent, the request's own is recorded", async () => {
    const inserted = await as(TEACHER_B).from('security_audit_log').insert({ action: 'logger_info', resource_type: 'system' })
    assertOk(inserted, null, { status: 201, statusText: 'Created' })
    const { data, error } = await as(ADMIN).from('security_audit_log').select('user_id, user_agent').eq('action', 'logger_info').single()
    assert.equal(error, null)
    assert.equal(data.user_id, TEACHER_B)
    assert.equal(typeof data.user_agent, 'string')
    assert.ok(data.user_agent.length > 0)
  })
})
