/**
 * The admin badge: how many alerts are unresolved with severity error or critical
 * (`admin_alerts`, head + exact count). Admins only; polled every 60 s.
 */
import { queryOptions, useQuery } from '@tanstack/react-query'
import { useSupabase } from '@/lib/supabase-provider'
import { useAuth } from '@/lib/auth/auth-provider'
import type { CieloClient } from '@/lib/supabase'

export const ALERTS_POLL_MS = 60_000

export const adminAlertKeys = {
  all: ['admin-alerts'] as const,
  unresolvedCount: () => [...adminAlertKeys.all, 'unresolved-count'] as const,
}

export async function fetchUnresolvedAlertCount(supabase: CieloClient): Promise<number> {
  const { count, error } = await supabase
    .from('admin_alerts')
    .select('*', { count: 'exact', head: true })
    .eq('is_resolved', false)
    .in('severity', ['error', 'critical'])
  if (error) throw error
  return count ?? 0
}

export const unresolvedAlertCountQueryOptions = (supabase: CieloClient) =>
  queryOptions({
    queryKey: adminAlertKeys.unresolvedCount(),
    queryFn: () => fetchUnresolvedAlertCount(supabase),
    refetchInterval: ALERTS_POLL_MS,
    staleTime: ALERTS_POLL_MS,
  })

/** The count for an admin; never requested for anyone else. */
export function useUnresolvedAlertCount(isAdmin: boolean) {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({ ...unresolvedAlertCountQueryOptions(supabase), enabled: isAdmin && Boolean(user) })
}
