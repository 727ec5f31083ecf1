import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { json, teacherRoutes } from '@/test/fake-network'
import { renderApp, testSession } from '@/test/render-app'
import { readSidebarOpen, SIDEBAR_COOKIE, SIDEBAR_COOKIE_MAX_AGE } from '@/components/layout/sidebar-state'

const cookieWrites: string[] = []
const descriptor = Object.getOwnPropertyDescriptor(Document.prototype, 'cookie')

/** Records what the app writes to document.cookie (jsdom hides max-age once stored). */
function recordCookieWrites() {
  cookieWrites.length = 0
  Object.defineProperty(document, 'cookie', {
    configurable: true,
    get: () => descriptor?.get?.call(document) as string,
    set: (value: string) => {
      cookieWrites.push(value)
      descriptor?.set?.call(document, value)
    },
  })
}

afterEach(() => {
  Reflect.deleteProperty(document, 'cookie')
  window.innerWidth = 1024
})

async function renderDashboard(routes = teacherRoutes) {
  const view = renderApp({ path: '/dashboard', session: testSession(), routes })
  await screen.findByTestId('sidebar')
  return view
}

describe('sidebar', () => {
  it('is expanded without a cookie, and the stored state wins', () => {
    expect(readSidebarOpen()).toBe(true)
    document.cookie = `${SIDEBAR_COOKIE}=false; path=/`
    expect(readSidebarOpen()).toBe(false)
  })

  it('collapsing writes the state to a 7-day cookie', async () => {
    recordCookieWrites()
    await renderDashboard()
    const sidebar = screen.getByTestId('sidebar')
    expect(sidebar).toHaveAttribute('data-state', 'expanded')
    expect(sidebar).toHaveStyle({ width: '16rem' })
    fireEvent.click(screen.getByRole('button', { name: 'Contraer menú' }))
    expect(sidebar).toHaveAttribute('data-state', 'collapsed')
    expect(sidebar).toHaveStyle({ width: '4.5rem' })
    expect(cookieWrites).toEqual([`${SIDEBAR_COOKIE}=false; path=/; max-age=${SIDEBAR_COOKIE_MAX_AGE}; SameSite=Lax`])
    expect(SIDEBAR_COOKIE_MAX_AGE).toBe(7 * 24 * 60 * 60)
  })

  it('starts collapsed from the cookie; Ctrl+B and Cmd+B toggle it', async () => {
    document.cookie = `${SIDEBAR_COOKIE}=false; path=/`
    await renderDashboard()
    const sidebar = screen.getByTestId('sidebar')
    expect(sidebar).toHaveAttribute('data-state', 'collapsed')
    fireEvent.keyDown(window, { key: 'b', ctrlKey: true })
    expect(sidebar).toHaveAttribute('data-state', 'expanded')
    expect(document.cookie).toContain(`${SIDEBAR_COOKIE}=true`)
    fireEvent.keyDown(window, { key: 'b', metaKey: true })
    expect(sidebar).toHaveAttribute('data-state', 'collapsed')
  })

  it('below 768 px it is a slide-in panel', async () => {
    window.innerWidth = 375
    renderApp({ path: '/dashboard', session: testSession(), routes: teacherRoutes })
    fireEvent.click(await screen.findByRole('button', { name: 'Abrir menú' }))
    const panel = await screen.findByTestId('sidebar-mobile')
    expect(panel).toHaveStyle({ width: '18rem' })
    expect(screen.queryByTestId('sidebar')).toBeNull()
    fireEvent.click(within(panel).getByRole('link', { name: 'Horario' }))
    await waitFor(() => expect(screen.queryByTestId('sidebar-mobile')).toBeNull())
  })

  it('shows the spec groups for a teacher, the school fallback and the profile link', async () => {
    await renderDashboard()
    const nav = screen.getByRole('navigation', { name: 'Principal' })
    expect(within(nav).getAllByRole('heading').map((heading) => heading.textContent)).toEqual(['Navegación', 'Planificación Clases', 'Soporte'])
    expect(within(nav).getAllByRole('link').map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Inicio', '/dashboard'],
      ['Mis Cursos', '/courses'],
      ['Horario', '/schedule'],
      ['Calendario', '/calendar'],
      ['Borradores', '/drafts'],
      ['Plan. Simple', '/planner'],
      ['Plan. Secuencial', '/planner/sequential'],
      ['Anuncios', '/announcements'],
      ['Ayuda', '/help'],
    ])
    expect(screen.getByTestId('sidebar-school')).toHaveTextContent('Colegio Cielo')
    expect(screen.getByTestId('sidebar-profile')).toHaveAttribute('href', '/profile')
    expect(screen.getByTestId('sidebar-profile')).toHaveTextContent('Aana')
    expect(screen.getByRole('button', { name: 'Cerrar sesión' })).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Reiniciar recorrido' })).toBeInTheDocument()
  })

  it('an admin sees the admin items and the unresolved alert badge', async () => {
    const { network } = await renderDashboard({
      ...teacherRoutes,
      '/rest/v1/rpc/is_admin': () => json(true),
      '/rest/v1/admin_alerts': () => new Response(null, { status: 200, headers: { 'Content-Range': '*/3' } }),
      '/rest/v1/profiles': () => json([{ user_id: 'x', first_name: 'Marta', last_name: 'Soto', how_found_us: null, school_rbd: 8485, is_complete: false }]),
      '/rest/v1/schools': () => json([{ RBD: 8485, NOM_RBD: 'LICEO INSTITUTO NACIONAL' }]),
    })
    expect(await screen.findByTestId('admin-alert-badge')).toHaveTextContent('3 alertas sin resolver')
    expect(screen.getByRole('link', { name: 'Gestión Plataforma' })).toHaveAttribute('href', '/admin/platform')
    expect(screen.getByTestId('sidebar-school')).toHaveTextContent('LICEO INSTITUTO NACIONAL')
    expect(screen.getByTestId('sidebar-profile')).toHaveTextContent('MSMarta')
    const count = network.requestsTo('/rest/v1/admin_alerts')[0]
    expect(count?.method).toBe('HEAD')
    expect(new URL(count?.url ?? '').search).toBe('?select=*&is_resolved=eq.false&severity=in.%28error%2Ccritical%29')
    expect(count?.headers.get('Prefer')).toBe('count=exact')
  })

  it('a teacher never asks for the alert count', async () => {
    const { network } = await renderDashboard()
    await waitFor(() => expect(network.requestsTo('/rest/v1/rpc/is_admin')).toHaveLength(1))
    expect(screen.queryByTestId('admin-alert-badge')).toBeNull()
    expect(network.requestsTo('/rest/v1/admin_alerts')).toHaveLength(0)
  })

  it('a demo user sees the Estrellas Cielo widget', async () => {
    await renderDashboard({
      ...teacherRoutes,
      '/rest/v1/demo_users_2025': () =>
        json([{ user_id: 'x', total_stars: 500, used_stars: 410, demo_end_date: '2099-12-31', max_courses: 2, is_active: true }]),
    })
    const widget = await screen.findByTestId('stars-widget')
    expect(widget).toHaveTextContent('90 de 500 Estrellas Cielo disponibles')
    expect(widget).toHaveTextContent('Estás llegando al límite')
    expect(widget).toHaveTextContent('31-12-2099')
  })
})
