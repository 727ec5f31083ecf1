/**
 * Role checks (spec section 6): `rpc('is_admin')` and `rpc('is_content_creator')`, about the
 * signed-in caller. A failed check means no access.
 *
 * * Admin: an error that mentions the JWT or the session (a token being refreshed) is
 *   retried up to 3 times, after 1 s, 2 s and 3 s; any other failure, or the last one, is
 *   logged and answers false.
 * * Content creator: any error is logged and answers false.
 */
import { queryOptions, useQuery } from '@tanstack/react-query'
import { useSupabase } from '@/lib/supabase-provider'
import { mentionsJwtOrSession } from '@/lib/errors'
import { logger } from '@/lib/logger'
import { useAuth } from '@/lib/auth/auth-provider'
import type { CieloClient } from '@/lib/supabase'
import { roleKeys } from './keys'

export const ADMIN_CHECK_RETRIES = 3
export const ADMIN_RETRY_STEP_MS = 1000

export type Sleep = (ms: number) => Promise<void>
const sleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

export async function fetchIsAdmin(supabase: CieloClient, wait: Sleep = sleep): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const { data, error } = await supabase.rpc('is_admin')
    if (!error) return data === true
    if (attempt < ADMIN_CHECK_RETRIES && mentionsJwtOrSession(error)) {
      await wait(ADMIN_RETRY_STEP_MS * (attempt + 1))
      continue
    }
    logger.warn('No se pudo verificar el rol de administrador', { error, attempts: attempt + 1 })
    return false
  }
}

export async function fetchIsContentCreator(supabase: CieloClient): Promise<boolean> {
  try {
    const { data, error } = await supabase.rpc('is_content_creator')
    if (error) throw error
    return data === true
  } catch (error) {
    logger.warn('No se pudo verificar el rol de creación de contenido', { error })
    return false
  }
}

export const isAdminQueryOptions = (supabase: CieloClient, userId: string) =>
  queryOptions({ queryKey: roleKeys.isAdmin(userId), queryFn: () => fetchIsAdmin(supabase), retry: false })

export const isContentCreatorQueryOptions = (supabase: CieloClient, userId: string) =>
  queryOptions({
    queryKey: roleKeys.isContentCreator(userId),
    queryFn: () => fetchIsContentCreator(supabase),
    retry: false,
  })

/** Whether the signed-in user is an admin (`undefined` while checking). */
export function useIsAdmin() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({ ...isAdminQueryOptions(supabase, user?.id ?? ''), enabled: Boolean(user) })
}

/** Whether the signed-in user is a content creator (`undefined` while checking). */
export function useIsContentCreator() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({ ...isContentCreatorQueryOptions(supabase, user?.id ?? ''), enabled: Boolean(user) })
}
