/**
 * Turns the errors the app meets into Spanish (Chile) messages, in one place: network
 * failures, rest/v1 (PostgREST) database errors and auth/v1 (GoTrue) errors by code.
 */

/** The shape of a rest/v1 error as supabase-js gives it (spec section 8). */
export interface DatabaseErrorLike {
  message: string
  details?: string | null
  hint?: string | null
  code?: string
}

export function isDatabaseError(error: unknown): error is DatabaseErrorLike {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { message?: unknown }).message === 'string' &&
    'code' in error &&
    ('details' in error || 'hint' in error)
  )
}

/** A request that never got an answer (offline, DNS, refused, CORS): fetch's TypeError. */
export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error) && !isDatabaseError(error)) return false
  const name = error instanceof Error ? error.name : ''
  const message = error.message
  if (name === 'AuthRetryableFetchError') return true
  return /failed to fetch|networkerror|network request failed|load failed|fetch failed/i.test(message)
}

const DATABASE_MESSAGES: Record<string, string> = {
  PGRST116: 'No se encontró el registro solicitado, o se encontró más de uno.',
  PGRST301: 'Tu sesión no es válida. Inicia sesión de nuevo.',
  PGRST303: 'Tu sesión expiró. Inicia sesión de nuevo.',
  PGRST000: 'El servicio de datos no está disponible. Inténtalo en unos minutos.',
  PGRST001: 'El servicio de datos no está disponible. Inténtalo en unos minutos.',
  PGRST002: 'El servicio de datos se está iniciando. Inténtalo en unos segundos.',
  '42501': 'No tienes permiso para realizar esta acción.',
  '23505': 'Ya existe un registro con esos datos.',
  '23503': 'Los datos hacen referencia a algo que no existe.',
  '23502': 'Falta un dato obligatorio.',
  '57014': 'La operación tardó demasiado. Inténtalo de nuevo.',
  '23514': 'Los datos no cumplen una de las reglas de Cielo. Revísalos e inténtalo de nuevo.',
  PT402: 'Estrellas Cielo agotadas.',
}

/**
 * Refusals PostgreSQL words itself (unique, exclusion and foreign-key constraints), by the
 * product's constraint names, as a teacher should read them.
 */
const CONSTRAINT_MESSAGES: Record<string, string> = {
  courses_unique_per_teacher_idx:
    'Ya tienes ese curso: el mismo nivel, letra y asignatura en este establecimiento.',
  courses_level_subject_fkey: 'Esa asignatura no se imparte en ese nivel.',
  schedule_blocks_no_overlap: 'Ese horario se cruza con otro bloque tuyo del mismo día.',
  class_sessions_no_overlap: 'Esa clase se cruza con otra clase tuya a la misma hora.',
  plan_classes_class_session_id_key: 'Una de esas clases del calendario ya tiene su planificación.',
  plans_class_count_matches_kind: 'Una unidad tiene de 2 a 40 clases.',
  // Checks the forms apply before saving; these words are for a request that skipped them.
  courses_letter_check: 'La letra del curso es una sola letra mayúscula (A–Z).',
  courses_students_count_check: 'Un curso tiene de 1 a 60 estudiantes.',
  courses_color_check: 'El color del curso no es válido.',
  courses_academic_year_check: 'El año escolar no es válido.',
  schedule_blocks_weekday_check: 'El bloque debe ir de lunes a sábado.',
  schedule_blocks_start_time_check: 'Los bloques empiezan a las 07:00 o después.',
  schedule_blocks_pedagogical_hours_check: 'Un bloque dura de 1 a 4 horas pedagógicas.',
  schedule_blocks_ends_by_23: 'Los bloques terminan a las 23:00 a más tardar.',
  schedule_blocks_room_check: 'La sala puede tener hasta 60 caracteres.',
  class_sessions_session_date_check: 'Las clases son de lunes a sábado.',
  class_sessions_start_time_check: 'Las clases empiezan a las 07:00 o después.',
  class_sessions_pedagogical_hours_check: 'Una clase dura de 1 a 4 horas pedagógicas.',
  class_sessions_ends_by_23: 'Las clases terminan a las 23:00 a más tardar.',
  class_sessions_reason_iff_cancelled: 'Una clase cancelada necesita un motivo, y solo una clase cancelada lo tiene.',
  class_sessions_notes_check: 'Las notas de la clase pueden tener hasta 4000 caracteres.',
  school_events_title_check: 'El título del evento tiene de 1 a 160 caracteres.',
  school_events_description_check: 'La descripción puede tener hasta 4000 caracteres.',
  school_events_dates_in_order: 'El evento termina antes de empezar, o dura más de 93 días.',
  school_events_times: 'Un evento con horario dura un solo día y termina después de empezar.',
  school_events_school_or_course: 'Un evento es del establecimiento o de un curso, no de ambos.',
  school_days_day_start_check: 'La jornada empieza a las 07:00 o después, en minutos múltiplos de 5.',
  school_days_pedagogical_hours_check: 'La jornada tiene de 1 a 14 horas pedagógicas.',
  school_days_valid_breaks: 'Revisa los recreos: uno como máximo después de cada hora (nunca de la última), de 5 a 90 minutos y con nombre.',
  school_days_ends_by_23: 'La jornada debe terminar a las 23:00 a más tardar.',
}

/**
 * A Spanish message for a rest/v1 error. Database functions and constraints of the product
 * already speak Spanish in `message` (with `details`/`hint`), so those are kept; constraints
 * PostgreSQL words itself get the product's message; generic PostgreSQL and PostgREST codes
 * get a translation.
 */
export function databaseErrorMessage(error: DatabaseErrorLike): string {
  if (isNetworkError(error)) return 'No se pudo conectar con el servidor. Verifica tu conexión a internet.'
  const constraint = /constraint "([a-z0-9_]+)"/.exec(error.message)?.[1]
  const constraintMessage = constraint ? CONSTRAINT_MESSAGES[constraint] : undefined
  if (constraintMessage) return constraintMessage
  const known = error.code ? DATABASE_MESSAGES[error.code] : undefined
  // Product errors (check constraints, raised exceptions) carry their own Spanish text.
  // PostgreSQL's own wording of a check the product did not name here stays out of sight.
  const productMessage =
    error.code && /^(23514|P0001|22023|PT\d{3})$/.test(error.code) && !/violates check constraint/.test(error.message)
      ? error.message
      : undefined
  const parts = [productMessage ?? known ?? 'No se pudo completar la operación con la base de datos.']
  if (productMessage && error.details) parts.push(error.details)
  if (error.hint && (productMessage || !known)) parts.push(error.hint)
  return parts.join(' ')
}

/** GoTrue error codes (`error.code` in supabase-js) and what the user reads. */
export const AUTH_MESSAGES: Record<string, string> = {
  invalid_credentials: 'Correo o contraseña incorrectos.',
  email_not_confirmed: 'Debes confirmar tu correo antes de iniciar sesión. Revisa tu bandeja de entrada.',
  user_already_exists: 'Ya existe una cuenta con este correo. Inicia sesión o recupera tu contraseña.',
  email_exists: 'Ya existe una cuenta con este correo. Inicia sesión o recupera tu contraseña.',
  weak_password: 'La contraseña es demasiado débil.',
  same_password: 'La nueva contraseña debe ser distinta de la anterior.',
  over_email_send_rate_limit: 'Se enviaron demasiados correos. Espera un momento antes de pedir otro.',
  over_request_rate_limit: 'Demasiados intentos. Espera unos minutos e inténtalo de nuevo.',
  email_address_invalid: 'El correo electrónico no es válido.',
  validation_failed: 'Revisa los datos ingresados.',
  signup_disabled: 'El registro de nuevas cuentas está deshabilitado.',
  email_provider_disabled: 'El registro con correo electrónico está deshabilitado.',
  user_not_found: 'No encontramos una cuenta con esos datos.',
  user_banned: 'Tu cuenta está suspendida. Escríbenos para más información.',
  session_not_found: 'Tu sesión ya no es válida. Inicia sesión de nuevo.',
  session_expired: 'Tu sesión expiró. Inicia sesión de nuevo.',
  refresh_token_not_found: 'Tu sesión ya no es válida. Inicia sesión de nuevo.',
  refresh_token_already_used: 'Tu sesión ya no es válida. Inicia sesión de nuevo.',
  otp_expired: 'El enlace expiró o ya fue usado. Pide uno nuevo.',
  flow_state_expired: 'El enlace expiró. Pide uno nuevo.',
  flow_state_not_found: 'El enlace ya no es válido. Pide uno nuevo.',
  bad_jwt: 'Tu sesión no es válida. Inicia sesión de nuevo.',
  reauthentication_needed: 'Por seguridad, confirma tu identidad antes de cambiar la contraseña.',
  reauthentication_not_valid: 'El código de verificación no es válido.',
  email_address_not_authorized: 'No se pueden enviar correos a esta dirección.',
  request_timeout: 'El servidor tardó demasiado en responder. Inténtalo de nuevo.',
  unexpected_failure: 'Ocurrió un error en el servidor. Inténtalo de nuevo.',
}

const WEAK_PASSWORD_REASONS: Record<string, string> = {
  length: 'es demasiado corta',
  characters: 'debe combinar otros tipos de caracteres',
  pwned: 'apareció en filtraciones conocidas',
}

interface AuthErrorLike {
  message: string
  name?: string
  code?: string | undefined
  status?: number | undefined
  reasons?: string[]
}

/** A Spanish message for an auth/v1 error, by GoTrue's error code. */
export function authErrorMessage(error: AuthErrorLike): string {
  if (error.name === 'AuthRetryableFetchError' || isNetworkError(error)) {
    return 'No se pudo conectar con el servidor. Verifica tu conexión a internet.'
  }
  if (error.name === 'AuthWeakPasswordError' || error.code === 'weak_password') {
    const reasons = (error.reasons ?? []).map((reason) => WEAK_PASSWORD_REASONS[reason]).filter(Boolean)
    return reasons.length > 0
      ? `La contraseña es demasiado débil: ${reasons.join(', ')}.`
      : (AUTH_MESSAGES.weak_password ?? error.message)
  }
  const known = error.code ? AUTH_MESSAGES[error.code] : undefined
  if (known) return known
  if (error.status === 429) return AUTH_MESSAGES.over_request_rate_limit ?? error.message
  if (error.status !== undefined && error.status >= 500) return 'Ocurrió un error en el servidor. Inténtalo de nuevo.'
  return 'No se pudo completar la operación. Inténtalo de nuevo.'
}

/** Whether an error is about the token (expired or rejected), which a retry may fix. */
export function mentionsJwtOrSession(error: unknown): boolean {
  const message = error instanceof Error || isDatabaseError(error) ? error.message : String(error)
  return /jwt|session/i.test(message)
}
