/**
 * The calendar's data: the school year where the teacher teaches (her school's region and
 * comuna → `school_calendars` and `holidays`), her classes (`class_sessions`, with the plan
 * each one belongs to) and the events she can see (`school_events`), by date range; and the
 * changes she makes: filling the calendar from the weekly schedule (`rpc('schedule_classes')`),
 * a class's state (shown at once, put back if refused) and her own events.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { paths } from '@/config/paths'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Tables } from '@/lib/database.types'
import { chileToday, type IsoDay } from '@/lib/dates'
import { useSupabase } from '@/lib/supabase-provider'
import { useCourses } from '@/features/courses'
import { useProfile } from '@/features/profile'
import type { ClassStatus } from '@/features/calendar/transitions'
import {
  currentSchoolYear,
  holidaysAt,
  type EventDraft,
  type Holiday,
  type HolidayRow,
  type SchoolYear,
} from '@/features/calendar/year'

export const calendarKeys = {
  all: ['calendar'] as const,
  year: (rbd: number | null) => [...calendarKeys.all, 'year', rbd] as const,
  sessions: (teacherId: string, from: IsoDay, to: IsoDay) => [...calendarKeys.all, 'sessions', teacherId, from, to] as const,
  nearest: (teacherId: string, today: IsoDay) => [...calendarKeys.all, 'nearest', teacherId, today] as const,
  events: (from: IsoDay, to: IsoDay) => [...calendarKeys.all, 'events', from, to] as const,
}

/** A Santiago school when the teacher has none: the database fills classes the same way. */
const DEFAULT_REGION = 13

export interface SchoolYearData {
  year: SchoolYear | undefined
  holidays: Holiday[]
  regionName: string
}

/** The school year of the teacher's school (her profile's, else her first course's). */
export function useSchoolYear() {
  const supabase = useSupabase()
  const profile = useProfile()
  const courses = useCourses()
  const rbd = profile.data?.school_rbd ?? courses.data?.find((course) => course.school_rbd !== null)?.school_rbd ?? null
  return useQuery({
    queryKey: calendarKeys.year(rbd),
    enabled: !profile.isPending && !courses.isPending,
    staleTime: Infinity,
    meta: { action: 'cargar el calendario escolar' },
    queryFn: async (): Promise<SchoolYearData> => {
      let regionCode = DEFAULT_REGION
      let comuna: string | null = null
      if (rbd !== null) {
        const school = await supabase.from('schools').select('region_code, comuna').eq('RBD', rbd).maybeSingle()
        if (school.error) throw school.error
        if (school.data) ({ region_code: regionCode, comuna } = school.data)
      }
      const [calendars, holidays, region] = await Promise.all([
        supabase
          .from('school_calendars')
          .select('academic_year, region_code, students_start, winter_break_start, winter_break_end, classes_end_jec')
          .eq('region_code', regionCode),
        supabase.from('holidays').select('holiday_date, name, scope, region_code, comunas').order('holiday_date'),
        supabase.from('regions').select('name').eq('code', regionCode).single(),
      ])
      for (const result of [calendars, holidays, region]) if (result.error) throw result.error
      const years: SchoolYear[] = (calendars.data ?? []).map((row) => ({
        academicYear: row.academic_year,
        regionCode: row.region_code,
        studentsStart: row.students_start,
        winterBreakStart: row.winter_break_start,
        winterBreakEnd: row.winter_break_end,
        classesEnd: row.classes_end_jec,
      }))
      return {
        year: currentSchoolYear(years, chileToday()),
        holidays: holidaysAt((holidays.data ?? []) as HolidayRow[], regionCode, comuna),
        regionName: region.data?.name ?? '',
      }
    },
  })
}

type SessionRow = Pick<
  Tables<'class_sessions'>,
  'id' | 'course_id' | 'session_date' | 'start_time' | 'pedagogical_hours' | 'status' | 'cancellation_reason' | 'schedule_block_id'
>

/** A class of the calendar, with the plan that covers it, if any. */
export interface ClassSession extends SessionRow {
  planId: string | null
  /** Where its plan opens: the plan editor, or the class's editor in its unit. */
  planLink: string | null
}

const SESSION_COLUMNS =
  'id, course_id, session_date, start_time, pedagogical_hours, status, cancellation_reason, schedule_block_id, plan_classes(id, plan_id, plans(kind))'

function toSession(row: SessionRow & { plan_classes?: unknown }): ClassSession {
  // One plan class per session at most (a unique key): an object, or a one-element list.
  const link = row.plan_classes
  const first = (Array.isArray(link) ? link[0] : link) as { id: string; plan_id: string; plans: { kind: string } | null } | null | undefined
  return {
    id: row.id,
    course_id: row.course_id,
    session_date: row.session_date,
    start_time: row.start_time,
    pedagogical_hours: row.pedagogical_hours,
    status: row.status,
    cancellation_reason: row.cancellation_reason,
    schedule_block_id: row.schedule_block_id,
    planId: first?.plan_id ?? null,
    planLink: !first
      ? null
      : first.plans?.kind === 'secuencial'
        ? paths.sequentialClassEdit(first.plan_id, first.id)
        : paths.plan(first.plan_id),
  }
}

export function useClassSessions(from: IsoDay, to: IsoDay) {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({
    queryKey: calendarKeys.sessions(user?.id ?? '', from, to),
    enabled: Boolean(user),
    meta: { action: 'cargar tus clases' },
    queryFn: async (): Promise<ClassSession[]> => {
      const { data, error } = await supabase
        .from('class_sessions')
        .select(SESSION_COLUMNS)
        .eq('teacher_id', user?.id ?? '')
        .gte('session_date', from)
        .lte('session_date', to)
        .order('session_date')
        .order('start_time')
      if (error) throw error
      return (data as Array<SessionRow & { plan_classes?: unknown }>).map(toSession)
    },
  })
}

/** The teacher's class days nearest to `today`: the last one before it and the first after. */
export function useNearestClassDays(today: IsoDay) {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({
    queryKey: calendarKeys.nearest(user?.id ?? '', today),
    enabled: Boolean(user),
    queryFn: async () => {
      const base = () => supabase.from('class_sessions').select('session_date').eq('teacher_id', user?.id ?? '').limit(1)
      const [before, after] = await Promise.all([
        base().lt('session_date', today).order('session_date', { ascending: false }),
        base().gte('session_date', today).order('session_date'),
      ])
      if (before.error) throw before.error
      if (after.error) throw after.error
      return { before: before.data[0]?.session_date ?? null, after: after.data[0]?.session_date ?? null }
    },
  })
}

export type SchoolEvent = Tables<'school_events'>

export function useSchoolEvents(from: IsoDay, to: IsoDay) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: calendarKeys.events(from, to),
    meta: { action: 'cargar los eventos' },
    queryFn: async (): Promise<SchoolEvent[]> => {
      const { data, error } = await supabase
        .from('school_events')
        .select('*')
        .lte('starts_on', to)
        .gte('ends_on', from)
        .order('starts_on')
        .order('start_time', { nullsFirst: true })
      if (error) throw error
      return data
    },
  })
}

function useInvalidateCalendar() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: calendarKeys.all })
}

/** Creates the classes of the weekly schedule between two dates; answers how many. */
export function useFillCalendar() {
  const supabase = useSupabase()
  const invalidate = useInvalidateCalendar()
  return useMutation({
    mutationFn: async ({ from, to }: { from: IsoDay; to: IsoDay }) => {
      const { data, error } = await supabase.rpc('schedule_classes', { from_date: from, to_date: to })
      if (error) throw error
      return data
    },
    onSettled: invalidate,
  })
}

export function useSetClassStatus() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  const invalidate = useInvalidateCalendar()
  const sessionsKey = [...calendarKeys.all, 'sessions']
  return useMutation({
    mutationFn: async ({ id, status, reason }: { id: string; status: ClassStatus; reason?: string }) => {
      const { error } = await supabase
        .from('class_sessions')
        .update({ status, cancellation_reason: status === 'Cancelada' ? (reason?.trim() ?? null) : null })
        .eq('id', id)
      if (error) throw error
    },
    onMutate: async ({ id, status, reason }) => {
      await queryClient.cancelQueries({ queryKey: sessionsKey })
      const previous = queryClient.getQueriesData<ClassSession[]>({ queryKey: sessionsKey })
      queryClient.setQueriesData<ClassSession[]>({ queryKey: sessionsKey }, (sessions) =>
        sessions?.map((session) =>
          session.id === id
            ? { ...session, status, cancellation_reason: status === 'Cancelada' ? (reason?.trim() ?? null) : null }
            : session,
        ),
      )
      return () => previous.forEach(([key, data]) => queryClient.setQueryData(key, data))
    },
    onError: (_error, _variables, restore) => restore?.(),
    onSettled: invalidate,
  })
}

function eventRow(draft: EventDraft) {
  return {
    ...draft,
    title: draft.title.trim(),
    description: draft.description?.trim() ? draft.description.trim() : null,
  }
}

export function useSaveEvent() {
  const supabase = useSupabase()
  const invalidate = useInvalidateCalendar()
  return useMutation({
    mutationFn: async ({ id, draft }: { id?: string; draft: EventDraft }) => {
      const request = id
        ? supabase.from('school_events').update(eventRow(draft)).eq('id', id)
        : supabase.from('school_events').insert(eventRow(draft))
      const { error } = await request
      if (error) throw error
    },
    onSettled: invalidate,
  })
}

export function useDeleteEvent() {
  const supabase = useSupabase()
  const invalidate = useInvalidateCalendar()
  return useMutation({
    mutationFn: async (id: string) => {
      const { error } = await supabase.from('school_events').delete().eq('id', id)
      if (error) throw error
    },
    onSettled: invalidate,
  })
}
