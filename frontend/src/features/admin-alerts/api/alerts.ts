/**
 * Monitoreo Cielo's data (admins only, by RLS): the platform's alerts, newest first, the
 * unresolved ones or all; resolving or reopening one (the database records who and when);
 * and the latest entries of the security audit log.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { Tables } from '@/lib/database.types'
import { useSupabase } from '@/lib/supabase-provider'
import { adminAlertKeys } from './unresolved-count'

export type AdminAlert = Tables<'admin_alerts'>
export type AlertFilter = 'open' | 'all'
export type AuditEntry = Pick<Tables<'security_audit_log'>, 'id' | 'action' | 'resource_type' | 'new_values' | 'user_agent' | 'user_id' | 'created_at'> & {
  /** The user's name from their profile, when they have one. */
  who: string | null
}

const ALERT_LIMIT = 200
export const AUDIT_LIMIT = 50

export const SEVERITY_LABELS: Record<AdminAlert['severity'], string> = {
  critical: 'Crítica',
  error: 'Error',
  warning: 'Advertencia',
  info: 'Información',
}

const SEVERITY_ORDER: AdminAlert['severity'][] = ['critical', 'error', 'warning', 'info']

/** Unresolved before resolved, then the most severe, then the newest. */
export function sortAlerts(alerts: AdminAlert[]): AdminAlert[] {
  return [...alerts].sort(
    (a, b) =>
      Number(a.is_resolved) - Number(b.is_resolved) ||
      SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) ||
      b.created_at.localeCompare(a.created_at),
  )
}

/** What an audit entry says: its `message` when it has one, else its action without the "logger_" prefix. */
export function auditSummary(entry: Pick<AuditEntry, 'action' | 'new_values'>): string {
  const values = entry.new_values
  const message = values && typeof values === 'object' && !Array.isArray(values) ? values.message : undefined
  return typeof message === 'string' && message.trim() ? message : entry.action.replace(/^logger_/, '')
}

export function useAlerts(filter: AlertFilter) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: [...adminAlertKeys.all, 'list', filter] as const,
    meta: { action: 'cargar las alertas' },
    queryFn: async (): Promise<AdminAlert[]> => {
      let query = supabase.from('admin_alerts').select('*').order('created_at', { ascending: false }).limit(ALERT_LIMIT)
      if (filter === 'open') query = query.eq('is_resolved', false)
      const { data, error } = await query
      if (error) throw error
      return sortAlerts(data)
    },
  })
}

export function useSetAlertResolved() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ id, resolved }: { id: string; resolved: boolean }) => {
      const { error } = await supabase.from('admin_alerts').update({ is_resolved: resolved }).eq('id', id)
      if (error) throw error
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminAlertKeys.all }),
  })
}

export function useAuditLog() {
  const supabase = useSupabase()
  return useQuery({
    queryKey: [...adminAlertKeys.all, 'audit'] as const,
    meta: { action: 'cargar el registro de seguridad' },
    queryFn: async (): Promise<AuditEntry[]> => {
      const { data, error } = await supabase
        .from('security_audit_log')
        .select('id, action, resource_type, new_values, user_agent, user_id, created_at')
        .order('created_at', { ascending: false })
        .limit(AUDIT_LIMIT)
      if (error) throw error
      const userIds = [...new Set(data.flatMap((entry) => (entry.user_id ? [entry.user_id] : [])))]
      const names = new Map<string, string>()
      if (userIds.length > 0) {
        const profiles = await supabase.from('profiles').select('user_id, first_name, last_name').in('user_id', userIds)
        if (profiles.error) throw profiles.error
        for (const profile of profiles.data) {
          const name = [profile.first_name, profile.last_name].filter(Boolean).join(' ')
          if (name) names.set(profile.user_id, name)
        }
      }
      return data.map((entry) => ({ ...entry, who: entry.user_id ? (names.get(entry.user_id) ?? null) : null }))
    },
  })
}
