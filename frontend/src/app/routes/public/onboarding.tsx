import { OnboardingPage } from '@/features/onboarding'

export default function OnboardingRoute() {
  return <OnboardingPage />
}
