/**
 * Borradores: the teacher's drafts (list, one draft, create, duplicate, rename, course,
 * delete), their text saved as she writes (the document autosave, with `version` — raised by
 * the database when the text changes — as the check that no other tab saved in between), and
 * turning one into a plan (`rpc('promote_draft')`, the plan made whole and the draft removed
 * in one transaction).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo } from 'react'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Json, Tables } from '@/lib/database.types'
import { useDocumentAutosave, type DocumentAutosave, type DocumentStore } from '@/lib/document-autosave'
import { useSupabase } from '@/lib/supabase-provider'
import { draftKeys } from './recent-drafts'

export type DraftRow = Pick<Tables<'drafts'>, 'id' | 'title' | 'updated_at' | 'course_id' | 'content_length' | 'version'>
export type Draft = DraftRow & { content: Json }

export function useDrafts() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({
    queryKey: [...draftKeys.all, 'list', user?.id ?? ''] as const,
    enabled: Boolean(user),
    meta: { action: 'cargar tus borradores' },
    queryFn: async (): Promise<DraftRow[]> => {
      const { data, error } = await supabase
        .from('drafts')
        .select('id, title, updated_at, course_id, content_length, version')
        .eq('teacher_id', user?.id ?? '')
        .order('updated_at', { ascending: false })
      if (error) throw error
      return data
    },
  })
}

export function useDraft(id: string | undefined) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: [...draftKeys.all, 'one', id ?? ''] as const,
    enabled: Boolean(id),
    // The editor owns the text once loaded: a refetch would fight the typing.
    staleTime: Infinity,
    meta: { action: 'cargar el borrador' },
    queryFn: async (): Promise<Draft | null> => {
      const { data, error } = await supabase
        .from('drafts')
        .select('id, title, updated_at, course_id, content_length, version, content')
        .eq('id', id ?? '')
        .maybeSingle()
      if (error) throw error
      return data
    },
  })
}

function useInvalidateDrafts() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: draftKeys.all })
}

export function useCreateDraft() {
  const supabase = useSupabase()
  const invalidate = useInvalidateDrafts()
  return useMutation({
    mutationFn: async (draft: { title?: string; content?: Json; course_id?: string | null } = {}) => {
      const { data, error } = await supabase.from('drafts').insert(draft).select('id').single()
      if (error) throw error
      return data.id
    },
    onSettled: invalidate,
  })
}

export function useDuplicateDraft() {
  const supabase = useSupabase()
  const invalidate = useInvalidateDrafts()
  return useMutation({
    mutationFn: async (id: string) => {
      const { data: source, error } = await supabase.from('drafts').select('title, content, course_id').eq('id', id).single()
      if (error) throw error
      const title = `Copia de ${source.title}`.slice(0, 200)
      const { data, error: insertError } = await supabase
        .from('drafts')
        .insert({ title, content: source.content, course_id: source.course_id })
        .select('id')
        .single()
      if (insertError) throw insertError
      return data.id
    },
    onSettled: invalidate,
  })
}

export function useDeleteDraft() {
  const supabase = useSupabase()
  const invalidate = useInvalidateDrafts()
  return useMutation({
    mutationFn: async (id: string) => {
      const { error } = await supabase.from('drafts').delete().eq('id', id)
      if (error) throw error
    },
    onSettled: invalidate,
  })
}

/** Title and course of a draft (not its text, which the autosave writes). */
export function useUpdateDraftDetails(id: string) {
  const supabase = useSupabase()
  const invalidate = useInvalidateDrafts()
  return useMutation({
    mutationFn: async (details: { title?: string; course_id?: string | null }) => {
      const { error } = await supabase.from('drafts').update(details).eq('id', id)
      if (error) throw error
    },
    onSettled: invalidate,
  })
}

export interface Promotion {
  draftId: string
  courseId: string
  objectiveIds: string[]
  classSessionId: string | null
  classBlocks: number
}

export function usePromoteDraft() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (promotion: Promotion) => {
      const { data, error } = await supabase.rpc('promote_draft', {
        draft_id: promotion.draftId,
        course_id: promotion.courseId,
        objective_ids: promotion.objectiveIds,
        ...(promotion.classSessionId ? { class_session_id: promotion.classSessionId } : {}),
        class_blocks: promotion.classBlocks,
      })
      if (error) throw error
      return data
    },
    onSettled: () =>
      queryClient.invalidateQueries({
        predicate: (query) => ['drafts', 'planner', 'calendar', 'courses'].includes(String(query.queryKey[0])),
      }),
  })
}

export function useDraftAutosave(draft: Draft, replace: (content: Json) => void): DocumentAutosave {
  const supabase = useSupabase()
  const store = useMemo<DocumentStore>(
    () => ({
      name: `draft:${draft.id}`,
      save: async (content, base) => {
        const { data, error } = await supabase
          .from('drafts')
          .update({ content })
          .eq('id', draft.id)
          .eq('version', Number(base))
          .select('version')
        if (error) throw error
        return data[0]?.version ?? null
      },
      load: async () => {
        const { data, error } = await supabase.from('drafts').select('version, content').eq('id', draft.id).single()
        if (error) throw error
        return data
      },
    }),
    [supabase, draft.id],
  )
  return useDocumentAutosave(store, { version: draft.version, content: draft.content }, replace)
}
