import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { databaseDownRoutes, healthyRoutes, type RouteHandler } from '@/test/fake-network'
import { renderApp as renderWholeApp, testConfig as config, testSession, testUser } from '@/test/render-app'

/**
 * Renders the real app at /estado with a real supabase-js client whose only fake part is
 * `global.fetch`, i.e. the network boundary.
 */
function renderApp(routes: Record<string, RouteHandler>) {
  return renderWholeApp({ path: '/estado', routes }).network
}

const card = (service: string) => screen.getByTestId(`health-card-${service}`)

async function waitForOverall(status: 'ok' | 'degraded') {
  await waitFor(() => expect(screen.getByTestId('health-overall')).toHaveAttribute('data-status', status))
  // Wait for the whole round (the button is re-enabled) so no update happens after the test.
  await waitFor(() => expect(screen.getByRole('button', { name: 'Volver a comprobar' })).toBeEnabled())
}


describe('HealthPage', () => {
  it('starts in the checking state', async () => {
    renderApp({ ...healthyRoutes, '/health': () => new Promise<Response>(() => {}) })
    expect(await screen.findByRole('heading', { level: 1, name: 'Estado de Cielo' })).toBeInTheDocument()
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
    const session = testSession(testUser({ id: 'user-1', email: 'profe@colegio.cl' }))
    const { network } = renderWholeApp({ path: '/estado', routes: healthyRoutes, session })
    await waitForOverall('ok')
    expect(within(card('session')).getByText('Sesión iniciada como profe@colegio.cl.')).toBeInTheDocument()
    expect(network.requestsTo('/rest/v1/')[0]?.headers.get('Authorization')).toBe(`Bearer ${session.access_token}`)
  })
})
