/**
 * The session context: one provider fed by supabase-js's session read and its auth-change
 * subscription (every event: SIGNED_IN, SIGNED_OUT, TOKEN_REFRESHED, USER_UPDATED,
 * PASSWORD_RECOVERY, MFA_CHALLENGE_VERIFIED, INITIAL_SESSION), reduced by `authReducer`.
 * Sign-out clears the query cache and the session even when the server call fails.
 */
import { useQueryClient } from '@tanstack/react-query'
import { createContext, use, useCallback, useEffect, useMemo, useReducer, useRef, type ReactNode } from 'react'
import { useSupabase } from '@/lib/supabase-provider'
import { logger } from '@/lib/logger'
import { reportSecurityEvent } from '@/lib/security'
import { openedFromRecoveryLink } from './redirect-error'
import { authReducer, initialAuthState, SESSION_READY_DELAY_MS, type AuthState } from './auth-state'

export interface AuthContextValue extends AuthState {
  /** Signs out; the local state is cleared whatever the server answers. */
  signOut: () => Promise<void>
  /** Ends the password-recovery mode once a new password is set. */
  finishPasswordRecovery: () => void
}

const AuthContext = createContext<AuthContextValue | null>(null)

export function AuthProvider({ children }: { children: ReactNode }) {
  const supabase = useSupabase()
  const queryClient = useQueryClient()
  const [state, dispatch] = useReducer(authReducer, initialAuthState, (initial) => ({
    ...initial,
    passwordRecovery: openedFromRecoveryLink(),
  }))
  const readyTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  // Set while the user signs out, so a SIGNED_OUT we did not ask for can be told apart.
  const signingOut = useRef(false)
  const hadSession = useRef(false)

  useEffect(() => {
    let active = true
    supabase.auth.getSession().then(
      ({ data, error }) => {
        if (!active) return
        if (error) logger.warn('No se pudo leer la sesión guardada', { error })
        hadSession.current = data.session !== null
        dispatch({ type: 'session', session: data.session, event: null })
      },
      (error: unknown) => {
        if (!active) return
        logger.error('No se pudo leer la sesión guardada', { error })
        dispatch({ type: 'session', session: null, event: null })
      },
    )
    const { data } = supabase.auth.onAuthStateChange((event, session) => {
      if (!active) return
      logger.debug(`Evento de autenticación: ${event}`)
      if (event === 'SIGNED_OUT') {
        queryClient.clear()
        if (hadSession.current && !signingOut.current) {
          // The server ended the session (expired, revoked, or used elsewhere).
          reportSecurityEvent('session_ended', 'medium', {}, {
            title: 'Tu sesión terminó',
            description: 'Inicia sesión de nuevo para continuar.',
          })
        }
      }
      hadSession.current = session !== null
      dispatch({ type: 'session', session, event })
    })
    return () => {
      active = false
      data.subscription.unsubscribe()
    }
  }, [supabase, queryClient])

  // sessionReady: true 500 ms after a session exists, false without one.
  const hasSession = state.session !== null
  useEffect(() => {
    clearTimeout(readyTimer.current)
    if (hasSession && !state.sessionReady) {
      readyTimer.current = setTimeout(() => dispatch({ type: 'ready' }), SESSION_READY_DELAY_MS)
    }
    return () => clearTimeout(readyTimer.current)
  }, [hasSession, state.sessionReady, state.user?.id])

  const signOut = useCallback(async () => {
    signingOut.current = true
    try {
      const { error } = await supabase.auth.signOut()
      if (error) throw error
    } catch (error) {
      logger.warn('El cierre de sesión en el servidor falló; se cierra localmente', { error })
      // Forget the session in this browser anyway (no server call).
      await supabase.auth.signOut({ scope: 'local' }).catch(() => undefined)
    } finally {
      queryClient.clear()
      hadSession.current = false
      signingOut.current = false
      dispatch({ type: 'signedOut' })
    }
  }, [supabase, queryClient])

  const finishPasswordRecovery = useCallback(() => dispatch({ type: 'recoveryDone' }), [])

  const value = useMemo<AuthContextValue>(
    () => ({ ...state, signOut, finishPasswordRecovery }),
    [state, signOut, finishPasswordRecovery],
  )
  return <AuthContext value={value}>{children}</AuthContext>
}

export function useAuth(): AuthContextValue {
  const value = use(AuthContext)
  if (!value) throw new Error('useAuth must be used within an AuthProvider')
  return value
}
