/** The teacher's most recently edited drafts (Borradores), for the dashboard. */
import { useQuery } from '@tanstack/react-query'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Tables } from '@/lib/database.types'
import { useSupabase } from '@/lib/supabase-provider'

export type DraftSummary = Pick<Tables<'drafts'>, 'id' | 'title' | 'updated_at' | 'course_id'>

export const draftKeys = { all: ['drafts'] as const }

export function useRecentDrafts(limit = 3) {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({
    queryKey: [...draftKeys.all, 'recent', user?.id ?? '', limit] as const,
    enabled: Boolean(user),
    meta: { action: 'cargar tus borradores' },
    queryFn: async (): Promise<DraftSummary[]> => {
      const { data, error } = await supabase
        .from('drafts')
        .select('id, title, updated_at, course_id')
        .eq('teacher_id', user?.id ?? '')
        .order('updated_at', { ascending: false })
        .limit(limit)
      if (error) throw error
      return data
    },
  })
}
