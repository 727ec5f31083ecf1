import { HealthPage } from '@/features/health/components/health-page'

export default function StatusRoute() {
  return <HealthPage />
}
