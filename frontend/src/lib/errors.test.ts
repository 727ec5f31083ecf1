import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { authErrorMessage, databaseErrorMessage, isNetworkError, mentionsJwtOrSession } from './errors'

describe('auth/v1 errors in Spanish', () => {
  it.each([
    ['invalid_credentials', 'Correo o contraseña incorrectos.'],
    ['email_not_confirmed', 'Debes confirmar tu correo antes de iniciar sesión. Revisa tu bandeja de entrada.'],
    ['user_already_exists', 'Ya existe una cuenta con este correo. Inicia sesión o recupera tu contraseña.'],
    ['over_email_send_rate_limit', 'Se enviaron demasiados correos. Espera un momento antes de pedir otro.'],
    ['over_request_rate_limit', 'Demasiados intentos. Espera unos minutos e inténtalo de nuevo.'],
    ['same_password', 'La nueva contraseña debe ser distinta de la anterior.'],
    ['otp_expired', 'El enlace expiró o ya fue usado. Pide uno nuevo.'],
  ])('%s', (code, message) => {
    expect(authErrorMessage({ message: 'English text', code, status: 400, name: 'AuthApiError' })).toBe(message)
  })

  it('weak_password names the reasons', () => {
    expect(authErrorMessage({ message: 'weak', code: 'weak_password', name: 'AuthWeakPasswordError', reasons: ['length', 'pwned'] })).toBe(
      'La contraseña es demasiado débil: es demasiado corta, apareció en filtraciones conocidas.',
    )
    expect(authErrorMessage({ message: 'weak', code: 'weak_password' })).toBe('La contraseña es demasiado débil.')
  })

  it('network failures and unknown codes', () => {
    expect(authErrorMessage({ message: 'Failed to fetch', name: 'AuthRetryableFetchError', status: 0 })).toMatch(/Verifica tu conexión/)
    expect(authErrorMessage({ message: 'x', code: 'something_new', status: 429 })).toBe('Demasiados intentos. Espera unos minutos e inténtalo de nuevo.')
    expect(authErrorMessage({ message: 'x', status: 502 })).toBe('Ocurrió un error en el servidor. Inténtalo de nuevo.')
    expect(authErrorMessage({ message: 'x', code: 'something_new', status: 400 })).toBe('No se pudo completar la operación. Inténtalo de nuevo.')
  })
})

describe('database errors in Spanish', () => {
  it('PGRST116: one row asked for, none or several found', () => {
    expect(
      databaseErrorMessage({ code: 'PGRST116', message: 'JSON object requested, multiple (or no) rows returned', details: 'The result contains 0 rows', hint: null }),
    ).toBe('No se encontró el registro solicitado, o se encontró más de uno.')
  })

  it('product errors keep their Spanish message, details and hint', () => {
    expect(
      databaseErrorMessage({
        code: '23514',
        message: 'Alcanzaste el máximo de 2 cursos de la demo',
        details: 'La demo 2025 permite 2 cursos y ya tienes 2.',
        hint: 'Elimina un curso o pide más cupos al equipo de Cielo.',
      }),
    ).toBe('Alcanzaste el máximo de 2 cursos de la demo La demo 2025 permite 2 cursos y ya tienes 2. Elimina un curso o pide más cupos al equipo de Cielo.')
  })

  it('refusals PostgreSQL words itself read as the product says them', () => {
    expect(
      databaseErrorMessage({
        code: '23505',
        message: 'duplicate key value violates unique constraint "courses_unique_per_teacher_idx"',
        details: 'Key (teacher_id, ...)=(...) already exists.',
        hint: null,
      }),
    ).toBe('Ya tienes ese curso: el mismo nivel, letra y asignatura en este establecimiento.')
    expect(
      databaseErrorMessage({
        code: '23P01',
        message: 'conflicting key value violates exclusion constraint "schedule_blocks_no_overlap"',
        details: null,
        hint: null,
      }),
    ).toBe('Ese horario se cruza con otro bloque tuyo del mismo día.')
  })

  it('generic codes are translated, unknown ones get a generic message plus the hint', () => {
    expect(databaseErrorMessage({ code: '42501', message: 'permission denied for table x', details: null, hint: null })).toBe(
      'No tienes permiso para realizar esta acción.',
    )
    expect(databaseErrorMessage({ code: 'XX000', message: 'internal', details: null, hint: 'Inténtalo más tarde.' })).toBe(
      'No se pudo completar la operación con la base de datos. Inténtalo más tarde.',
    )
    expect(databaseErrorMessage({ code: '', message: 'TypeError: Failed to fetch', details: 'x', hint: '' })).toMatch(/Verifica tu conexión/)
  })

  it('recognises network failures and token errors', () => {
    expect(isNetworkError(new TypeError('Failed to fetch'))).toBe(true)
    expect(isNetworkError(new Error('boom'))).toBe(false)
    expect(mentionsJwtOrSession({ message: 'JWT expired', code: 'PGRST303', details: null, hint: null })).toBe(true)
    expect(mentionsJwtOrSession(new Error('Auth session missing!'))).toBe(true)
    expect(mentionsJwtOrSession(new Error('timeout'))).toBe(false)
  })
})

describe('check constraints of the teacher year', () => {
  const refusal = (constraint: string) =>
    databaseErrorMessage({
      code: '23514',
      message: `new row for relation "x" violates check constraint "${constraint}"`,
      details: 'Failing row contains (...).',
      hint: null,
    })

  it('read in Spanish, never in PostgreSQL’s words', () => {
    expect(refusal('school_days_valid_breaks')).toMatch(/^Revisa los recreos/)
    expect(refusal('class_sessions_reason_iff_cancelled')).toMatch(/necesita un motivo/)
    expect(refusal('some_future_check')).toBe('Los datos no cumplen una de las reglas de Cielo. Revísalos e inténtalo de nuevo.')
  })

  it('cover every named check and exclusion of the tables the year pages write', () => {
    const migrations = ['0026_courses_and_schedule.sql', '0035_school_day.sql'].map((name) =>
      // Vitest runs from frontend/.
      readFileSync(`${process.cwd()}/../sql/migrations/${name}`, 'utf8'),
    )
    const named = migrations.flatMap((sql) => [...sql.matchAll(/CONSTRAINT ([a-z_0-9]+) (?:CHECK|EXCLUDE)/g)].map((m) => m[1] ?? ''))
    expect(named.length).toBeGreaterThan(8)
    for (const constraint of named) expect(refusal(constraint), constraint).not.toMatch(/reglas de Cielo/)
  })
})
