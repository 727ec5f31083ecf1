// The web app's first page shows the stack as healthy, checked through supabase-js in a
// real browser against the real gateway and database.

import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { freePort, repoRoot, startGateway } from '../../gateway/tests/conformance/harness.mjs'
import { launchBrowser, openPage, screenshot } from './browser.mjs'

let gateway
let browser

before(async () => {
  gateway = await startGateway({
    DB_PORT: String(await freePort()),
    WEB_DIR: join(repoRoot, 'frontend/dist'),
  })
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await gateway?.stop()
})

for (const [name, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['mobile', { width: 375, height: 812 }],
]) {
  test(`the health page shows every service as operational (${name})`, async () => {
    const { context, page, problems } = await openPage(browser, viewport)
    try {
      await page.goto(gateway.url)
      assert.equal(await page.getAttribute('html', 'lang'), 'es-CL')
      await page.waitForSelector('[data-testid="health-overall"][data-status="ok"]', { timeout: 20_000 })
      for (const service of ['gateway', 'auth', 'rest', 'session']) {
        const status = await page.getAttribute(`[data-testid="health-card-${service}"]`, 'data-status')
        assert.equal(status, 'ok', service)
      }
      assert.match(await page.textContent('h1'), /Estado de Cielo/)
      await screenshot(page, `health-${name}`)
      assert.deepEqual(problems, [])
    } finally {
      await context.close()
    }
  })
}

test('client-side routes load the app and unknown assets do not', async () => {
  const { context, page } = await openPage(browser)
  try {
    const response = await page.goto(`${gateway.url}/planner/sequential/123`)
    assert.equal(response.status(), 200)
    await page.waitForSelector('[data-testid="health-overall"]')
    const asset = await page.request.get(`${gateway.url}/assets/does-not-exist.js`)
    assert.equal(asset.status(), 404)
  } finally {
    await context.close()
  }
})
