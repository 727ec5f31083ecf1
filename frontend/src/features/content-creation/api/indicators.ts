/**
 * Suggested assessment indicators (indicadores de evaluación) of one OA, in order: added at
 * the end, reworded and removed by content creators; every teacher reads them.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { Tables } from '@/lib/database.types'
import { useSupabase } from '@/lib/supabase-provider'
import { contentKeys } from './resources'

export type Indicator = Pick<Tables<'learning_objective_indicators'>, 'id' | 'objective_id' | 'position' | 'text'>

export const INDICATOR_MAX = 1000

const indicatorKey = (objectiveId: string) => [...contentKeys.all, 'indicators', objectiveId] as const

export function useIndicators(objectiveId: string | null) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: indicatorKey(objectiveId ?? ''),
    enabled: Boolean(objectiveId),
    meta: { action: 'cargar los indicadores' },
    queryFn: async (): Promise<Indicator[]> => {
      const { data, error } = await supabase
        .from('learning_objective_indicators')
        .select('id, objective_id, position, text')
        .eq('objective_id', objectiveId ?? '')
        .order('position')
      if (error) throw error
      return data
    },
  })
}

/** The position after the last one (positions run 1–100). */
export function nextPosition(indicators: readonly Pick<Indicator, 'position'>[]): number {
  return indicators.reduce((last, item) => Math.max(last, item.position), 0) + 1
}

export function useIndicatorChanges(objectiveId: string) {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  const onSettled = () => queryClient.invalidateQueries({ queryKey: indicatorKey(objectiveId) })
  const add = useMutation({
    mutationFn: async ({ text, position }: { text: string; position: number }) => {
      const { error } = await supabase.from('learning_objective_indicators').insert({ objective_id: objectiveId, text: text.trim(), position })
      if (error) throw error
    },
    onSettled,
  })
  const update = useMutation({
    mutationFn: async ({ id, text }: { id: string; text: string }) => {
      const { error } = await supabase.from('learning_objective_indicators').update({ text: text.trim() }).eq('id', id)
      if (error) throw error
    },
    onSettled,
  })
  const remove = useMutation({
    mutationFn: async (id: string) => {
      const { error } = await supabase.from('learning_objective_indicators').delete().eq('id', id)
      if (error) throw error
    },
    onSettled,
  })
  return { add, update, remove }
}
