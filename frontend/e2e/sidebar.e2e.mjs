// The sidebar against the real stack: collapse and its 7-day cookie, Ctrl+B, the slide-in
// panel below 768 px, the school header, the profile link, role items and the admin alert
// badge (an admin sees the unresolved error/critical count, a teacher sees none).

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DARK_DESKTOP, DESKTOP, MOBILE, screenshot, signIn, useBrowser, waitForPath, withPage } from './browser.mjs'
import { createUser, grantRole, insertRows, stack } from './stack.mjs'

useBrowser()

async function sidebarCookie(context) {
  return (await context.cookies()).find((cookie) => cookie.name === 'sidebar_state')
}

test('collapse keeps a 7-day cookie, survives a reload, and Ctrl+B toggles', async () => {
  await withPage(DESKTOP, async ({ context, page, problems }) => {
    const teacher = await createUser('ana')
    await insertRows('profiles', [{ user_id: teacher.id, first_name: 'Ana María', last_name: 'Pérez', how_found_us: 'Un colega', school_rbd: 8485 }])
    await signIn(page, teacher)
    await page.getByTestId('sidebar-school').getByText('LICEO INSTITUTO NACIONAL').waitFor()
    assert.equal(await page.getByTestId('sidebar-profile').innerText(), 'AP\nAna')
    await page.getByRole('heading', { level: 1, name: 'Hola, Ana' }).waitFor()
    await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]').getBoundingClientRect().width === 256)
    const groups = await page.getByRole('navigation', { name: 'Principal' }).locator('h2').allInnerTexts()
    assert.deepEqual(groups.map((text) => text.toLowerCase()), ['navegación', 'planificación clases', 'soporte'])

    await page.getByRole('button', { name: 'Contraer menú' }).click()
    await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]').getBoundingClientRect().width === 72)
    const cookie = await sidebarCookie(context)
    assert.equal(cookie.value, 'false')
    const days = (cookie.expires - Date.now() / 1000) / 86_400
    assert.ok(days > 6.9 && days <= 7, `cookie lasts ${days} days`)
    await screenshot(page, 'dashboard-collapsed-desktop')

    await page.reload()
    await page.getByTestId('sidebar').waitFor()
    assert.equal(await page.getByTestId('sidebar').getAttribute('data-state'), 'collapsed')
    // Collapsed items keep their names for assistive technology.
    await page.getByRole('link', { name: 'Mis Cursos', exact: true }).click()
    await waitForPath(page, '/courses')

    await page.keyboard.press('Control+b')
    await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]').dataset.state === 'expanded')
    assert.equal((await sidebarCookie(context)).value, 'true')
    await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]').getBoundingClientRect().width === 256)
    await page.keyboard.press('Control+b')
    await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]').dataset.state === 'collapsed')
    assert.deepEqual(problems, [])
  })
})

test('below 768 px the sidebar is a slide-in panel of 18rem', async () => {
  await withPage(MOBILE, async ({ page }) => {
    await signIn(page, await createUser('movil'))
    await page.getByRole('heading', { level: 1, name: /^Hola, movil-/ }).waitFor()
    await page.getByText('Aún no tienes cursos').waitFor()
    assert.equal(await page.getByTestId('sidebar').count(), 0)
    await screenshot(page, 'dashboard-mobile')
    await page.getByRole('button', { name: 'Abrir menú' }).click()
    const panel = page.getByTestId('sidebar-mobile')
    await panel.waitFor()
    await page.waitForTimeout(250) // the slide-in animation
    const box = await panel.boundingBox()
    assert.equal(box.x, 0)
    assert.equal(box.width, 288)
    await screenshot(page, 'sidebar-mobile-open')
    await panel.getByRole('link', { name: 'Calendario' }).click()
    await waitForPath(page, '/calendar')
    await panel.waitFor({ state: 'detached' })

    await page.keyboard.press('Control+b')
    await panel.waitFor()
    await page.keyboard.press('Escape')
    await panel.waitFor({ state: 'detached' })
    // The page behind stays usable at 375 px: no horizontal scrolling.
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 375)
  })
})

test('admin items and the alert badge: an admin sees the count, a teacher sees neither', async () => {
  const admin = await createUser('admin')
  await grantRole(admin.id, 'admin')
  await insertRows('admin_alerts', [
    { severity: 'critical', title: 'Base de datos caída', is_resolved: false },
    { severity: 'error', title: 'Fallo de IA', is_resolved: false },
    { severity: 'error', title: 'Correo rebotado', is_resolved: true },
    { severity: 'warning', title: 'Disco al 80 %', is_resolved: false },
  ])
  await withPage(DESKTOP, async ({ page }) => {
    await signIn(page, admin)
    await page.getByRole('link', { name: 'Gestión Plataforma' }).waitFor()
    const badge = page.getByTestId('admin-alert-badge')
    await badge.waitFor()
    assert.match(await badge.textContent(), /^2 alertas sin resolver$/)
    await page.getByRole('link', { name: /Monitoreo Cielo/ }).click()
    await page.getByTestId('critical-count').getByText('2 críticas o errores sin resolver').waitFor()
    await page.getByTestId('alert').first().waitFor()
    await screenshot(page, 'admin-monitoring-desktop')
  })
  // The same in the dark palette (prefers-color-scheme: dark).
  await withPage(DARK_DESKTOP, async ({ page }) => {
    await signIn(page, admin)
    await page.getByTestId('admin-alert-badge').waitFor()
    await page.getByText('Aún no tienes cursos').waitFor()
    await screenshot(page, 'dashboard-admin-dark-desktop')
  })

  await withPage(DESKTOP, async ({ page }) => {
    const requests = []
    page.on('request', (request) => requests.push(request.url()))
    await signIn(page, await createUser('profe'))
    await page.getByRole('link', { name: 'Ayuda' }).waitFor()
    await page.waitForLoadState('networkidle')
    assert.equal(await page.getByTestId('admin-alert-badge').count(), 0)
    assert.equal(await page.getByRole('link', { name: 'Monitoreo Cielo' }).count(), 0)
    assert.equal(await page.getByRole('link', { name: 'Gestión Plataforma' }).count(), 0)
    // The count is asked for admins only.
    assert.deepEqual(requests.filter((url) => url.includes('/rest/v1/admin_alerts')), [])
  })
})

test('Cerrar sesión ends the session and leaves the app', async () => {
  await withPage(DESKTOP, async ({ page }) => {
    await signIn(page, await createUser('salir'))
    await page.getByRole('button', { name: 'Cerrar sesión' }).click()
    await waitForPath(page, '/auth')
    await page.goto(`${stack().url}/dashboard`)
    await waitForPath(page, '/auth')
  })
})
