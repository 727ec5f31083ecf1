/**
 * Creating, changing and deleting courses: each change shown at once in the cached list and
 * put back if the database refuses it; what depends on courses (schedule, calendar) is
 * fetched again after.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useAuth } from '@/lib/auth/auth-provider'
import { useSupabase } from '@/lib/supabase-provider'
import type { CourseDraft } from '@/features/courses/course-form'
import { courseKeys } from './course-count'
import type { Course } from './courses'

function useCourseCache() {
  const queryClient = useQueryClient()
  const { user } = useAuth()
  const key = [...courseKeys.all, 'list', user?.id ?? ''] as const
  return {
    key,
    queryClient,
    /** Applies `change` to the cached list at once; returns how to put it back. */
    async optimistic(change: (courses: Course[]) => Course[]) {
      await queryClient.cancelQueries({ queryKey: key })
      const previous = queryClient.getQueryData<Course[]>(key)
      if (previous) queryClient.setQueryData<Course[]>(key, change(previous))
      return () => queryClient.setQueryData(key, previous)
    },
    // A course's blocks and classes go with it (ON DELETE CASCADE), and its colour is theirs.
    settle: () =>
      queryClient.invalidateQueries({
        predicate: (query) => ['courses', 'schedule', 'calendar'].includes(String(query.queryKey[0])),
      }),
  }
}

export function useCreateCourse() {
  const supabase = useSupabase()
  const cache = useCourseCache()
  return useMutation({
    mutationFn: async (draft: CourseDraft) => {
      const { data, error } = await supabase.from('courses').insert(draft).select().single()
      if (error) throw error
      return data
    },
    onSettled: cache.settle,
  })
}

export function useUpdateCourse() {
  const supabase = useSupabase()
  const cache = useCourseCache()
  return useMutation({
    mutationFn: async ({ id, draft }: { id: string; draft: CourseDraft }) => {
      const { data, error } = await supabase.from('courses').update(draft).eq('id', id).select().single()
      if (error) throw error
      return data
    },
    onMutate: ({ id, draft }) =>
      cache.optimistic((courses) => courses.map((course) => (course.id === id ? { ...course, ...draft } : course))),
    onError: (_error, _variables, restore) => restore?.(),
    onSettled: cache.settle,
  })
}

export function useDeleteCourse() {
  const supabase = useSupabase()
  const cache = useCourseCache()
  return useMutation({
    mutationFn: async (id: string) => {
      const { error } = await supabase.from('courses').delete().eq('id', id)
      if (error) throw error
    },
    onMutate: (id) => cache.optimistic((courses) => courses.filter((course) => course.id !== id)),
    onError: (_error, _variables, restore) => restore?.(),
    onSettled: cache.settle,
  })
}

