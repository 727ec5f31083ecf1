/**
 * Writing announcements (admins, by RLS): every announcement with its state — draft,
 * scheduled, published, expired — and creating, changing, publishing and deleting them.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { Tables, TablesInsert } from '@/lib/database.types'
import { useSupabase } from '@/lib/supabase-provider'
import { announcementKeys } from './announcements'

export type AnnouncementRow = Tables<'announcements'>
export type AnnouncementDraft = Pick<TablesInsert<'announcements'>, 'title' | 'body' | 'audience' | 'is_pinned' | 'published_at' | 'expires_at'>
export type AnnouncementState = 'draft' | 'scheduled' | 'published' | 'expired'

export const AUDIENCE_LABELS: Record<AnnouncementRow['audience'], string> = {
  publico: 'Todo público',
  docentes: 'Docentes',
  demo: 'Demo 2025',
  administradores: 'Administradores',
}

export const STATE_LABELS: Record<AnnouncementState, string> = {
  draft: 'Borrador',
  scheduled: 'Programado',
  published: 'Publicado',
  expired: 'Vencido',
}

export function announcementState(row: Pick<AnnouncementRow, 'published_at' | 'expires_at'>, now: Date = new Date()): AnnouncementState {
  if (!row.published_at) return 'draft'
  if (new Date(row.published_at) > now) return 'scheduled'
  if (row.expires_at && new Date(row.expires_at) <= now) return 'expired'
  return 'published'
}

export function useAllAnnouncements() {
  const supabase = useSupabase()
  return useQuery({
    queryKey: [...announcementKeys.all, 'manage'] as const,
    meta: { action: 'cargar los anuncios' },
    queryFn: async (): Promise<AnnouncementRow[]> => {
      const { data, error } = await supabase.from('announcements').select('*').order('created_at', { ascending: false }).limit(200)
      if (error) throw error
      return data
    },
  })
}

/** Creates (without `id`) or changes an announcement. */
export function useSaveAnnouncement() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ id, values }: { id?: string; values: AnnouncementDraft }) => {
      const { error } = id
        ? await supabase.from('announcements').update(values).eq('id', id)
        : await supabase.from('announcements').insert(values)
      if (error) throw error
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: announcementKeys.all }),
  })
}

export function useDeleteAnnouncement() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (id: string) => {
      const { error } = await supabase.from('announcements').delete().eq('id', id)
      if (error) throw error
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: announcementKeys.all }),
  })
}
