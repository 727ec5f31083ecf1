// Headless Debian Chromium driven by playwright-core (no browser download: the system
// binary is used), against a real gateway started by the Node test harness.

import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

export const artifactsDir = join(dirname(fileURLToPath(import.meta.url)), 'artifacts')

function chromiumPath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim()
  } catch {
    throw new Error('Chromium is not installed: `apt-get install -y chromium` (make test does this)')
  }
}

export async function launchBrowser() {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // The sandbox needs a non-root user; the network flags keep Chromium from calling
    // home, which a closed network answers with a flood of refused connections.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/** A page that records console errors and failed requests for the test to assert on. */
export async function openPage(browser, { width = 1280, height = 800 } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, locale: 'es-CL' })
  const page = await context.newPage()
  const problems = []
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  return { context, page, problems }
}

export async function screenshot(page, name) {
  mkdirSync(artifactsDir, { recursive: true })
  await page.screenshot({ path: join(artifactsDir, `${name}.png`), fullPage: true })
}
