import { useEffect } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { paths } from '@/config/paths'
import { useAuth } from '@/lib/auth/auth-provider'

/**
 * A recovery link may land anywhere (supabase-js reports PASSWORD_RECOVERY after it has
 * stored the session): wherever the user is, the next step is choosing a new password.
 */
export function RecoveryRedirect() {
  const { passwordRecovery } = useAuth()
  const { pathname } = useLocation()
  const navigate = useNavigate()
  useEffect(() => {
    if (passwordRecovery && pathname !== paths.auth) navigate(paths.auth, { replace: true })
  }, [passwordRecovery, pathname, navigate])
  return null
}
