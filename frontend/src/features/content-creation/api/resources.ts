/**
 * Creación Contenido's resources: every resource a content creator may see (drafts included,
 * by RLS) with the OAs it supports, saved with its OAs in one transaction
 * (`rpc('save_resource')`), and deleted.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { Json, Tables } from '@/lib/database.types'
import { useSupabase } from '@/lib/supabase-provider'

export type ResourceKind = Tables<'content_creator_resources'>['kind']
export type ResourceStatus = Tables<'content_creator_resources'>['status']
export type Resource = Pick<
  Tables<'content_creator_resources'>,
  'id' | 'title' | 'description' | 'kind' | 'level_code' | 'subject_code' | 'content' | 'status' | 'published_at' | 'updated_at' | 'content_length'
> & { objectives: Array<{ id: string; code: string }> }

export interface ResourceValues {
  title: string
  description: string
  kind: ResourceKind
  level_code: string | null
  subject_code: string | null
  content: Json
  status: ResourceStatus
  objective_ids: string[]
}

export const KIND_LABELS: Record<ResourceKind, string> = {
  guia: 'Guía',
  actividad: 'Actividad',
  evaluacion: 'Evaluación',
  rubrica: 'Rúbrica',
  presentacion: 'Presentación',
  lectura: 'Lectura',
  video: 'Video',
  otro: 'Otro',
}

export const STATUS_LABELS: Record<ResourceStatus, string> = {
  borrador: 'Borrador',
  en_revision: 'En revisión',
  publicado: 'Publicado',
  archivado: 'Archivado',
}

export const EMPTY_DOC: Json = { type: 'doc', content: [] }

export const contentKeys = { all: ['content-creation'] as const }

/** The problem with a resource before it is sent, or null. */
export function resourceProblem(values: Pick<ResourceValues, 'title' | 'level_code' | 'subject_code'>): string | null {
  if (!values.title.trim()) return 'Escribe un título.'
  if (values.title.trim().length > 200) return 'El título tiene como máximo 200 caracteres.'
  if (Boolean(values.level_code) !== Boolean(values.subject_code)) return 'Elige el nivel y la asignatura, o ninguno de los dos.'
  return null
}

export function useResources(enabled: boolean) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: [...contentKeys.all, 'resources'] as const,
    enabled,
    meta: { action: 'cargar los recursos' },
    queryFn: async (): Promise<Resource[]> => {
      const { data, error } = await supabase
        .from('content_creator_resources')
        .select('id, title, description, kind, level_code, subject_code, content, status, published_at, updated_at, content_length, resource_learning_objectives(objective_id, learning_objectives(code))')
        .order('updated_at', { ascending: false })
        .limit(200)
      if (error) throw error
      return data.map(({ resource_learning_objectives: links, ...row }) => ({
        ...row,
        objectives: links.map((link) => ({ id: link.objective_id, code: link.learning_objectives?.code ?? link.objective_id })),
      }))
    },
  })
}

export function useSaveResource() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ id, values }: { id: string | null; values: ResourceValues }) => {
      const { data, error } = await supabase.rpc('save_resource', {
        // A new resource has no id yet: the function creates it.
        resource_id: id as string,
        title: values.title.trim(),
        description: values.description.trim(),
        kind: values.kind,
        level_code: values.level_code as string,
        subject_code: values.subject_code as string,
        content: values.content,
        status: values.status,
        objective_ids: values.objective_ids,
      })
      if (error) throw error
      return data
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: contentKeys.all }),
  })
}

export function useDeleteResource() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (id: string) => {
      const { error } = await supabase.from('content_creator_resources').delete().eq('id', id)
      if (error) throw error
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: contentKeys.all }),
  })
}
