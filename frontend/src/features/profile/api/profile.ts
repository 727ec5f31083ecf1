/**
 * The signed-in teacher's profile (`profiles`, filter user_id, single or none) and her
 * school (`schools`, filter RBD), as the sidebar header and the profile page show them.
 */
import { queryOptions, useQuery } from '@tanstack/react-query'
import { useSupabase } from '@/lib/supabase-provider'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Tables } from '@/lib/database.types'
import type { CieloClient } from '@/lib/supabase'

export type Profile = Pick<
  Tables<'profiles'>,
  'user_id' | 'first_name' | 'last_name' | 'how_found_us' | 'school_rbd' | 'is_complete' | 'encrypted_phone'
>

export type School = Pick<Tables<'schools'>, 'RBD' | 'NOM_RBD' | 'comuna'>

export const FALLBACK_SCHOOL_NAME = 'Colegio Cielo'

export const profileKeys = {
  all: ['profile'] as const,
  detail: (userId: string) => [...profileKeys.all, userId] as const,
  school: (rbd: number) => ['school', rbd] as const,
  phone: (userId: string, encrypted: string) => ['phone', userId, encrypted] as const,
}

export async function fetchProfile(supabase: CieloClient, userId: string): Promise<Profile | null> {
  const { data, error } = await supabase
    .from('profiles')
    .select('user_id, first_name, last_name, how_found_us, school_rbd, is_complete, encrypted_phone')
    .eq('user_id', userId)
    .maybeSingle()
  if (error) throw error
  return data
}

export async function fetchSchool(supabase: CieloClient, rbd: number): Promise<School | null> {
  const { data, error } = await supabase.from('schools').select('RBD, NOM_RBD, comuna').eq('RBD', rbd).maybeSingle()
  if (error) throw error
  return data
}

export const profileQueryOptions = (supabase: CieloClient, userId: string) =>
  queryOptions({
    queryKey: profileKeys.detail(userId),
    queryFn: () => fetchProfile(supabase, userId),
    meta: { action: 'cargar tu perfil' },
  })

export function useProfile() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({ ...profileQueryOptions(supabase, user?.id ?? ''), enabled: Boolean(user) })
}

export function useSchool(rbd: number | null | undefined) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: profileKeys.school(rbd ?? 0),
    queryFn: () => fetchSchool(supabase, rbd ?? 0),
    enabled: typeof rbd === 'number',
    // The directory of schools changes once a year.
    staleTime: Infinity,
  })
}

/** The school name for the sidebar header: the profile's school, else 'Colegio Cielo'. */
export function useSchoolName(): string {
  const profile = useProfile()
  const school = useSchool(profile.data?.school_rbd)
  return school.data?.NOM_RBD ?? FALLBACK_SCHOOL_NAME
}

/** Up to two initials, from the names or else the e-mail address. */
export function initialsOf(profile: Pick<Profile, 'first_name' | 'last_name'> | null | undefined, email?: string): string {
  const names = [profile?.first_name, profile?.last_name].map((name) => name?.trim()).filter(Boolean) as string[]
  if (names.length > 0) return names.map((name) => name.charAt(0).toLocaleUpperCase('es-CL')).join('').slice(0, 2)
  return (email?.charAt(0) ?? '?').toLocaleUpperCase('es-CL')
}

/** The first name to show, or the e-mail's local part before a profile exists. */
export function displayFirstName(profile: Pick<Profile, 'first_name'> | null | undefined, email?: string): string {
  const first = profile?.first_name?.trim().split(/\s+/)[0]
  if (first) return first
  return email?.split('@')[0] ?? 'Docente'
}

/** "Ana Pérez", for printed pages; the e-mail's name when the profile has none. */
export function displayFullName(profile: Pick<Profile, 'first_name' | 'last_name'> | null | undefined, email?: string): string {
  const full = [profile?.first_name, profile?.last_name].filter(Boolean).join(' ').trim()
  return full || displayFirstName(profile, email)
}

/** Complete as the spec says (section 4): first_name, last_name and how_found_us present. */
export function isProfileComplete(
  profile: { first_name?: string | null; last_name?: string | null; how_found_us?: string | null } | null | undefined,
): boolean {
  return Boolean(profile?.first_name?.trim() && profile.last_name?.trim() && profile.how_found_us?.trim())
}
