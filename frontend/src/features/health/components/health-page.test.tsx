import { fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { App } from '../../../app/app'
import type { AppConfig } from '../../../config/env'
import { createSupabaseClient } from '../../../lib/supabase'
import { createFakeNetwork, databaseDownRoutes, healthyRoutes, type RouteHandler } from '../../../test/fake-network'

const config: AppConfig = {
  supabaseUrl: 'http://localhost:54321',
  supabaseAnonKey: 'anon.jwt.key',
}

/**
 * Renders the real app with a real supabase-js client whose only fake part is
 * `global.fetch`, i.e. the network boundary.
 */
let clientCount = 0
/** A fresh storage key per client avoids GoTrue's "multiple instances" warning. */
const nextStorageKey = () => `sb-test-${++clientCount}-auth-token`

function renderApp(routes: Record<string, RouteHandler>, storageKey = nextStorageKey()) {
  const network = createFakeNetwork(routes)
  const client = createSupabaseClient(config, {
    global: { fetch: network.fetch },
    auth: { storageKey, autoRefreshToken: false, detectSessionInUrl: false },
  })
  render(<App client={client} config={config} />)
  return network
}

const card = (service: string) => screen.getByTestId(`health-card-${service}`)

async function waitForOverall(status: 'ok' | 'degraded') {
  await waitFor(() => expect(screen.getByTestId('health-overall')).toHaveAttribute('data-status', status))
  // Wait for the whole round (the button is re-enabled) so no update happens after the test.
  await waitFor(() => expect(screen.getByRole('button', { name: 'Volver a comprobar' })).toBeEnabled())
}

function base64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

describe('HealthPage', () => {
  it('starts in the checking state', () => {
    renderApp({ ...healthyRoutes, '/health': () => new Promise<Response>(() => {}) })
    expect(screen.getByRole('heading', { level: 1, name: 'Estado de Cielo' })).toBeInTheDocument()
    expect(screen.getByTestId('health-overall')).toHaveAttribute('data-status', 'checking')
    expect(card('gateway')).toHaveAttribute('data-status', 'checking')
    expect(within(card('gateway')).getByText('Comprobando…', { selector: 'span' })).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Volver a comprobar' })).toBeDisabled()
  })

  it('shows every service as operational on a healthy stack', async () => {
    const network = renderApp(healthyRoutes)
    await waitForOverall('ok')

    for (const service of ['gateway', 'auth', 'rest', 'session']) {
      expect(card(service)).toHaveAttribute('data-status', 'ok')
      expect(within(card(service)).getByText('Operativo')).toBeInTheDocument()
    }
    expect(screen.getByTestId('health-overall')).toHaveTextContent('Todo operativo')
    expect(screen.getByRole('status')).toHaveAttribute('aria-live', 'polite')
    expect(screen.getByTestId('health-api-url')).toHaveTextContent('http://localhost:54321')
    expect(within(card('gateway')).getByText('HTTP 200')).toBeInTheDocument()
    expect(within(card('auth')).getByText('GoTrue v2.170.0.')).toBeInTheDocument()
    expect(within(card('session')).getByText(/^Sin sesión/)).toBeInTheDocument()
    expect(within(card('rest')).getByText(/\d+ ms/)).toBeInTheDocument()

    // The requests went through supabase-js's fetch wrapper, which adds the key headers.
    const [restRequest] = network.requestsTo('/rest/v1/')
    expect(restRequest?.headers.get('apikey')).toBe(config.supabaseAnonKey)
    expect(restRequest?.headers.get('Authorization')).toBe(`Bearer ${config.supabaseAnonKey}`)
    expect(network.requestsTo('/health')[0]?.url).toBe('http://localhost:54321/health')
    expect(network.requestsTo('/auth/v1/health')[0]?.headers.get('apikey')).toBe(config.supabaseAnonKey)
  })

  it('flags the gateway and REST when the database is down', async () => {
    renderApp(databaseDownRoutes)
    await waitForOverall('degraded')

    expect(screen.getByTestId('health-overall')).toHaveTextContent('Hay servicios con problemas')
    expect(card('gateway')).toHaveAttribute('data-status', 'degraded')
    expect(card('rest')).toHaveAttribute('data-status', 'degraded')
    expect(card('auth')).toHaveAttribute('data-status', 'ok')
    expect(card('session')).toHaveAttribute('data-status', 'ok')
    expect(within(card('gateway')).getByText('Con problemas')).toBeInTheDocument()
    expect(within(card('gateway')).getByText('HTTP 503')).toBeInTheDocument()
    expect(within(card('rest')).getByText(/aún no está lista/)).toBeInTheDocument()
  })

  it('marks unreachable services and recovers on "Volver a comprobar"', async () => {
    let authUp = false
    const network = renderApp({
      ...healthyRoutes,
      '/auth/v1/health': (request) => {
        if (!authUp) throw new TypeError('Failed to fetch')
        return healthyRoutes['/auth/v1/health']!(request)
      },
    })
    await waitForOverall('degraded')
    expect(card('auth')).toHaveAttribute('data-status', 'degraded')
    expect(within(card('auth')).getByText('Sin respuesta')).toBeInTheDocument()
    expect(within(card('auth')).getByText(/No se pudo conectar/)).toBeInTheDocument()

    authUp = true
    fireEvent.click(screen.getByRole('button', { name: 'Volver a comprobar' }))
    await waitForOverall('ok')
    expect(card('auth')).toHaveAttribute('data-status', 'ok')
    expect(network.requestsTo('/auth/v1/health')).toHaveLength(2)
  })

  it('shows the signed-in email and sends the user token', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 3600
    const accessToken = [
      base64url({ alg: 'HS256', typ: 'JWT' }),
      base64url({ sub: 'user-1', role: 'authenticated', email: 'profe@colegio.cl', exp: expiresAt }),
      'signature',
    ].join('.')
    const storageKey = nextStorageKey()
    window.localStorage.setItem(
      storageKey,
      JSON.stringify({
        access_token: accessToken,
        refresh_token: 'refresh-token',
        token_type: 'bearer',
        expires_in: 3600,
        expires_at: expiresAt,
        user: {
          id: 'user-1',
          aud: 'authenticated',
          role: 'authenticated',
          email: 'profe@colegio.cl',
          app_metadata: {},
          user_metadata: {},
          created_at: '2025-03-01T12:00:00Z',
        },
      }),
    )

    const network = renderApp(healthyRoutes, storageKey)
    await waitForOverall('ok')
    expect(within(card('session')).getByText('Sesión iniciada como profe@colegio.cl.')).toBeInTheDocument()
    expect(network.requestsTo('/rest/v1/')[0]?.headers.get('Authorization')).toBe(`Bearer ${accessToken}`)
  })
})
