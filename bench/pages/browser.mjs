// What both page benchmarks share: headless Chromium as the tests run it, the seeded demo
// teacher's session (from `cielo status -o env`: BENCH_DEMO_EMAIL, BENCH_DEMO_PASSWORD), and
// a fresh browser context with that session stored, as a returning teacher's browser has it.

import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')
const { chromium } = createRequire(join(root, 'frontend/package.json'))('playwright-core')

export async function launchChromium() {
  const executablePath = process.env.CHROMIUM_PATH ?? execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim()
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

export async function demoSession(baseUrl, anonKey) {
  const response = await fetch(`${baseUrl}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: anonKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: process.env.BENCH_DEMO_EMAIL, password: process.env.BENCH_DEMO_PASSWORD }),
  })
  if (!response.ok) throw new Error(`demo sign-in: ${response.status} ${await response.text()}`)
  const session = await response.json()
  return { ...session, expires_at: Math.floor(Date.now() / 1000) + session.expires_in }
}

/** A new context (cold cache) whose pages start signed in with `session`. */
export async function signedInContext(browser, baseUrl, session) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'es-CL', timezoneId: 'America/Santiago' })
  const key = `sb-${new URL(baseUrl).hostname.split('.')[0]}-auth-token`
  await context.addInitScript(([name, value]) => window.localStorage.setItem(name, value), [key, JSON.stringify(session)])
  return context
}
