// Loads the app's main pages in headless Chromium against a running gateway (the seeded demo)
// and writes pages-latest.{json,md}: for each page, from a cold browser cache with the demo
// teacher's session already stored, the time until the page's own data is drawn and the bytes
// fetched before then. The landing page, loaded the same way in the same rounds, is the peer.
//
//   node bench/pages/measure.mjs BASE_URL ANON_KEY RESULTS_DIR   (BENCH_ROUNDS, default 7;
//   BENCH_DEMO_EMAIL and BENCH_DEMO_PASSWORD: the demo teacher, from `cielo status -o env`)

import { writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { demoSession, launchChromium, signedInContext } from './browser.mjs'
import { markdown, summarize } from './report.mjs'

const [baseUrl, anonKey, resultsDir] = process.argv.slice(2)
if (!resultsDir) throw new Error('usage: measure.mjs BASE_URL ANON_KEY RESULTS_DIR')
const rounds = Number(process.env.BENCH_ROUNDS ?? 7)

/** Each page and what shows that its data has arrived. */
const PAGES = {
  '/': 'main h1',
  '/dashboard': '[data-testid="focus-classes"], [data-testid="first-steps"]',
  '/courses': '[data-testid="course-card"]',
  '/schedule': '[data-testid="schedule-block"]',
  '/calendar': '[data-testid="calendar-class"]',
  // The demo's plan "Potencias de base 10" open in the planner, its zones' editors drawn.
  '/planner/create?plan=d9000000-0000-4000-8000-000000000001': '[data-testid="zone"] .tiptap',
}
const PEER = '/'
/** Pages whose editor loads on demand after the route (see report.mjs). */
const ON_DEMAND = ['/planner/create?plan=d9000000-0000-4000-8000-000000000001']

async function load(browser, session, path) {
  const context = await signedInContext(browser, baseUrl, session)
  try {
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

const browser = await launchChromium()
try {
  const session = await demoSession(baseUrl, anonKey)
  // Warm the stack (the gateway's caches, PostgreSQL's buffers) before measuring.
  for (const path of Object.keys(PAGES)) await load(browser, session, path)
  const measured = []
  for (let round = 0; round < rounds; round += 1) {
    const results = {}
    for (const path of Object.keys(PAGES)) results[path] = await load(browser, session, path)
    measured.push(results)
    console.error(`[bench-pages] round ${round + 1}/${rounds}: ${Object.entries(results).map(([p, r]) => `${p} ${Math.round(r.ms)} ms`).join(', ')}`)
  }
  const summary = summarize(measured, Object.keys(PAGES), PEER, ON_DEMAND)
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC'
  const machine = `${cpus().length} cores`
  writeFileSync(join(resultsDir, 'pages-latest.json'), `${JSON.stringify({ when, machine, rounds, peer: PEER, summary, measured }, null, 2)}\n`)
  writeFileSync(join(resultsDir, 'pages-latest.md'), markdown(summary, { peer: PEER, rounds, machine, when }))
  console.log(markdown(summary, { peer: PEER, rounds, machine, when }))
  if (summary.some((row) => row.page !== PEER && !row.pass)) process.exitCode = 1
} finally {
  await browser.close()
}
