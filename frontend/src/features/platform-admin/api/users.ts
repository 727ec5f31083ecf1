/**
 * Gestión Plataforma's accounts (admins): the list from `rpc('admin_users')` — searched by
 * e-mail, name or school — and the changes an admin makes to one: granting and revoking the
 * admin and content-creator roles and directivo of the teacher's school, and the Demo 2025
 * row (stars, end date, course cap, active).
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { Database } from '@/lib/database.types'
import { useSupabase } from '@/lib/supabase-provider'

export type AdminUser = Database['public']['Functions']['admin_users']['Returns'][number]
export type AppRole = Database['public']['Enums']['app_role']

export const ROLE_LABELS: Record<AppRole, string> = {
  admin: 'Administración',
  content_creator: 'Creación de contenido',
  directivo: 'Directivo',
}

export interface DemoSettings {
  total_stars: number
  demo_end_date: string
  max_courses: number
  is_active: boolean
}

export const adminUserKeys = { all: ['admin-users'] as const }

export const USER_PAGE = 50

export function useAdminUsers(search: string) {
  const supabase = useSupabase()
  return useQuery({
    queryKey: [...adminUserKeys.all, search.trim()] as const,
    placeholderData: keepPreviousData,
    meta: { action: 'cargar las cuentas' },
    queryFn: async (): Promise<AdminUser[]> => {
      const { data, error } = await supabase.rpc('admin_users', { search: search.trim(), max_rows: USER_PAGE })
      if (error) throw error
      return data
    },
  })
}

/** Grants or revokes `role`; directivo is of the school in the teacher's profile. */
export function useSetRole() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ user, role, granted }: { user: AdminUser; role: AppRole; granted: boolean }) => {
      const { error } = granted
        ? await supabase.from('user_roles').insert({ user_id: user.user_id, role, school_rbd: role === 'directivo' ? user.school_rbd : null })
        : await supabase.from('user_roles').delete().eq('user_id', user.user_id).eq('role', role)
      if (error) throw error
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminUserKeys.all }),
  })
}

/** Puts the user in the Demo 2025 with `settings`, or changes their row. */
export function useSaveDemo() {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ userId, settings }: { userId: string; settings: DemoSettings }) => {
      const { error } = await supabase.from('demo_users_2025').upsert({ user_id: userId, ...settings }, { onConflict: 'user_id' })
      if (error) throw error
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminUserKeys.all }),
  })
}

/** The problem with demo settings before they are sent, or null. */
export function demoProblem(settings: DemoSettings, usedStars: number): string | null {
  if (!Number.isInteger(settings.total_stars) || settings.total_stars < 0) return 'Las estrellas deben ser un número entero desde 0.'
  if (settings.total_stars < usedStars) return `Ya usó ${usedStars} estrellas: el total no puede ser menor.`
  if (!Number.isInteger(settings.max_courses) || settings.max_courses < 0 || settings.max_courses > 50) return 'El máximo de cursos va de 0 a 50.'
  if (!/^\d{4}-\d{2}-\d{2}$/.test(settings.demo_end_date)) return 'Indica el último día de la demo.'
  return null
}
