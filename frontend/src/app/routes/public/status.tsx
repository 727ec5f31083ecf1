import { HealthPage } from '@/features/health'

export default function StatusRoute() {
  return <HealthPage />
}
