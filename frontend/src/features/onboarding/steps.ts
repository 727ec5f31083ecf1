/**
 * Where a teacher stands in onboarding (spec section 4): 0 for a visitor without an account
 * who brings a plan she tried (`draft_session`), 1 while the profile is incomplete, 3 once it
 * is complete (step 2, the school, is treated as present and skipped over), 4 once she has a
 * course. Onboarded means a complete profile and at least one course.
 */
import { isProfileComplete } from '@/features/profile'

export type OnboardingStep = 0 | 1 | 3 | 4

export interface OnboardingFacts {
  /** No session, or an anonymous one (the public trial's). */
  visitor: boolean
  /** The `draft_session` query parameter, if any. */
  draftSession: string | null
  profile: { first_name?: string | null; last_name?: string | null; how_found_us?: string | null } | null
  courseCount: number
}

/** The step, or null for a visitor who brings no plan (she signs in or up at /auth). */
export function onboardingStep(facts: OnboardingFacts): OnboardingStep | null {
  if (facts.visitor) return facts.draftSession ? 0 : null
  if (!isProfileComplete(facts.profile)) return 1
  if (facts.courseCount < 1) return 3
  return 4
}

export function isOnboarded(profile: OnboardingFacts['profile'], courseCount: number): boolean {
  return isProfileComplete(profile) && courseCount > 0
}

/** The steps as the teacher sees them: account (only with a plan to keep), profile, first course, ready. */
export function visibleSteps(step: OnboardingStep): Array<{ step: OnboardingStep; label: string }> {
  const steps: Array<{ step: OnboardingStep; label: string }> = [
    { step: 1, label: 'Tu perfil' },
    { step: 3, label: 'Tu primer curso' },
    { step: 4, label: '¡Listo!' },
  ]
  return step === 0 ? [{ step: 0, label: 'Tu cuenta' }, ...steps] : steps
}
