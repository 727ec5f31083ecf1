// Public pages: "Estado de Cielo" (/estado) shows the stack as healthy, checked through
// supabase-js in a real browser against the real gateway and database; the landing page.

import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, launchBrowser, openPage, screenshot } from './browser.mjs'
import { stack } from './stack.mjs'

let browser

before(async () => {
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
})

for (const [name, viewport] of [
  ['desktop', DESKTOP],
  ['mobile', MOBILE],
]) {
  test(`the status page shows every service as operational (${name})`, async () => {
    const { context, page, problems } = await openPage(browser, viewport)
    try {
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
    } finally {
      await context.close()
    }
  })
}

for (const [name, viewport] of [
  ['desktop', DESKTOP],
  ['mobile', MOBILE],
]) {
  test(`the landing page and a public page, with the data attributions (${name})`, async () => {
    const { context, page, problems } = await openPage(browser, viewport)
    try {
      await page.goto(`${stack().url}/`)
      await page.getByRole('heading', { level: 1, name: /Planifica tus clases/ }).waitFor()
      await page.getByTestId('data-attributions').getByText(/Directorio Oficial de Establecimientos/).waitFor()
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), viewport.width)
      await screenshot(page, `landing-${name}`)
      await page.getByRole('link', { name: 'Términos' }).click()
      await page.getByRole('heading', { level: 1, name: 'Términos y condiciones' }).waitFor()
      await page.getByTestId('empty-state').waitFor()
      assert.deepEqual(problems, [])
    } finally {
      await context.close()
    }
  })
}

test('client-side routes load the app and unknown assets do not', async () => {
  const { context, page } = await openPage(browser)
  try {
    const response = await page.goto(`${stack().url}/planner/sequential/123`)
    assert.equal(response.status(), 200)
    // Signed out, the guard sends the visitor to sign in.
    await page.waitForURL((url) => url.pathname === '/auth')
    const asset = await page.request.get(`${stack().url}/assets/does-not-exist.js`)
    assert.equal(asset.status(), 404)
  } finally {
    await context.close()
  }
})
