/**
 * The session state machine (spec section 4), as a pure reducer:
 *
 * * It starts loading, with no user.
 * * The first session read and every auth state change set user and session, derive
 *   `emailConfirmed` from the user's e-mail confirmed-at timestamp and end loading.
 * * With a session, `sessionReady` turns true 500 ms later (`ready`); without one it is false.
 * * Sign-out clears session, user and e-mail confirmation, whether or not the call worked.
 * * `PASSWORD_RECOVERY` marks the session as a recovery one until the password is changed
 *   or the user signs out.
 */
import type { AuthChangeEvent, Session, User } from '@supabase/supabase-js'

export const SESSION_READY_DELAY_MS = 500

export interface AuthState {
  loading: boolean
  user: User | null
  session: Session | null
  emailConfirmed: boolean
  sessionReady: boolean
  /** True after a PASSWORD_RECOVERY event: /auth asks for a new password. */
  passwordRecovery: boolean
  /** The last auth event seen (INITIAL_SESSION, SIGNED_IN, …), or null before any. */
  lastEvent: AuthChangeEvent | null
}

export type AuthAction =
  | { type: 'session'; session: Session | null; event: AuthChangeEvent | null }
  | { type: 'ready' }
  | { type: 'signedOut' }
  | { type: 'recoveryDone' }

export const initialAuthState: AuthState = {
  loading: true,
  user: null,
  session: null,
  emailConfirmed: false,
  sessionReady: false,
  passwordRecovery: false,
  lastEvent: null,
}

/** True when the user has an e-mail confirmed-at timestamp. */
export function isEmailConfirmed(user: User | null | undefined): boolean {
  return Boolean(user?.email_confirmed_at)
}

export function authReducer(state: AuthState, action: AuthAction): AuthState {
  switch (action.type) {
    case 'session': {
      const { session, event } = action
      const user = session?.user ?? null
      const sameSession = session !== null && state.session?.access_token === session.access_token
      return {
        loading: false,
        user,
        session,
        emailConfirmed: isEmailConfirmed(user),
        // A refresh or user update keeps a ready session ready; a new session waits again.
        sessionReady: session !== null && state.sessionReady && (sameSession || state.user?.id === user?.id),
        passwordRecovery:
          event === 'PASSWORD_RECOVERY' ? true : event === 'SIGNED_OUT' || !session ? false : state.passwordRecovery,
        lastEvent: event ?? state.lastEvent,
      }
    }
    case 'ready':
      return state.session && !state.sessionReady ? { ...state, sessionReady: true } : state
    case 'signedOut':
      return { ...initialAuthState, loading: false, lastEvent: 'SIGNED_OUT' }
    case 'recoveryDone':
      return { ...state, passwordRecovery: false }
  }
}
