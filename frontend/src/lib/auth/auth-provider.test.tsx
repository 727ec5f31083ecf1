import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, render, renderHook, screen, waitFor } from '@testing-library/react'
import type { Session } from '@supabase/supabase-js'
import type { ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import { SupabaseProvider } from '@/lib/supabase-provider'
import { createFakeNetwork, json, type RouteHandler } from '@/test/fake-network'
import { createTestClient, testConfig, testSession, testUser } from '@/test/render-app'
import { AuthProvider, useAuth, type AuthContextValue } from './auth-provider'

function setup(routes: Record<string, RouteHandler> = {}, session: Session | null = testSession()) {
  const network = createFakeNetwork(routes)
  const client = createTestClient(network.fetch, session)
  const queryClient = new QueryClient()
  queryClient.setQueryData(['some', 'data'], 42)
  const wrapper = ({ children }: { children: ReactNode }) => (
    <SupabaseProvider client={client} config={testConfig}>
      <QueryClientProvider client={queryClient}>
        <AuthProvider>{children}</AuthProvider>
      </QueryClientProvider>
    </SupabaseProvider>
  )
  const view = renderHook(() => useAuth(), { wrapper })
  return { ...view, client, network, queryClient }
}

const current = (result: { current: AuthContextValue }) => result.current

describe('AuthProvider', () => {
  it('reads the stored session, then becomes ready 500 ms later', async () => {
    const { result } = setup()
    expect(current(result)).toMatchObject({ loading: true, user: null })
    await waitFor(() => expect(current(result).loading).toBe(false))
    const loadedAt = Date.now()
    expect(current(result)).toMatchObject({ emailConfirmed: true, sessionReady: false })
    expect(current(result).user?.email).toBe('ana@liceo.cl')
    await waitFor(() => expect(current(result).sessionReady).toBe(true), { timeout: 2000 })
    expect(Date.now() - loadedAt).toBeGreaterThanOrEqual(450)
  })

  it('without a stored session: loaded, signed out, never ready', async () => {
    const { result } = setup({}, null)
    await waitFor(() => expect(current(result).loading).toBe(false))
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(current(result)).toMatchObject({ user: null, session: null, emailConfirmed: false, sessionReady: false })
  })

  it('an unconfirmed e-mail is reported as such', async () => {
    const { result } = setup({}, testSession(testUser({ emailConfirmed: false })))
    await waitFor(() => expect(current(result).loading).toBe(false))
    expect(current(result).emailConfirmed).toBe(false)
  })

  it('sign-out clears everything even when the server call fails', async () => {
    const { result, client, queryClient, network } = setup({
      '/auth/v1/logout': () => json({ code: 500, error_code: 'unexpected_failure', msg: 'boom' }, 500),
    })
    await waitFor(() => expect(current(result).user).not.toBeNull())
    await act(() => current(result).signOut())
    // Everywhere first; when that fails, this browser at least (no answer needed).
    expect(network.requestsTo('/auth/v1/logout').map((request) => new URL(request.url).search)).toEqual([
      '?scope=global',
      '?scope=local',
    ])
    expect(current(result)).toMatchObject({ user: null, session: null, emailConfirmed: false, sessionReady: false, loading: false })
    expect(queryClient.getQueryData(['some', 'data'])).toBeUndefined()
    // The browser forgets the session too: a reload would not sign back in.
    expect((await client.auth.getSession()).data.session).toBeNull()
  })

  it('sign-out clears everything when the network is down', async () => {
    const { result, client } = setup({})
    await waitFor(() => expect(current(result).user).not.toBeNull())
    await act(() => current(result).signOut())
    expect(current(result)).toMatchObject({ user: null, session: null, emailConfirmed: false })
    expect((await client.auth.getSession()).data.session).toBeNull()
  })

  it('useAuth outside the provider throws', () => {
    const Consumer = () => {
      useAuth()
      return null
    }
    const spy = console.error
    console.error = () => {}
    try {
      expect(() => render(<Consumer />)).toThrow('useAuth must be used within an AuthProvider')
    } finally {
      console.error = spy
    }
    expect(screen.queryByText('x')).toBeNull()
  })
})
