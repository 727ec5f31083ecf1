/**
 * The onboarding check of a signed-in teacher: her profile and whether she has a course (the
 * spec's two calls). A check that fails is logged and counts as no data (spec section 8).
 */
import { useEffect } from 'react'
import { useCourseCount } from '@/features/courses'
import { useProfile } from '@/features/profile'
import { logger } from '@/lib/logger'
import { isOnboarded } from '@/features/onboarding/steps'

export function useOnboardingStatus() {
  const profile = useProfile()
  const courses = useCourseCount()
  useEffect(() => {
    if (profile.isError) logger.warn('Onboarding: no se pudo leer el perfil', { error: String(profile.error) })
  }, [profile.isError, profile.error])
  useEffect(() => {
    if (courses.isError) logger.warn('Onboarding: no se pudo contar los cursos', { error: String(courses.error) })
  }, [courses.isError, courses.error])
  const data = {
    profile: profile.isError ? null : (profile.data ?? null),
    courseCount: courses.isError ? 0 : (courses.data ?? 0),
  }
  return {
    ...data,
    loading: profile.isPending || courses.isPending,
    onboarded: isOnboarded(data.profile, data.courseCount),
  }
}
