/**
 * Renders the real app (providers, routes, guards) at a path, with a real supabase-js client
 * whose only fake part is `global.fetch` (the network boundary) and, optionally, a session
 * already in its storage.
 */
import type { Session, User } from '@supabase/supabase-js'
import { render } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { AppProviders } from '@/app/providers'
import { routes } from '@/app/router'
import type { AppConfig } from '@/config/env'
import { createQueryClient } from '@/lib/query-client'
import { createSupabaseClient, type CieloClient } from '@/lib/supabase'
import { createFakeNetwork, type RouteHandler } from './fake-network'

export const testConfig: AppConfig = {
  supabaseUrl: 'http://localhost:54321',
  supabaseAnonKey: 'anon.jwt.key',
}

let clientCount = 0

function base64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

export interface TestUserOptions {
  id?: string
  email?: string
  emailConfirmed?: boolean
}

/** A user as auth/v1 returns it. */
export function testUser({ id = '0a000000-0000-4000-8000-00000000000a', email = 'ana@liceo.cl', emailConfirmed = true }: TestUserOptions = {}): User {
  return {
    id,
    aud: 'authenticated',
    role: 'authenticated',
    email,
    ...(emailConfirmed ? { email_confirmed_at: '2025-03-03T12:00:00Z', confirmed_at: '2025-03-03T12:00:00Z' } : {}),
    app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: {},
    created_at: '2025-03-03T12:00:00Z',
  } as User
}

/** A session whose access token is a JWT for `user`, valid for an hour. */
export function testSession(user: User = testUser()): Session {
  const now = Math.floor(Date.now() / 1000)
  const token = `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url({
    sub: user.id,
    email: user.email,
    role: 'authenticated',
    aud: 'authenticated',
    exp: now + 3600,
    iat: now,
  })}.signature`
  return {
    access_token: token,
    refresh_token: 'refresh-token',
    token_type: 'bearer',
    expires_in: 3600,
    expires_at: now + 3600,
    user,
  }
}

export interface RenderAppOptions {
  path?: string
  routes?: Record<string, RouteHandler>
  session?: Session | null
}

export function createTestClient(fetchFn: typeof fetch, session: Session | null = null): CieloClient {
  const storageKey = `sb-test-${++clientCount}-auth-token`
  if (session) localStorage.setItem(storageKey, JSON.stringify(session))
  return createSupabaseClient(testConfig, {
    global: { fetch: fetchFn },
    auth: { storageKey, autoRefreshToken: false, detectSessionInUrl: false, persistSession: true },
  })
}

export function renderApp({ path = '/', routes: networkRoutes = {}, session = null }: RenderAppOptions = {}) {
  const network = createFakeNetwork(networkRoutes)
  const client = createTestClient(network.fetch, session)
  const queryClient = createQueryClient()
  const router = createMemoryRouter(routes, { initialEntries: [path] })
  const view = render(
    <AppProviders client={client} config={testConfig} queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>,
  )
  return { ...view, network, client, router, queryClient }
}
