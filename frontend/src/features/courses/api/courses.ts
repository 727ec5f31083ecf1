/**
 * The teacher's courses and the curriculum they are made of: queries (the courses, the
 * levels, subjects and which subject is taught at which level) and the create, edit and
 * delete mutations. Edits and deletions show at once (optimistic) and are put back if the
 * database refuses them; every change invalidates the courses' queries.
 */
import { queryOptions, useQuery } from '@tanstack/react-query'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Tables } from '@/lib/database.types'
import type { CieloClient } from '@/lib/supabase'
import { useSupabase } from '@/lib/supabase-provider'
import { groupName } from '@/features/courses/course-form'
import { courseKeys } from './course-count'

export type Course = Tables<'courses'>

export interface Curriculum {
  levels: Array<Pick<Tables<'levels'>, 'code' | 'name' | 'grade'>>
  subjects: Map<string, string>
  /** Subject codes taught at each level, in the curriculum's order. */
  subjectsByLevel: Map<string, string[]>
}

export const curriculumKeys = { all: ['curriculum'] as const }

export async function fetchCourses(supabase: CieloClient, teacherId: string): Promise<Course[]> {
  const { data, error } = await supabase
    .from('courses')
    .select('*')
    .eq('teacher_id', teacherId)
    .order('level_code')
    .order('letter')
    .order('subject_code')
  if (error) throw error
  return data
}

export async function fetchCurriculum(supabase: CieloClient): Promise<Curriculum> {
  const [levels, subjects, levelSubjects] = await Promise.all([
    supabase.from('levels').select('code, name, grade').order('grade'),
    supabase.from('subjects').select('code, name').order('name'),
    supabase.from('level_subjects').select('level_code, subject_code'),
  ])
  for (const result of [levels, subjects, levelSubjects]) if (result.error) throw result.error
  const subjectNames = new Map((subjects.data ?? []).map((subject) => [subject.code, subject.name]))
  const subjectsByLevel = new Map<string, string[]>()
  for (const row of levelSubjects.data ?? []) {
    subjectsByLevel.set(row.level_code, [...(subjectsByLevel.get(row.level_code) ?? []), row.subject_code])
  }
  const byName = (a: string, b: string) => (subjectNames.get(a) ?? a).localeCompare(subjectNames.get(b) ?? b, 'es')
  for (const codes of subjectsByLevel.values()) codes.sort(byName)
  return { levels: levels.data ?? [], subjects: subjectNames, subjectsByLevel }
}

export const coursesQueryOptions = (supabase: CieloClient, teacherId: string) =>
  queryOptions({
    queryKey: [...courseKeys.all, 'list', teacherId] as const,
    queryFn: () => fetchCourses(supabase, teacherId),
    meta: { action: 'cargar tus cursos' },
  })

export const curriculumQueryOptions = (supabase: CieloClient) =>
  queryOptions({
    queryKey: curriculumKeys.all,
    queryFn: () => fetchCurriculum(supabase),
    // Reference data: it changes with a migration, not while the app is open.
    staleTime: Infinity,
    meta: { action: 'cargar el currículum' },
  })

export function useCourses() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({ ...coursesQueryOptions(supabase, user?.id ?? ''), enabled: Boolean(user) })
}

export function useCurriculum() {
  return useQuery(curriculumQueryOptions(useSupabase()))
}

/** How many learning objectives (OA) the curriculum has for a level and subject. */
export function useObjectiveCount(levelCode: string, subjectCode: string) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: [...curriculumKeys.all, 'objective-count', levelCode, subjectCode] as const,
    queryFn: async () => {
      const { count, error } = await supabase
        .from('learning_objectives')
        .select('id', { count: 'exact', head: true })
        .eq('level_code', levelCode)
        .eq('subject_code', subjectCode)
        .eq('kind', 'OA')
      if (error) throw error
      return count ?? 0
    },
    staleTime: Infinity,
  })
}

/** Per course, how many distinct learning objectives the teacher's plans for it work on. */
export function useCoveredObjectives() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({
    queryKey: [...courseKeys.all, 'covered-objectives', user?.id ?? ''] as const,
    enabled: Boolean(user),
    meta: { action: 'cargar los OA de tus planificaciones' },
    queryFn: async (): Promise<Map<string, number>> => {
      const { data, error } = await supabase
        .from('plans')
        .select('course_id, plan_learning_objectives(objective_id)')
        .eq('teacher_id', user?.id ?? '')
      if (error) throw error
      const covered = new Map<string, Set<string>>()
      for (const plan of data) {
        const objectives = covered.get(plan.course_id) ?? new Set<string>()
        for (const link of plan.plan_learning_objectives) objectives.add(link.objective_id)
        covered.set(plan.course_id, objectives)
      }
      return new Map([...covered].map(([course, objectives]) => [course, objectives.size]))
    },
  })
}

/** How a course is named where it is shown small (grid blocks, calendar, dashboard). */
export interface CourseLabel {
  id: string
  /** "Matemática" */
  subject: string
  /** "3° Básico A" */
  group: string
  /** "Matemática · 3° Básico A" */
  name: string
  color: string
}

export function courseLabels(courses: Course[], curriculum: Curriculum): Map<string, CourseLabel> {
  return new Map(
    courses.map((course) => {
      const level = curriculum.levels.find((l) => l.code === course.level_code)?.name
      const subject = curriculum.subjects.get(course.subject_code) ?? course.subject_code
      const group = groupName(level, course.letter)
      return [course.id, { id: course.id, subject, group, name: `${subject} · ${group}`, color: course.color }]
    }),
  )
}

/** The teacher's courses by id with their display names, once courses and curriculum load. */
export function useCourseLabels() {
  const courses = useCourses()
  const curriculum = useCurriculum()
  const labels = courses.data && curriculum.data ? courseLabels(courses.data, curriculum.data) : undefined
  return {
    labels,
    isPending: courses.isPending || curriculum.isPending,
    isError: courses.isError || curriculum.isError,
  }
}
