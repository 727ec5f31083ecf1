// Error handling in the browser against the real stack: a page whose code cannot be
// downloaded shows '¡Ups! Algo salió mal' with its two actions; a failed data request shows
// 'Error de Conexión' with 'Reintentar'; errors are kept in localStorage `app_errors`.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, waitForPath, withPage } from './browser.mjs'
import { createUser } from './stack.mjs'

useBrowser()

for (const [name, viewport] of [
  ['desktop', DESKTOP],
  ['mobile', MOBILE],
]) {
  test(`a page that fails shows the error screen; 'Intentar de nuevo' recovers (${name})`, async () => {
    await withPage(viewport, async ({ page }) => {
      await signIn(page, await createUser(`error-${name}`))
      // The code of the "Mis Cursos" page cannot be downloaded (e.g. a network cut).
      const block = (route) => route.abort('internetdisconnected')
      await page.route(/\/assets\/courses-[^/]+\.js$/, block)
      await page.goto(`${page.url().replace('/dashboard', '/courses')}`)
      const screen = page.getByTestId('error-screen')
      await screen.getByRole('heading', { name: '¡Ups! Algo salió mal' }).waitFor()
      // The sidebar stays: only the page failed.
      await page.getByRole('button', { name: 'Cerrar sesión' }).count()
      await screenshot(page, `error-screen-${name}`)
      const errors = await page.evaluate(() => JSON.parse(localStorage.getItem('app_errors') ?? '[]'))
      assert.ok(errors.some((entry) => entry.message === 'Error al mostrar la página'), JSON.stringify(errors))

      await page.unroute(/\/assets\/courses-[^/]+\.js$/, block)
      await screen.getByRole('button', { name: 'Intentar de nuevo' }).click()
      await page.getByRole('heading', { level: 1, name: 'Mis Cursos' }).waitFor()
      assert.equal(new URL(page.url()).pathname, '/courses')
    })
  })
}

test("'Ir al Dashboard' leaves the failed page", async () => {
  await withPage(DESKTOP, async ({ page }) => {
    await signIn(page, await createUser('error-ir'))
    await page.route(/\/assets\/announcements-[^/]+\.js$/, (route) => route.abort('internetdisconnected'))
    await page.getByRole('link', { name: 'Anuncios' }).click()
    await page.getByRole('heading', { name: '¡Ups! Algo salió mal' }).waitFor()
    await page.getByRole('button', { name: 'Ir al Dashboard' }).click()
    await waitForPath(page, '/dashboard')
    await page.getByTestId('dashboard').waitFor()
  })
})

test("a data request without network: 'Error de Conexión' with 'Reintentar'", async () => {
  await withPage(DESKTOP, async ({ page }) => {
    const user = await createUser('sin-red')
    await signIn(page, user)
    await page.route('**/rest/v1/courses**', (route) => route.abort('internetdisconnected'))
    // A fresh load asks for the courses again (the query's one retry fails too).
    await page.reload()
    const toast = page.locator('[data-sonner-toast]').filter({ hasText: 'Error de Conexión' })
    await toast.getByText('No se pudo cargar tus cursos. Verifica tu conexión a internet.').waitFor({ timeout: 20_000 })
    await page.waitForTimeout(500) // the toast's entrance animation
    await screenshot(page, 'network-error-desktop')
    await page.unroute('**/rest/v1/courses**')
    await toast.getByRole('button', { name: 'Reintentar' }).click()
    await page.getByText('Aún no tienes cursos').waitFor()
  })
})
