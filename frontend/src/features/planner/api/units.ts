/**
 * Plan. Secuencial's data: the teacher's units with the progress of their classes, creating a
 * unit whole (`rpc('create_sequential_plan')`), writing a generated unit into it in one
 * transaction (`rpc('apply_unit_generation')`) and renaming one of its classes. A unit read
 * whole is `usePlan`; its classes' zones are edited like a simple plan's.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Json } from '@/lib/database.types'
import { useSupabase } from '@/lib/supabase-provider'
import { plannerKeys } from '@/features/planner/api/plans'
import type { GeneratedClass } from '@/features/planner/api/generate'

export interface UnitSummary {
  id: string
  course_id: string
  title: string
  unit_name: string | null
  updated_at: string
  classes: Array<{ position: number; session_date: string | null; status: string | null; written: boolean }>
}

type Row = {
  id: string
  course_id: string
  title: string
  unit_name: string | null
  updated_at: string
  plan_classes: Array<{
    position: number
    class_sessions: { session_date: string; status: string } | null
    plan_zones: Array<{ content_length: number }>
  }>
}

export function useUnits() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({
    queryKey: [...plannerKeys.all, 'units', user?.id ?? ''] as const,
    enabled: Boolean(user),
    meta: { action: 'cargar tus unidades' },
    queryFn: async (): Promise<UnitSummary[]> => {
      const { data, error } = await supabase
        .from('plans')
        .select('id, course_id, title, unit_name, updated_at, plan_classes(position, class_sessions(session_date, status), plan_zones(content_length))')
        .eq('teacher_id', user?.id ?? '')
        .eq('kind', 'secuencial')
        .order('updated_at', { ascending: false })
      if (error) throw error
      return (data as unknown as Row[]).map(({ plan_classes, ...unit }) => ({
        ...unit,
        classes: plan_classes
          .map((planClass) => ({
            position: planClass.position,
            session_date: planClass.class_sessions?.session_date ?? null,
            status: planClass.class_sessions?.status ?? null,
            written: planClass.plan_zones.some((zone) => zone.content_length > 0),
          }))
          .sort((a, b) => a.position - b.position),
      }))
    },
  })
}

export interface NewUnit {
  courseId: string
  title: string
  unitName: string | null
  classCount: number
  objectiveIds: string[]
  classSessionIds: string[]
  classBlocks: number
}

const refreshPlanning = (queryClient: ReturnType<typeof useQueryClient>) =>
  queryClient.invalidateQueries({ predicate: (query) => ['planner', 'calendar', 'courses'].includes(String(query.queryKey[0])) })

export function useCreateUnit() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (unit: NewUnit) => {
      const { data, error } = await supabase.rpc('create_sequential_plan', {
        course_id: unit.courseId,
        title: unit.title,
        class_count: unit.classCount,
        objective_ids: unit.objectiveIds,
        class_session_ids: unit.classSessionIds,
        class_blocks: unit.classBlocks,
        ...(unit.unitName ? { unit_name: unit.unitName } : {}),
      })
      if (error) throw error
      return data
    },
    onSettled: () => refreshPlanning(queryClient),
  })
}

/** Writes a generated unit into the plan: every class's title and zones, or nothing. */
export function useApplyUnit(planId: string) {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (classes: GeneratedClass[]) => {
      const { data, error } = await supabase.rpc('apply_unit_generation', {
        plan_id: planId,
        classes: classes.map(({ position, title, zones }) => ({ position, title, zones })) as unknown as Json,
      })
      if (error) throw error
      return data
    },
    onSettled: () => refreshPlanning(queryClient),
  })
}

export function useRenameClass(planId: string) {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ classId, title }: { classId: string; title: string }) => {
      const { error } = await supabase.from('plan_classes').update({ title: title.trim() }).eq('id', classId)
      if (error) throw error
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: plannerKeys.plan(planId) }),
  })
}
