/**
 * Demo 2025 (Estrellas Cielo): the user's `demo_users_2025` row (filter user_id), polled
 * every 30 s and stale after 10 s, and what the widget derives from it (spec sections 3–5).
 */
import { queryOptions, useQuery } from '@tanstack/react-query'
import { useSupabase } from '@/lib/supabase-provider'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Tables } from '@/lib/database.types'
import type { CieloClient } from '@/lib/supabase'
import { chileToday } from '@/lib/dates'

export type DemoUserRow = Pick<
  Tables<'demo_users_2025'>,
  'user_id' | 'total_stars' | 'used_stars' | 'demo_end_date' | 'max_courses' | 'is_active'
>

export interface DemoStars {
  isDemoUser: boolean
  isExpired: boolean
  totalStars: number
  usedStars: number
  remainingStars: number
  usagePercentage: number
  demoEndDate: string | null
  maxCourses: number | null
  isActive: boolean
}

export const demoStarsKeys = {
  all: ['demo-stars'] as const,
  detail: (userId: string) => [...demoStarsKeys.all, userId] as const,
}

export function deriveDemoStars(row: DemoUserRow | null, today: string = chileToday()): DemoStars {
  if (!row) {
    return {
      isDemoUser: false,
      isExpired: false,
      totalStars: 0,
      usedStars: 0,
      remainingStars: 0,
      usagePercentage: 0,
      demoEndDate: null,
      maxCourses: null,
      isActive: false,
    }
  }
  const used = Math.min(row.used_stars, row.total_stars)
  return {
    isDemoUser: true,
    isExpired: today > row.demo_end_date,
    totalStars: row.total_stars,
    usedStars: used,
    remainingStars: row.total_stars - used,
    // Exact: 79.9 % is below the 80 % notice, whatever a rounded figure would say.
    usagePercentage: row.total_stars > 0 ? (used / row.total_stars) * 100 : 100,
    demoEndDate: row.demo_end_date,
    maxCourses: row.max_courses,
    isActive: row.is_active,
  }
}

/** Usage colour and message (spec section 5). */
export function usageLevel(percentage: number): { tone: 'yellow' | 'orange' | 'red'; message: string | null } {
  if (percentage >= 95) return { tone: 'red', message: '¡Pocas estrellas!' }
  if (percentage >= 80) return { tone: 'orange', message: 'Estás llegando al límite' }
  return { tone: 'yellow', message: null }
}

export async function fetchDemoRow(supabase: CieloClient, userId: string): Promise<DemoUserRow | null> {
  const { data, error } = await supabase
    .from('demo_users_2025')
    .select('user_id, total_stars, used_stars, demo_end_date, max_courses, is_active')
    .eq('user_id', userId)
    .maybeSingle()
  if (error) throw error
  return data
}

export const demoStarsQueryOptions = (supabase: CieloClient, userId: string) =>
  queryOptions({
    queryKey: demoStarsKeys.detail(userId),
    queryFn: () => fetchDemoRow(supabase, userId),
    refetchInterval: 30_000,
    staleTime: 10_000,
    select: (row) => deriveDemoStars(row),
  })

export function useDemoStars() {
  const supabase = useSupabase()
  const { user } = useAuth()
  return useQuery({ ...demoStarsQueryOptions(supabase, user?.id ?? ''), enabled: Boolean(user) })
}
