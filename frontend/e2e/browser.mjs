// Headless Debian Chromium driven by playwright-core (no browser download: the system
// binary is used), against the stack run.mjs started.

import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before } from 'node:test'
import { chromium } from 'playwright-core'
import { PASSWORD, stack, storageKey } from './stack.mjs'

export const artifactsDir = join(dirname(fileURLToPath(import.meta.url)), 'artifacts')

export const DESKTOP = { width: 1280, height: 800 }
export const MOBILE = { width: 375, height: 812 }
export const DARK_DESKTOP = { ...DESKTOP, colorScheme: 'dark' }
/** A phone with a touchscreen: touch events, `pointer: coarse`. */
export const TOUCH_PHONE = { ...MOBILE, hasTouch: true }

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
export async function openPage(browser, { width = 1280, height = 800, colorScheme = 'light', hasTouch = false } = {}) {
  const context = await browser.newContext({
    viewport: { width, height },
    colorScheme,
    hasTouch,
    isMobile: hasTouch,
    locale: 'es-CL',
    timezoneId: 'America/Santiago',
  })
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)
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

/** Path of the page's URL. */
export const pathOf = (page) => new URL(page.url()).pathname

export async function waitForPath(page, path) {
  await page.waitForURL((url) => url.pathname === path)
}

/** The pages with a guided tour (src/features/tour/tours.ts). */
export const TOUR_PAGES = ['/dashboard', '/courses', '/schedule', '/planner']

/**
 * Marks the guided tours of `userId` as skipped in this browser, as a teacher who already
 * saw them would have, unless she has progress of her own there: tests about other things
 * are not stopped by a tour. tours.e2e.mjs tests the tours themselves.
 */
export async function skipTours(context, userId) {
  await context.addInitScript(
    ([id, pages]) => {
      for (const page of pages) {
        const key = `cielo_tour:${id}:${page}`
        if (!window.localStorage.getItem(key))
          window.localStorage.setItem(key, JSON.stringify({ tourCompleted: false, currentStep: 1, skipped: true }))
      }
    },
    [userId, TOUR_PAGES],
  )
}

/**
 * Signs in through /auth like a person, and waits for the dashboard (or `landing`). Her
 * guided tours are skipped unless `tours` is set.
 */
export async function signIn(page, { id, email, password = PASSWORD }, { from = '/auth', landing = '/dashboard', tours = false } = {}) {
  if (id && !tours) await skipTours(page.context(), id)
  await page.goto(`${stack().url}${from}`)
  await page.getByLabel('Correo electrónico').fill(email)
  await page.getByLabel('Contraseña').fill(password)
  await page.getByRole('button', { name: 'Iniciar sesión', exact: true }).click()
  await waitForPath(page, landing)
}

/** Puts a session (auth/v1's token answer) in the browser's storage before the app starts. */
export async function useSession(context, session) {
  const stored = { ...session, expires_at: session.expires_at ?? Math.floor(Date.now() / 1000) + session.expires_in }
  await context.addInitScript(
    ([key, value]) => window.localStorage.setItem(key, value),
    [storageKey(), JSON.stringify(stored)],
  )
}

let shared

/** One browser for the test file: launched before its tests, closed after them. */
export function useBrowser() {
  before(async () => {
    shared = await launchBrowser()
  })
  after(async () => {
    await shared?.close()
  })
}

/** Runs `action` with a fresh page (context closed afterwards, whatever happens). */
export async function withPage(viewport, action) {
  const opened = await openPage(shared, viewport)
  try {
    return await action(opened)
  } finally {
    await opened.context.close()
  }
}
