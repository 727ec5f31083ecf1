// Public pages: "Estado de Cielo" (/estado) shows the stack as healthy, checked through
// supabase-js in a real browser against the real gateway and database; the landing page.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, screenshot, useBrowser, withPage } from './browser.mjs'
import { stack } from './stack.mjs'

useBrowser()

for (const [name, viewport] of [
  ['desktop', DESKTOP],
  ['mobile', MOBILE],
]) {
  test(`the status page shows every service as operational (${name})`, async () => {
    await withPage(viewport, async ({ page, problems }) => {
      await page.goto(`${stack().url}/estado`)
      assert.equal(await page.getAttribute('html', 'lang'), 'es-CL')
      await page.waitForSelector('[data-testid="health-overall"][data-status="ok"]', { timeout: 20_000 })
      for (const service of ['gateway', 'auth', 'rest', 'session']) {
        const status = await page.getAttribute(`[data-testid="health-card-${service}"]`, 'data-status')
        assert.equal(status, 'ok', service)
      }
      assert.match(await page.textContent('h1'), /Estado de Cielo/)
      await screenshot(page, `status-${name}`)
      assert.deepEqual(problems, [])
    })
  })
}

for (const [name, viewport] of [
  ['desktop', DESKTOP],
  ['mobile', MOBILE],
]) {
  test(`the landing page and a public page, with the data attributions (${name})`, async () => {
    await withPage(viewport, async ({ page, problems }) => {
      await page.goto(`${stack().url}/`)
      await page.getByRole('heading', { level: 1, name: /Planifica tus clases/ }).waitFor()
      await page.getByTestId('data-attributions').getByText(/Directorio Oficial de Establecimientos/).waitFor()
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), viewport.width)
      await screenshot(page, `landing-${name}`)
      await page.getByRole('link', { name: 'Términos' }).click()
      await page.getByRole('heading', { level: 1, name: 'Términos y condiciones' }).waitFor()
      await page.getByTestId('info-page').getByRole('heading', { level: 2, name: 'Contenido generado con IA' }).waitFor()
      assert.deepEqual(problems, [])
    })
  })
}

test('client-side routes load the app and unknown assets do not', async () => {
  await withPage(DESKTOP, async ({ page }) => {
    const response = await page.goto(`${stack().url}/planner/sequential/123`)
    assert.equal(response.status(), 200)
    // Signed out, the guard sends the visitor to sign in.
    await page.waitForURL((url) => url.pathname === '/auth')
    const asset = await page.request.get(`${stack().url}/assets/does-not-exist.js`)
    assert.equal(asset.status(), 404)
  })
})
