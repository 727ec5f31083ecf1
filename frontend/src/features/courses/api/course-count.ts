/**
 * Whether the teacher has courses: `courses`, filter teacher_id, limit 1, with the exact
 * count (the onboarding check of the spec).
 */
import { queryOptions, useQuery } from '@tanstack/react-query'
import { useSupabase } from '@/lib/supabase-provider'
import { useAuth } from '@/lib/auth/auth-provider'
import type { CieloClient } from '@/lib/supabase'

export const courseKeys = {
  all: ['courses'] as const,
  count: (teacherId: string) => [...courseKeys.all, 'count', teacherId] as const,
}

export async function fetchCourseCount(supabase: CieloClient, teacherId: string): Promise<number> {
  const { count, error } = await supabase
    .from('courses')
    .select('id', { count: 'exact' })
    .eq('teacher_id', teacherId)
    .limit(1)
  if (error) throw error
  return count ?? 0
}

export const courseCountQueryOptions = (supabase: CieloClient, teacherId: string) =>
  queryOptions({
    queryKey: courseKeys.count(teacherId),
    queryFn: () => fetchCourseCount(supabase, teacherId),
    // The onboarding check: a failure is logged and counts as no course (spec section 8),
    // without a toast of its own.
  })

export function useCourseCount() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({ ...courseCountQueryOptions(supabase, user?.id ?? ''), enabled: Boolean(user) })
}
