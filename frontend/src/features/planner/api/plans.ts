/**
 * The teacher's plans: the list (with the calendar class each plan is for), one plan with its
 * OAs and classes, a class's zones, the curriculum's OAs for a course, and the changes the
 * planner makes — creating a simple plan whole (`rpc('create_simple_plan')`), renaming and
 * deleting it, adding, renaming, reordering (`rpc('reorder_plan_zones')`) and removing zones,
 * and migrating a legacy class (`rpc('migrate_legacy_plan_class')`). Zone content is saved by
 * the autosave hook, not here.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Json, Tables } from '@/lib/database.types'
import { useSupabase } from '@/lib/supabase-provider'
import type { ZoneType } from '@/features/planner/zones'

export const plannerKeys = {
  all: ['planner'] as const,
  list: (teacherId: string) => [...plannerKeys.all, 'list', teacherId] as const,
  plan: (planId: string) => [...plannerKeys.all, 'plan', planId] as const,
  zones: (planClassId: string) => [...plannerKeys.all, 'zones', planClassId] as const,
  objectives: (level: string, subject: string) => ['curriculum', 'objectives', level, subject] as const,
}

type SessionInfo = Pick<Tables<'class_sessions'>, 'session_date' | 'start_time' | 'status'>

export interface PlanSummary {
  id: string
  course_id: string
  kind: Tables<'plans'>['kind']
  title: string
  updated_at: string
  class_count: number
  /** The calendar class of the plan's first class, if linked. */
  session: SessionInfo | null
}

const one = <T,>(value: T | T[] | null | undefined): T | null => (Array.isArray(value) ? (value[0] ?? null) : (value ?? null))

export function usePlans() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({
    queryKey: plannerKeys.list(user?.id ?? ''),
    enabled: Boolean(user),
    meta: { action: 'cargar tus planificaciones' },
    queryFn: async (): Promise<PlanSummary[]> => {
      const { data, error } = await supabase
        .from('plans')
        .select('id, course_id, kind, title, updated_at, class_count, plan_classes(position, class_sessions(session_date, start_time, status))')
        .eq('teacher_id', user?.id ?? '')
        .order('updated_at', { ascending: false })
      if (error) throw error
      return data.map((plan) => {
        const first = plan.plan_classes.find((planClass) => planClass.position === 1)
        return {
          id: plan.id,
          course_id: plan.course_id,
          kind: plan.kind,
          title: plan.title,
          updated_at: plan.updated_at,
          class_count: plan.class_count,
          session: one(first?.class_sessions as SessionInfo | SessionInfo[] | null | undefined),
        }
      })
    },
  })
}

export type Objective = Pick<Tables<'learning_objectives'>, 'id' | 'code' | 'eje' | 'statement' | 'kind' | 'position'>

export interface PlanClass {
  id: string
  position: number
  title: string | null
  /** Whether any of its zones has text. */
  written: boolean
  content_format: string
  legacy_migration: string | null
  class_session_id: string | null
  session: SessionInfo | null
}

export interface PlanDetail {
  id: string
  course_id: string
  kind: Tables<'plans'>['kind']
  title: string
  unit_name: string | null
  class_count: number
  class_blocks: number
  objectives: Objective[]
  classes: PlanClass[]
}

/** A plan whole; `fresh` reads it again on every visit (an overview of classes edited elsewhere). */
export function usePlan(planId: string | null, { fresh = false }: { fresh?: boolean } = {}) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: plannerKeys.plan(planId ?? ''),
    enabled: Boolean(planId),
    ...(fresh ? { refetchOnMount: 'always' as const } : {}),
    meta: { action: 'cargar la planificación' },
    queryFn: async (): Promise<PlanDetail | null> => {
      const { data, error } = await supabase
        .from('plans')
        .select(
          'id, course_id, kind, title, unit_name, class_count, class_blocks, ' +
            'plan_learning_objectives(learning_objectives(id, code, eje, statement, kind, position)), ' +
            'plan_classes(id, position, title, content_format, legacy_migration, class_session_id, class_sessions(session_date, start_time, status), plan_zones(content_length))',
        )
        .eq('id', planId ?? '')
        .maybeSingle()
      if (error) throw error
      if (!data) return null
      const row = data as unknown as {
        id: string
        course_id: string
        kind: Tables<'plans'>['kind']
        title: string
        unit_name: string | null
        class_count: number
        class_blocks: number
        plan_learning_objectives: Array<{ learning_objectives: Objective | Objective[] | null }>
        plan_classes: Array<
          Omit<PlanClass, 'session' | 'written'> & {
            class_sessions: SessionInfo | SessionInfo[] | null
            plan_zones: Array<{ content_length: number }>
          }
        >
      }
      return {
        id: row.id,
        course_id: row.course_id,
        kind: row.kind,
        title: row.title,
        unit_name: row.unit_name,
        class_count: row.class_count,
        class_blocks: row.class_blocks,
        objectives: row.plan_learning_objectives
          .map((link) => one(link.learning_objectives))
          .filter((objective): objective is Objective => objective !== null)
          .sort((a, b) => a.position - b.position),
        classes: row.plan_classes
          .map(({ class_sessions, plan_zones, ...planClass }) => ({
            ...planClass,
            session: one(class_sessions),
            written: plan_zones.some((zone) => zone.content_length > 0),
          }))
          .sort((a, b) => a.position - b.position),
      }
    },
  })
}

export type Zone = Pick<Tables<'plan_zones'>, 'id' | 'plan_class_id' | 'zone_type' | 'position' | 'title' | 'version'> & {
  content: Json
}

export function usePlanZones(planClassId: string | null) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: plannerKeys.zones(planClassId ?? ''),
    enabled: Boolean(planClassId),
    // The editors own the text once loaded: a refetch would fight the teacher's typing.
    staleTime: Infinity,
    meta: { action: 'cargar las zonas' },
    queryFn: async (): Promise<Zone[]> => {
      const { data, error } = await supabase
        .from('plan_zones')
        .select('id, plan_class_id, zone_type, position, title, version, content')
        .eq('plan_class_id', planClassId ?? '')
        .order('position')
      if (error) throw error
      return data
    },
  })
}

/** The OAs of a level and subject (the curriculum browser), in the curriculum's order. */
export function useObjectives(levelCode: string | undefined, subjectCode: string | undefined) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: plannerKeys.objectives(levelCode ?? '', subjectCode ?? ''),
    enabled: Boolean(levelCode && subjectCode),
    staleTime: Infinity,
    meta: { action: 'cargar los objetivos de aprendizaje' },
    queryFn: async (): Promise<Objective[]> => {
      const { data, error } = await supabase
        .from('learning_objectives')
        .select('id, code, eje, statement, kind, position')
        .eq('level_code', levelCode ?? '')
        .eq('subject_code', subjectCode ?? '')
        .eq('kind', 'OA')
        .order('position')
      if (error) throw error
      return data
    },
  })
}

export interface NewPlan {
  courseId: string
  title: string
  objectiveIds: string[]
  classSessionId: string | null
  classBlocks: number
  classDate?: string | null
  classStart?: string | null
}

export function useCreatePlan() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (plan: NewPlan) => {
      const { data, error } = await supabase.rpc('create_simple_plan', {
        course_id: plan.courseId,
        title: plan.title,
        objective_ids: plan.objectiveIds,
        ...(plan.classSessionId ? { class_session_id: plan.classSessionId } : {}),
        ...(plan.classDate ? { class_date: plan.classDate, class_start: plan.classStart ?? '08:00' } : {}),
        class_blocks: plan.classBlocks,
      })
      if (error) throw error
      return data
    },
    onSettled: () =>
      queryClient.invalidateQueries({
        predicate: (query) => ['planner', 'calendar', 'courses'].includes(String(query.queryKey[0])),
      }),
  })
}

export function useDeletePlan() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (planId: string) => {
      const { error } = await supabase.from('plans').delete().eq('id', planId)
      if (error) throw error
    },
    onSettled: () =>
      queryClient.invalidateQueries({
        predicate: (query) => ['planner', 'calendar', 'courses'].includes(String(query.queryKey[0])),
      }),
  })
}

export function useRenamePlan(planId: string) {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (title: string) => {
      const { error } = await supabase.from('plans').update({ title: title.trim() }).eq('id', planId)
      if (error) throw error
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: plannerKeys.all }),
  })
}

/** Zone structure changes (not content): each refreshes the class's zones from the database. */
export function useZoneStructure(planClassId: string) {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  const key = plannerKeys.zones(planClassId)
  const refresh = () => queryClient.invalidateQueries({ queryKey: key })
  const add = useMutation({
    mutationFn: async ({ zoneType, title, position }: { zoneType: ZoneType; title: string; position: number }) => {
      const { error } = await supabase
        .from('plan_zones')
        .insert({ plan_class_id: planClassId, zone_type: zoneType, title: title.trim(), position })
      if (error) throw error
    },
    onSettled: refresh,
  })
  /** A class without zones gets the usual ones in one insert (one transaction). */
  const addStandard = useMutation({
    mutationFn: async (zones: ReadonlyArray<{ zoneType: ZoneType; title: string }>) => {
      const { error } = await supabase
        .from('plan_zones')
        .insert(zones.map((zone, index) => ({ plan_class_id: planClassId, zone_type: zone.zoneType, title: zone.title, position: index + 1 })))
      if (error) throw error
    },
    onSettled: refresh,
  })
  const rename = useMutation({
    mutationFn: async ({ id, title }: { id: string; title: string }) => {
      const { error } = await supabase.from('plan_zones').update({ title: title.trim() }).eq('id', id)
      if (error) throw error
    },
    onMutate: ({ id, title }) => {
      queryClient.setQueryData<Zone[]>(key, (zones) => zones?.map((zone) => (zone.id === id ? { ...zone, title } : zone)))
    },
  })
  const remove = useMutation({
    mutationFn: async (id: string) => {
      const { error } = await supabase.from('plan_zones').delete().eq('id', id)
      if (error) throw error
    },
    onMutate: (id) => {
      const previous = queryClient.getQueryData<Zone[]>(key)
      queryClient.setQueryData<Zone[]>(key, (zones) => zones?.filter((zone) => zone.id !== id))
      return () => queryClient.setQueryData(key, previous)
    },
    onError: (_error, _id, restore) => restore?.(),
  })
  const reorder = useMutation({
    mutationFn: async (zoneIds: string[]) => {
      const { error } = await supabase.rpc('reorder_plan_zones', { plan_class_id: planClassId, zone_ids: zoneIds })
      if (error) throw error
    },
    onMutate: (zoneIds) => {
      const previous = queryClient.getQueryData<Zone[]>(key)
      const rank = new Map(zoneIds.map((id, index) => [id, index + 1]))
      queryClient.setQueryData<Zone[]>(key, (zones) =>
        zones?.map((zone) => ({ ...zone, position: rank.get(zone.id) ?? zone.position })).sort((a, b) => a.position - b.position),
      )
      return () => queryClient.setQueryData(key, previous)
    },
    onError: (_error, _ids, restore) => restore?.(),
  })
  return { add, addStandard, rename, remove, reorder }
}

/** Migrates a legacy class into zones; answers the database's outcome. */
export function useMigrateLegacy() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (planClassId: string) => {
      const { data, error } = await supabase.rpc('migrate_legacy_plan_class', { plan_class_id: planClassId })
      if (error) throw error
      return data
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: plannerKeys.all }),
  })
}

export interface CourseClass {
  id: string
  course_id: string
  session_date: string
  start_time: string
  pedagogical_hours: number
  status: Tables<'class_sessions'>['status']
  planned: boolean
}

/** A course's calendar classes in date order, each saying whether a plan covers it. */
export function useCourseClasses(courseId: string | null) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: [...plannerKeys.all, 'course-classes', courseId ?? ''] as const,
    enabled: Boolean(courseId),
    meta: { action: 'cargar las clases del curso' },
    queryFn: async (): Promise<CourseClass[]> => {
      const { data, error } = await supabase
        .from('class_sessions')
        .select('id, course_id, session_date, start_time, pedagogical_hours, status, plan_classes(id)')
        .eq('course_id', courseId ?? '')
        .order('session_date')
        .order('start_time')
      if (error) throw error
      return data.map(({ plan_classes, ...session }) => ({ ...session, planned: one(plan_classes as unknown) !== null }))
    },
  })
}

/** One calendar class (to start a plan from the calendar's "Planificar esta clase"). */
export function useClassSession(id: string | null) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: [...plannerKeys.all, 'class-session', id ?? ''] as const,
    enabled: Boolean(id),
    queryFn: async () => {
      const { data, error } = await supabase
        .from('class_sessions')
        .select('id, course_id, session_date, start_time, pedagogical_hours')
        .eq('id', id ?? '')
        .maybeSingle()
      if (error) throw error
      return data
    },
  })
}
