/**
 * Anuncios for the signed-in user: the announcements in their publication window that RLS
 * lets them see (by audience: everyone, teachers, Demo 2025), pinned first and then newest,
 * each marked unread until this user has a row in `announcement_reads`. Opening the page
 * records the shown ones as read.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Tables } from '@/lib/database.types'
import { useSupabase } from '@/lib/supabase-provider'

export type Announcement = Pick<Tables<'announcements'>, 'id' | 'title' | 'body' | 'audience' | 'is_pinned' | 'published_at'>
export type ShownAnnouncement = Announcement & { unread: boolean }

export const announcementKeys = {
  all: ['announcements'] as const,
  shown: (userId: string) => [...announcementKeys.all, 'shown', userId] as const,
}

/** Pinned first, then the newest publication; unread where no read is recorded. */
export function arrangeAnnouncements(rows: Announcement[], readIds: ReadonlySet<string>): ShownAnnouncement[] {
  return [...rows]
    .sort((a, b) => Number(b.is_pinned) - Number(a.is_pinned) || (b.published_at ?? '').localeCompare(a.published_at ?? ''))
    .map((row) => ({ ...row, unread: !readIds.has(row.id) }))
}

export function useAnnouncements() {
  const supabase = useSupabase()
  const { user } = useAuth()
  const userId = user?.id ?? ''
  return useQuery({
    queryKey: announcementKeys.shown(userId),
    enabled: Boolean(user),
    meta: { action: 'cargar los anuncios' },
    queryFn: async (): Promise<ShownAnnouncement[]> => {
      // Admins may read drafts and expired ones too: this page shows what teachers see.
      const now = new Date().toISOString()
      const [announcements, reads] = await Promise.all([
        supabase
          .from('announcements')
          .select('id, title, body, audience, is_pinned, published_at')
          .lte('published_at', now)
          .or(`expires_at.is.null,expires_at.gt.${now}`)
          .order('is_pinned', { ascending: false })
          .order('published_at', { ascending: false })
          .limit(100),
        supabase.from('announcement_reads').select('announcement_id').eq('user_id', userId),
      ])
      if (announcements.error) throw announcements.error
      if (reads.error) throw reads.error
      return arrangeAnnouncements(announcements.data, new Set(reads.data.map((read) => read.announcement_id)))
    },
  })
}

/** Records `ids` as read by the signed-in user (again is harmless). */
export function useMarkAnnouncementsRead() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  const { user } = useAuth()
  return useMutation({
    mutationFn: async (ids: string[]) => {
      if (!user || ids.length === 0) return
      const { error } = await supabase
        .from('announcement_reads')
        .upsert(
          ids.map((id) => ({ user_id: user.id, announcement_id: id })),
          { onConflict: 'user_id,announcement_id', ignoreDuplicates: true },
        )
      if (error) throw error
    },
    // Stale, not refetched: the open page keeps its "Nuevo" marks, the next visit has none.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: announcementKeys.all, refetchType: 'none' }),
  })
}
