/**
 * Panel directivo's data: the school the signed-in user leads (their directivo role) and,
 * for it, each course with its teacher, plans and classes (`rpc('school_overview')`, under
 * RLS), summed up per teacher and for the whole school.
 */
import { useQuery } from '@tanstack/react-query'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Database } from '@/lib/database.types'
import { useSupabase } from '@/lib/supabase-provider'

export type CourseOverview = Database['public']['Functions']['school_overview']['Returns'][number]

export interface LedSchool {
  rbd: number
  name: string
  comuna: string
}

export interface Progress {
  plans: number
  classes: number
  done: number
  cancelled: number
  planned: number
}

export interface TeacherOverview extends Progress {
  teacherId: string
  name: string
  courses: CourseOverview[]
  lastPlanAt: string | null
}

export const schoolLeaderKeys = { all: ['school-leader'] as const }

const emptyProgress = (): Progress => ({ plans: 0, classes: 0, done: 0, cancelled: 0, planned: 0 })

function add(total: Progress, row: CourseOverview): void {
  total.plans += row.plan_count
  total.classes += row.classes_total
  total.done += row.classes_done
  total.cancelled += row.classes_cancelled
  total.planned += row.classes_planned
}

/** Share of the classes that are not cancelled which have a plan, in whole percent (null without classes). */
export function planCoverage(progress: Progress): number | null {
  const held = progress.classes - progress.cancelled
  return held > 0 ? Math.round((progress.planned * 100) / held) : null
}

/** The courses grouped by teacher (by name, unnamed last), and the school's totals. */
export function summarizeSchool(rows: CourseOverview[]): { teachers: TeacherOverview[]; total: Progress & { teachers: number; courses: number } } {
  const byTeacher = new Map<string, TeacherOverview>()
  const total = { ...emptyProgress(), teachers: 0, courses: rows.length }
  for (const row of rows) {
    let teacher = byTeacher.get(row.teacher_id)
    if (!teacher) {
      teacher = { ...emptyProgress(), teacherId: row.teacher_id, name: row.teacher_name ?? '', courses: [], lastPlanAt: null }
      byTeacher.set(row.teacher_id, teacher)
    }
    teacher.courses.push(row)
    add(teacher, row)
    add(total, row)
    if (row.last_plan_at && (!teacher.lastPlanAt || row.last_plan_at > teacher.lastPlanAt)) teacher.lastPlanAt = row.last_plan_at
  }
  total.teachers = byTeacher.size
  const teachers = [...byTeacher.values()].sort((a, b) => (a.name ? 0 : 1) - (b.name ? 0 : 1) || a.name.localeCompare(b.name, 'es'))
  return { teachers, total }
}

/** The school the user leads as directivo, or null. */
export function useLedSchool() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({
    queryKey: [...schoolLeaderKeys.all, 'school', user?.id ?? ''] as const,
    enabled: Boolean(user),
    meta: { action: 'cargar tu establecimiento' },
    queryFn: async (): Promise<LedSchool | null> => {
      const { data, error } = await supabase
        .from('user_roles')
        .select('school_rbd, schools(NOM_RBD, comuna)')
        .eq('user_id', user?.id ?? '')
        .eq('role', 'directivo')
        .maybeSingle()
      if (error) throw error
      if (!data?.school_rbd) return null
      return { rbd: data.school_rbd, name: data.schools?.NOM_RBD ?? `RBD ${data.school_rbd}`, comuna: data.schools?.comuna ?? '' }
    },
  })
}

export function useSchoolOverview(rbd: number | undefined) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: [...schoolLeaderKeys.all, 'overview', rbd ?? 0] as const,
    enabled: rbd !== undefined,
    meta: { action: 'cargar el resumen del establecimiento' },
    queryFn: async (): Promise<CourseOverview[]> => {
      const { data, error } = await supabase.rpc('school_overview', { school_rbd: rbd ?? 0 })
      if (error) throw error
      return data
    },
  })
}
