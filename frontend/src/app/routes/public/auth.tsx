import { AuthPage } from '@/features/auth'

export default function AuthRoute() {
  return <AuthPage />
}
