/** Onboarding: the steps a new teacher takes (profile, first course) before the app. */
import { lazy } from 'react'

// The page loads with its route: the app's layout and Inicio only need the onboarding check.
export const OnboardingPage = lazy(() => import('./components/onboarding-page').then((module) => ({ default: module.OnboardingPage })))
export { useOnboardingStatus } from './api/onboarding'
export { isOnboarded, onboardingStep, type OnboardingStep } from './steps'
