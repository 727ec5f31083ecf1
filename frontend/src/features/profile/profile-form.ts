/**
 * The profile form's rules: the fields it needs, the answers offered for how she found
 * Cielo, and Chilean phone numbers as `set_phone` accepts them.
 */

export const HOW_FOUND_US_OPTIONS = [
  'Me lo recomendó un colega',
  'Mi establecimiento o sostenedor',
  'Redes sociales (Instagram, Facebook, TikTok)',
  'Búsqueda en Google',
  'YouTube',
  'Una capacitación o charla',
] as const

export const HOW_FOUND_US_OTHER = 'Otro'

export interface ProfileDraft {
  first_name: string
  last_name: string
  how_found_us: string
  phone: string
}

export type ProfileProblems = Partial<Record<keyof ProfileDraft, string>>

/** The digits of a typed phone, without the separators people write. */
function phoneDigits(phone: string): string {
  return phone.replace(/[\s().-]/g, '')
}

/** A Chilean number as `set_phone` accepts it: +56 and 9 digits, +56 optional. */
export function isChileanPhone(phone: string): boolean {
  return /^(\+?56)?[2-9]\d{8}$/.test(phoneDigits(phone))
}

/** "+56 9 1234 5678" (mobiles) or "+56 2 2345 6789" (landlines), or the input as it was. */
export function formatChileanPhone(phone: string): string {
  if (!isChileanPhone(phone)) return phone
  const nine = phoneDigits(phone).slice(-9)
  return `+56 ${nine.slice(0, 1)} ${nine.slice(1, 5)} ${nine.slice(5)}`
}

export function profileProblems(draft: ProfileDraft): ProfileProblems {
  const problems: ProfileProblems = {}
  if (!draft.first_name.trim()) problems.first_name = 'Escribe tu nombre.'
  else if (draft.first_name.trim().length > 80) problems.first_name = 'Usa 80 caracteres o menos.'
  if (!draft.last_name.trim()) problems.last_name = 'Escribe tu apellido.'
  else if (draft.last_name.trim().length > 80) problems.last_name = 'Usa 80 caracteres o menos.'
  if (!draft.how_found_us.trim()) problems.how_found_us = 'Cuéntanos cómo conociste Cielo.'
  else if (draft.how_found_us.trim().length > 200) problems.how_found_us = 'Usa 200 caracteres o menos.'
  if (draft.phone.trim() && !isChileanPhone(draft.phone))
    problems.phone = 'Escribe un número chileno, por ejemplo +56 9 1234 5678.'
  return problems
}
