import type { Session } from '@supabase/supabase-js'
import { describe, expect, it } from 'vitest'
import { testSession, testUser } from '@/test/render-app'
import { authReducer, initialAuthState, type AuthState } from './auth-state'

const confirmed = testSession(testUser())
const unconfirmed = testSession(testUser({ id: 'u-2', email: 'nuevo@colegio.cl', emailConfirmed: false }))
const refreshed: Session = { ...confirmed, access_token: 'refreshed-token' }

function run(...actions: Parameters<typeof authReducer>[1][]): AuthState {
  return actions.reduce(authReducer, initialAuthState)
}

describe('authReducer (the session state machine)', () => {
  it('starts loading with no user', () => {
    expect(initialAuthState).toMatchObject({ loading: true, user: null, session: null, emailConfirmed: false, sessionReady: false })
  })

  it('the first session read sets user and session, derives emailConfirmed and ends loading', () => {
    const state = run({ type: 'session', session: confirmed, event: null })
    expect(state).toMatchObject({ loading: false, user: confirmed.user, session: confirmed, emailConfirmed: true, sessionReady: false })
  })

  it('emailConfirmed is false without a confirmed-at timestamp', () => {
    expect(run({ type: 'session', session: unconfirmed, event: 'SIGNED_IN' }).emailConfirmed).toBe(false)
  })

  it('no session: not loading, nobody signed in, never ready', () => {
    const state = run({ type: 'session', session: null, event: 'INITIAL_SESSION' }, { type: 'ready' })
    expect(state).toMatchObject({ loading: false, user: null, session: null, sessionReady: false })
  })

  it('ready only applies while a session exists', () => {
    expect(run({ type: 'session', session: confirmed, event: 'SIGNED_IN' }, { type: 'ready' }).sessionReady).toBe(true)
  })

  it('TOKEN_REFRESHED and USER_UPDATED keep a ready session ready; another user waits again', () => {
    const ready = run({ type: 'session', session: confirmed, event: 'SIGNED_IN' }, { type: 'ready' })
    const afterRefresh = authReducer(ready, { type: 'session', session: refreshed, event: 'TOKEN_REFRESHED' })
    expect(afterRefresh).toMatchObject({ sessionReady: true, session: refreshed, lastEvent: 'TOKEN_REFRESHED' })
    const afterUpdate = authReducer(afterRefresh, { type: 'session', session: refreshed, event: 'USER_UPDATED' })
    expect(afterUpdate.sessionReady).toBe(true)
    const otherUser = authReducer(afterUpdate, { type: 'session', session: unconfirmed, event: 'SIGNED_IN' })
    expect(otherUser).toMatchObject({ sessionReady: false, emailConfirmed: false, user: unconfirmed.user })
  })

  it('handles every auth event', () => {
    for (const event of ['SIGNED_IN', 'TOKEN_REFRESHED', 'USER_UPDATED', 'PASSWORD_RECOVERY', 'MFA_CHALLENGE_VERIFIED', 'INITIAL_SESSION'] as const) {
      expect(run({ type: 'session', session: confirmed, event })).toMatchObject({ loading: false, session: confirmed, lastEvent: event })
    }
    expect(run({ type: 'session', session: confirmed, event: 'SIGNED_IN' }, { type: 'session', session: null, event: 'SIGNED_OUT' })).toMatchObject({
      user: null,
      session: null,
      emailConfirmed: false,
      sessionReady: false,
    })
  })

  it('PASSWORD_RECOVERY turns recovery on until it is done or the user signs out', () => {
    const recovering = run({ type: 'session', session: confirmed, event: 'PASSWORD_RECOVERY' })
    expect(recovering.passwordRecovery).toBe(true)
    expect(authReducer(recovering, { type: 'session', session: confirmed, event: 'INITIAL_SESSION' }).passwordRecovery).toBe(true)
    expect(authReducer(recovering, { type: 'recoveryDone' }).passwordRecovery).toBe(false)
    expect(authReducer(recovering, { type: 'signedOut' }).passwordRecovery).toBe(false)
  })

  it('signedOut clears session, user and emailConfirmed', () => {
    const state = run({ type: 'session', session: confirmed, event: 'SIGNED_IN' }, { type: 'ready' }, { type: 'signedOut' })
    expect(state).toMatchObject({ loading: false, user: null, session: null, emailConfirmed: false, sessionReady: false })
  })
})
