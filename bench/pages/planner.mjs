// The planner in headless Chromium against a running gateway (the seeded demo, generating
// with the tests' model) and writes planner-latest.{json,md}, each measure with a peer taken
// the same way in the same run:
//
//   first generated text  from confirming "Generar con IA" on the demo's plan until a zone
//                         shows generated text (peer: until the model's own text shows)
//   autosave round trip   each PATCH of a zone while typing, request to response, p95
//                         (peer: a GET of the same zone from the page)
//   typing never blocks   the longest task while typing in a plan of 5,000 words
//                         (peer: typing the same in the page's plain title input)
//
//   node bench/pages/planner.mjs BASE_URL ANON_KEY RESULTS_DIR   (BENCH_ROUNDS, default 7)

import { writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { demoSession, launchChromium, signedInContext } from './browser.mjs'
import { plannerMarkdown, summarizePlanner } from './planner-report.mjs'

const [baseUrl, anonKey, resultsDir] = process.argv.slice(2)
if (!resultsDir) throw new Error('usage: planner.mjs BASE_URL ANON_KEY RESULTS_DIR')
const rounds = Number(process.env.BENCH_ROUNDS ?? 7)
const DEMO_PLAN = 'd9000000-0000-4000-8000-000000000001'
const DEMO_COURSE = 'dc000000-0000-4000-8000-000000000071'

async function rest(session, path, { method = 'GET', body } = {}) {
  const response = await fetch(`${baseUrl}/rest/v1/${path}`, {
    method,
    headers: { apikey: anonKey, Authorization: `Bearer ${session.access_token}`, 'Content-Type': 'application/json', Prefer: 'return=representation' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
  return text ? JSON.parse(text) : null
}

/** A plan of the demo's course whose eight zones hold 5,000 words between them. */
async function longPlan(session) {
  const [objective] = await rest(session, 'learning_objectives?level_code=eq.7B&subject_code=eq.matematica&kind=eq.OA&select=id&limit=1')
  const planId = await rest(session, 'rpc/create_simple_plan', {
    method: 'POST',
    body: { course_id: DEMO_COURSE, title: 'Plan extenso (benchmark)', objective_ids: [objective.id] },
  })
  const zones = await rest(session, `plan_zones?select=id,plan_classes!inner(plan_id)&plan_classes.plan_id=eq.${planId}`)
  const sentence = 'Los estudiantes resuelven problemas con fracciones y comparan sus estrategias en parejas antes de compartirlas.'
  const words = sentence.split(' ').length
  const perZone = Math.ceil(5000 / zones.length / words)
  const content = { type: 'doc', content: Array.from({ length: perZone }, () => ({ type: 'paragraph', content: [{ type: 'text', text: sentence }] })) }
  for (const zone of zones) await rest(session, `plan_zones?id=eq.${zone.id}`, { method: 'PATCH', body: { content } })
  return planId
}

async function openPlan(context, planId) {
  const page = await context.newPage()
  await page.goto(`${baseUrl}/planner/create?plan=${planId}`)
  await page.locator('[data-testid="zone"] .tiptap').first().waitFor({ timeout: 30_000 })
  return page
}

/** Confirms a generation and times, in the page, the first text and the model's first text. */
async function generation(page) {
  await page.evaluate(() => {
    const zones = () => [...document.querySelectorAll('[data-testid="zone"] .tiptap')].map((z) => z.innerText)
    const before = zones().join('\u0000')
    window.__gen = {}
    const observer = new MutationObserver(() => {
      const now = zones()
      if (window.__gen.first === undefined && now.join('\u0000') !== before) window.__gen.first = performance.now()
      if (window.__gen.model === undefined && now.some((text) => text.trim() && !text.includes('[Por completar')) && now.some((text) => text.includes('[Por completar')))
        window.__gen.model = performance.now()
    })
    observer.observe(document.querySelector('[data-testid="zones"]'), { subtree: true, childList: true, characterData: true })
    window.__genObserver = observer
  })
  await page.getByTestId('generate-plan').click()
  const start = await page.evaluate(() => performance.now())
  await page.getByTestId('confirm-generate').click()
  await page.getByText(/Se usaron? \d+ estrellas?|Sin modelo de IA/).first().waitFor({ timeout: 120_000 })
  const times = await page.evaluate(() => {
    window.__genObserver.disconnect()
    return window.__gen
  })
  await page.locator('[data-testid="save-status"][data-status="saved"]').waitFor({ timeout: 30_000 })
  return { first: times.first - start, model: (times.model ?? times.first) - start }
}

/** Types into the last zone and records each autosave PATCH's round trip. */
async function autosaves(page, count) {
  const trips = []
  const listener = (request) => {
    if (request.method() === 'PATCH' && request.url().includes('/rest/v1/plan_zones')) {
      // Milliseconds from the request's start to the end of its response.
      trips.push(request.timing().responseEnd)
    }
  }
  page.on('requestfinished', listener)
  const editor = page.locator('[data-testid="zone"] .tiptap').last()
  for (let i = 0; i < count; i += 1) {
    await editor.click()
    await page.keyboard.press('Control+End')
    await page.keyboard.type(` ${i}`)
    await page.locator('[data-testid="save-status"][data-status="saved"]').waitFor({ timeout: 30_000 })
  }
  page.off('requestfinished', listener)
  return trips
}

/** GETs of one zone from the page: the same path without a write. */
async function reads(page, session, zoneId, count) {
  return page.evaluate(
    async ({ url, key, token, id, n }) => {
      const times = []
      for (let i = 0; i < n; i += 1) {
        const start = performance.now()
        const response = await fetch(`${url}/rest/v1/plan_zones?id=eq.${id}&select=id,version,content`, { headers: { apikey: key, Authorization: `Bearer ${token}` } })
        await response.json()
        times.push(performance.now() - start)
      }
      return times
    },
    { url: baseUrl, key: anonKey, token: session.access_token, id: zoneId, n: count },
  )
}

/** The longest task (ms) while typing `text` into `locator`. */
async function longestTaskWhileTyping(page, locator, text) {
  await page.evaluate(() => {
    window.__longTasks = []
    window.__longObserver = new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((entry) => entry.duration)))
    window.__longObserver.observe({ type: 'longtask' })
  })
  await locator.click()
  await page.keyboard.press('End')
  await page.keyboard.type(text, { delay: 25 })
  await page.waitForTimeout(300)
  return page.evaluate(() => {
    window.__longObserver.disconnect()
    return Math.max(0, ...window.__longTasks)
  })
}

/** The Long Tasks API must see a task we make on purpose, or a 0 ms reading means nothing. */
async function checkLongTaskObserver(page) {
  const seen = await page.evaluate(async () => {
    const durations = []
    const observer = new PerformanceObserver((list) => durations.push(...list.getEntries().map((entry) => entry.duration)))
    observer.observe({ type: 'longtask' })
    await new Promise((done) =>
      setTimeout(() => {
        const start = performance.now()
        while (performance.now() - start < 80) {
          // Busy on purpose: an 80 ms task.
        }
        setTimeout(done, 100)
      }),
    )
    observer.disconnect()
    return Math.max(0, ...durations)
  })
  if (seen < 70) throw new Error(`the Long Tasks API did not report an 80 ms task (saw ${seen} ms)`)
}

const browser = await launchChromium()
try {
  const session = await demoSession(baseUrl, anonKey)
  const longPlanId = await longPlan(session)
  const samples = { firstText: [], firstModelText: [], autosave: [], read: [], typingLongTasks: [], inputLongTasks: [] }
  for (let round = 0; round <= rounds; round += 1) {
    const warm = round === 0
    const context = await signedInContext(browser, baseUrl, session)
    try {
      const page = await openPlan(context, DEMO_PLAN)
      const times = await generation(page)
      const trips = await autosaves(page, 6)
      const zoneId = await page.locator('[data-testid="zone"]').last().getAttribute('data-zone-id')
      const readTimes = zoneId ? await reads(page, session, zoneId, 6) : []
      const long = await openPlan(context, longPlanId)
      await checkLongTaskObserver(long)
      const typing = await longestTaskWhileTyping(long, long.locator('[data-testid="zone"] .tiptap').nth(2), 'La docente modela el procedimiento en la pizarra.')
      const input = await longestTaskWhileTyping(long, long.getByTestId('plan-title'), ' y aplicaciones')
      if (!warm) {
        samples.firstText.push(times.first)
        samples.firstModelText.push(times.model)
        samples.autosave.push(...trips)
        samples.read.push(...readTimes)
        samples.typingLongTasks.push(typing)
        samples.inputLongTasks.push(input)
        console.error(`[bench-planner] round ${round}/${rounds}: first text ${Math.round(times.first)} ms, model ${Math.round(times.model)} ms, autosave ${trips.map(Math.round).join('/')} ms, longest task ${Math.round(typing)} ms`)
      }
    } finally {
      await context.close()
    }
  }
  const summary = summarizePlanner(samples)
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC'
  const machine = `${cpus().length} cores`
  writeFileSync(join(resultsDir, 'planner-latest.json'), `${JSON.stringify({ when, machine, rounds, summary, samples }, null, 2)}\n`)
  const report = plannerMarkdown(summary, { when, machine, rounds })
  writeFileSync(join(resultsDir, 'planner-latest.md'), report)
  console.log(report)
  if (summary.some((row) => !row.pass)) process.exitCode = 1
} finally {
  await browser.close()
}
