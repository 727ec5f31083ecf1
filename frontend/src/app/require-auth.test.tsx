import { screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { json, teacherRoutes } from '@/test/fake-network'
import { renderApp, testSession, testUser } from '@/test/render-app'

describe('route guards', () => {
  it('no user: an app route goes to /auth', async () => {
    const { router } = renderApp({ path: '/courses' })
    expect(await screen.findByRole('heading', { level: 1, name: 'Iniciar sesión' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/auth')
    expect(router.state.location.state).toEqual({ from: '/courses' })
  })

  it('no user: the pages without the sidebar and the content-creator page go to /auth too', async () => {
    for (const path of ['/editor/draft/7', '/planner/sequential/3/class/2/edit', '/admin/creacion-contenido']) {
      const { router, unmount } = renderApp({ path })
      await waitFor(() => expect(router.state.location.pathname).toBe('/auth'))
      unmount()
    }
  })

  it('/waitlist and /acceso-anticipado go to /auth', async () => {
    for (const path of ['/waitlist', '/acceso-anticipado']) {
      const { router, unmount } = renderApp({ path })
      await waitFor(() => expect(router.state.location.pathname).toBe('/auth'))
      unmount()
    }
  })

  it('an unconfirmed e-mail goes to /confirm-email', async () => {
    const session = testSession(testUser({ emailConfirmed: false, email: 'nuevo@colegio.cl' }))
    const { router } = renderApp({ path: '/dashboard', session, routes: teacherRoutes })
    expect(await screen.findByRole('heading', { level: 1, name: 'Confirma tu correo' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/confirm-email')
    expect(screen.getByTestId('confirm-email-address')).toHaveTextContent('nuevo@colegio.cl')
  })

  it('an anonymous visitor of the public trial goes to /auth, not to confirm an e-mail she has not', async () => {
    const visitor = { ...testUser({ emailConfirmed: false, email: '' }), is_anonymous: true }
    const { router } = renderApp({ path: '/drafts', session: testSession(visitor), routes: teacherRoutes })
    expect(await screen.findByRole('heading', { level: 1, name: 'Iniciar sesión' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/auth')
  })

  it('a confirmed user reaches the page', async () => {
    renderApp({ path: '/profile', session: testSession(), routes: teacherRoutes })
    expect(await screen.findByRole('heading', { level: 1, name: 'Mi perfil' })).toBeInTheDocument()
  })

  it('skeleton bars while the content-creator right is checked', async () => {
    renderApp({
      path: '/admin/creacion-contenido',
      session: testSession(),
      routes: { ...teacherRoutes, '/rest/v1/rpc/is_content_creator': () => new Promise<Response>(() => {}) },
    })
    const skeleton = (await screen.findByText('Verificando tus permisos…')).closest('[data-testid="loading-skeleton"]')
    expect(skeleton).toHaveAttribute('role', 'status')
  })

  it('without the content-creator right: /dashboard', async () => {
    const { router } = renderApp({ path: '/admin/creacion-contenido', session: testSession(), routes: teacherRoutes })
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'))
  })

  it('a failed content-creator check counts as no access', async () => {
    const { router } = renderApp({
      path: '/admin/creacion-contenido',
      session: testSession(),
      routes: { ...teacherRoutes, '/rest/v1/rpc/is_content_creator': () => json({ code: '57014', message: 'canceling statement due to statement timeout', details: null, hint: null }, 500) },
    })
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'))
  })

  it('a content creator gets in', async () => {
    renderApp({
      path: '/admin/creacion-contenido',
      session: testSession(),
      routes: { ...teacherRoutes, '/rest/v1/rpc/is_content_creator': () => json(true) },
    })
    expect(await screen.findByRole('heading', { level: 1, name: 'Creación Contenido' })).toBeInTheDocument()
  })

  it('skeleton bars while the session loads', () => {
    renderApp({ path: '/dashboard', session: testSession(), routes: teacherRoutes })
    expect(screen.getByTestId('loading-skeleton')).toBeInTheDocument()
  })
})
