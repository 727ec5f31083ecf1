// Loads the app's main pages in headless Chromium against a running gateway (the seeded demo)
// and writes pages-latest.{json,md}: for each page, from a cold browser cache with the demo
// teacher's session already stored, the time until the page's own data is drawn and the bytes
// fetched before then. The landing page, loaded the same way in the same rounds, is the peer.
//
//   node bench/pages/measure.mjs BASE_URL ANON_KEY RESULTS_DIR   (BENCH_ROUNDS, default 7;
//   BENCH_DEMO_EMAIL and BENCH_DEMO_PASSWORD: the demo teacher, from `cielo status -o env`)

import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { markdown, summarize } from './report.mjs'

const [baseUrl, anonKey, resultsDir] = process.argv.slice(2)
if (!resultsDir) throw new Error('usage: measure.mjs BASE_URL ANON_KEY RESULTS_DIR')
const rounds = Number(process.env.BENCH_ROUNDS ?? 7)
const root = join(dirname(fileURLToPath(import.meta.url)), '../..')
const { chromium } = createRequire(join(root, 'frontend/package.json'))('playwright-core')

/** Each page and what shows that its data has arrived. */
const PAGES = {
  '/': 'main h1',
  '/dashboard': '[data-testid="focus-classes"], [data-testid="first-steps"]',
  '/courses': '[data-testid="course-card"]',
  '/schedule': '[data-testid="schedule-block"]',
  '/calendar': '[data-testid="calendar-class"]',
}
const PEER = '/'

async function demoSession() {
  const response = await fetch(`${baseUrl}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: anonKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: process.env.BENCH_DEMO_EMAIL, password: process.env.BENCH_DEMO_PASSWORD }),
  })
  if (!response.ok) throw new Error(`demo sign-in: ${response.status} ${await response.text()}`)
  return response.json()
}

async function load(browser, session, path) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'es-CL', timezoneId: 'America/Santiago' })
  try {
    const key = `sb-${new URL(baseUrl).hostname.split('.')[0]}-auth-token`
    await context.addInitScript(([name, value]) => window.localStorage.setItem(name, value), [key, JSON.stringify(session)])
    // The moment the page's data is drawn, taken in the page by a MutationObserver (polling
    // from outside would add its own interval to every measure).
    await context.addInitScript((selector) => {
      const observer = new MutationObserver(() => {
        if (document.querySelector(selector)) {
          window.__ready = performance.now()
          observer.disconnect()
        }
      })
      observer.observe(document, { childList: true, subtree: true })
    }, PAGES[path])
    const page = await context.newPage()
    await page.goto(`${baseUrl}${path}`, { waitUntil: 'commit' })
    await page.waitForFunction(() => window.__ready !== undefined, null, { timeout: 30_000 })
    return await page.evaluate(() => {
      const now = window.__ready
      const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
      const bytes = entries
        .filter((entry) => entry.entryType === 'navigation' || ['script', 'link', 'css', 'other'].includes(entry.initiatorType))
        .filter((entry) => entry.responseEnd <= now)
        .reduce((sum, entry) => sum + (entry.transferSize || entry.encodedBodySize || 0), 0)
      return { ms: now, kb: bytes / 1024 }
    })
  } finally {
    await context.close()
  }
}

const chromiumPath = process.env.CHROMIUM_PATH ?? execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim()
const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
try {
  const session = { ...(await demoSession()) }
  session.expires_at = Math.floor(Date.now() / 1000) + session.expires_in
  // Warm the stack (the gateway's caches, PostgreSQL's buffers) before measuring.
  for (const path of Object.keys(PAGES)) await load(browser, session, path)
  const measured = []
  for (let round = 0; round < rounds; round += 1) {
    const results = {}
    for (const path of Object.keys(PAGES)) results[path] = await load(browser, session, path)
    measured.push(results)
    console.error(`[bench-pages] round ${round + 1}/${rounds}: ${Object.entries(results).map(([p, r]) => `${p} ${Math.round(r.ms)} ms`).join(', ')}`)
  }
  const summary = summarize(measured, Object.keys(PAGES), PEER)
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC'
  const machine = `${cpus().length} cores`
  writeFileSync(join(resultsDir, 'pages-latest.json'), `${JSON.stringify({ when, machine, rounds, peer: PEER, summary, measured }, null, 2)}\n`)
  writeFileSync(join(resultsDir, 'pages-latest.md'), markdown(summary, { peer: PEER, rounds, machine, when }))
  console.log(markdown(summary, { peer: PEER, rounds, machine, when }))
  if (summary.some((row) => row.page !== PEER && !row.pass)) process.exitCode = 1
} finally {
  await browser.close()
}
