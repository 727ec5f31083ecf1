/**
 * The weekly schedule: the teacher's blocks (`schedule_blocks`) and the shape of her school
 * day (`school_days`), with the mutations the Horario page makes. Block changes show at once
 * (optimistic, applied before the request leaves, so a second key press already sees the
 * first move) and are put back when the database refuses them; the requests run one after
 * another, so quick keyboard moves reach the database in the order made, and the blocks are
 * read again only after the last one.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Tables, TablesInsert } from '@/lib/database.types'
import type { CieloClient } from '@/lib/supabase'
import { useSupabase } from '@/lib/supabase-provider'
import { dayShapeFromRow, dayShapeToRow, formatTime, parseTime, type DayShape, type TimedBlock } from '@/features/schedule/grid'

export type ScheduleBlockRow = Tables<'schedule_blocks'>

/** A block as the grid works with it: times in minutes. */
export interface ScheduleBlock extends TimedBlock {
  id: string
  courseId: string
  room: string | null
}

export interface BlockDraft {
  courseId: string
  weekday: number
  start: number
  hours: number
  room: string | null
}

export const scheduleKeys = {
  all: ['schedule'] as const,
  blocks: (teacherId: string) => [...scheduleKeys.all, 'blocks', teacherId] as const,
  day: (teacherId: string) => [...scheduleKeys.all, 'day', teacherId] as const,
}

export function toBlock(row: Pick<ScheduleBlockRow, 'id' | 'course_id' | 'weekday' | 'start_time' | 'pedagogical_hours' | 'room'>): ScheduleBlock {
  return {
    id: row.id,
    courseId: row.course_id,
    weekday: row.weekday,
    start: parseTime(row.start_time),
    hours: row.pedagogical_hours,
    room: row.room,
  }
}

function toRow(draft: BlockDraft): TablesInsert<'schedule_blocks'> {
  return {
    course_id: draft.courseId,
    weekday: draft.weekday,
    start_time: formatTime(draft.start),
    pedagogical_hours: draft.hours,
    room: draft.room?.trim() ? draft.room.trim() : null,
  }
}

export async function fetchBlocks(supabase: CieloClient, teacherId: string): Promise<ScheduleBlock[]> {
  const { data, error } = await supabase
    .from('schedule_blocks')
    .select('id, course_id, weekday, start_time, pedagogical_hours, room')
    .eq('teacher_id', teacherId)
    .order('weekday')
    .order('start_time')
  if (error) throw error
  return data.map(toBlock)
}

export const blocksQueryOptions = (supabase: CieloClient, teacherId: string) =>
  queryOptions({
    queryKey: scheduleKeys.blocks(teacherId),
    queryFn: () => fetchBlocks(supabase, teacherId),
    meta: { action: 'cargar tu horario' },
  })

export function useScheduleBlocks() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({ ...blocksQueryOptions(supabase, user?.id ?? ''), enabled: Boolean(user) })
}

/** The teacher's school day; the usual day until she saves her own. */
export function useSchoolDay() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({
    queryKey: scheduleKeys.day(user?.id ?? ''),
    queryFn: async (): Promise<DayShape> => {
      const { data, error } = await supabase
        .from('school_days')
        .select('day_start, pedagogical_hours, breaks')
        .eq('teacher_id', user?.id ?? '')
        .maybeSingle()
      if (error) throw error
      return dayShapeFromRow(data)
    },
    enabled: Boolean(user),
    staleTime: 5 * 60_000,
    meta: { action: 'cargar tu jornada' },
  })
}

export function useSaveSchoolDay() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  const { user } = useAuth()
  return useMutation({
    mutationFn: async (shape: DayShape) => {
      const { error } = await supabase.from('school_days').upsert({ teacher_id: user?.id, ...dayShapeToRow(shape) })
      if (error) throw error
      return shape
    },
    onSuccess: (shape) => queryClient.setQueryData(scheduleKeys.day(user?.id ?? ''), shape),
  })
}

const mutationKey = ['schedule-blocks'] as const

/** The block requests, one after another in the order they were made. */
let queue: Promise<unknown> = Promise.resolve()
function inOrder<T>(request: () => PromiseLike<T>): Promise<T> {
  const run = queue.catch(() => undefined).then(request)
  queue = run
  return run
}

function useBlockCache() {
  const queryClient = useQueryClient()
  const { user } = useAuth()
  const key = scheduleKeys.blocks(user?.id ?? '')
  return {
    /** Applies `change` to the cached blocks now; returns how to put them back. */
    optimistic(change: (blocks: ScheduleBlock[]) => ScheduleBlock[]) {
      // A read in flight would overwrite the change with older rows: drop it (the revert to
      // the data it started from happens now, before the change is applied).
      void queryClient.cancelQueries({ queryKey: key })
      const previous = queryClient.getQueryData<ScheduleBlock[]>(key)
      if (previous) queryClient.setQueryData<ScheduleBlock[]>(key, change(previous))
      return () => queryClient.setQueryData(key, previous)
    },
    settle: () =>
      queryClient.isMutating({ mutationKey }) <= 1 ? queryClient.invalidateQueries({ queryKey: scheduleKeys.all }) : undefined,
  }
}

export function useCreateBlock() {
  const supabase = useSupabase()
  const cache = useBlockCache()
  return useMutation({
    mutationKey,
    mutationFn: async (draft: BlockDraft) => {
      const { data, error } = await inOrder(() =>
        supabase
          .from('schedule_blocks')
          .insert(toRow(draft))
          .select('id, course_id, weekday, start_time, pedagogical_hours, room')
          .single(),
      )
      if (error) throw error
      return toBlock(data)
    },
    onSettled: cache.settle,
  })
}

export function useUpdateBlock() {
  const supabase = useSupabase()
  const cache = useBlockCache()
  return useMutation({
    mutationKey,
    mutationFn: async ({ id, draft }: { id: string; draft: BlockDraft }) => {
      const { error } = await inOrder(() => supabase.from('schedule_blocks').update(toRow(draft)).eq('id', id))
      if (error) throw error
    },
    onMutate: ({ id, draft }) =>
      cache.optimistic((blocks) => blocks.map((block) => (block.id === id ? { ...block, ...draft } : block))),
    onError: (_error, _variables, restore) => restore?.(),
    onSettled: cache.settle,
  })
}

export function useDeleteBlock() {
  const supabase = useSupabase()
  const cache = useBlockCache()
  return useMutation({
    mutationKey,
    mutationFn: async (id: string) => {
      const { error } = await inOrder(() => supabase.from('schedule_blocks').delete().eq('id', id))
      if (error) throw error
    },
    onMutate: (id) => cache.optimistic((blocks) => blocks.filter((block) => block.id !== id)),
    onError: (_error, _variables, restore) => restore?.(),
    onSettled: cache.settle,
  })
}
