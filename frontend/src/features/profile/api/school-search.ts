/**
 * Finding a school in the directory (12 898, Mineduc 2025) as a teacher types: by RBD or by
 * words of the name and comuna, accents optional (`rpc('search_schools')`). Results are kept
 * for the session: the directory changes once a year.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useSupabase } from '@/lib/supabase-provider'
import type { Tables } from '@/lib/database.types'

export type SchoolOption = Pick<Tables<'schools'>, 'RBD' | 'NOM_RBD' | 'comuna'>

/** Whether `term` is enough to search: any digit of an RBD, or two letters of a name. */
export function searchable(term: string): boolean {
  const typed = term.trim()
  return /^\d/.test(typed) || typed.length >= 2
}

export function describeSchool(school: Pick<SchoolOption, 'RBD' | 'NOM_RBD' | 'comuna'>): string {
  return `${school.NOM_RBD} · ${school.comuna} (RBD ${school.RBD})`
}

export function useSchoolSearch(term: string) {
  const supabase = useSupabase()
  const query = term.trim()
  return useQuery({
    queryKey: ['schools', 'search', query] as const,
    queryFn: async (): Promise<SchoolOption[]> => {
      const { data, error } = await supabase.rpc('search_schools', { query, max_rows: 8 }).select('RBD, NOM_RBD, comuna')
      if (error) throw error
      return data
    },
    enabled: searchable(query),
    staleTime: Infinity,
    // The list stays while the next letters are looked up: no flicker as she types.
    placeholderData: keepPreviousData,
  })
}
