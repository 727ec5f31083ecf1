// The route guards against the real stack: no user → /auth (and back after signing in);
// an e-mail not confirmed → /confirm-email; no content-creator right → /dashboard (with a
// security alert and one audit-log entry); /waitlist and /acceso-anticipado → /auth; the
// catch-all not-found page.

import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, launchBrowser, openPage, screenshot, signIn, useSession, waitForPath } from './browser.mjs'
import { createUser, grantRole, phoneSession, selectRows, stack } from './stack.mjs'

let browser

before(async () => {
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
})

test('signed out: app routes go to /auth, and back to the page asked for after signing in', async () => {
  const { context, page } = await openPage(browser, MOBILE)
  try {
    for (const path of ['/dashboard', '/admin/creacion-contenido', '/editor/draft/42', '/planner/create', '/no-existe', '/waitlist', '/acceso-anticipado']) {
      await page.goto(`${stack().url}${path}`)
      await waitForPath(page, '/auth')
    }
    await page.goto(`${stack().url}/`)
    await page.getByRole('heading', { level: 1, name: /Planifica tus clases/ }).waitFor()

    const user = await createUser('vuelve')
    await page.goto(`${stack().url}/schedule`)
    await waitForPath(page, '/auth')
    await page.getByLabel('Correo electrónico').fill(user.email)
    await page.getByLabel('Contraseña').fill(user.password)
    await page.getByRole('button', { name: 'Iniciar sesión', exact: true }).click()
    await waitForPath(page, '/schedule')
    await page.getByRole('heading', { level: 1, name: 'Horario' }).waitFor()
    await page.getByTestId('empty-state').waitFor()
  } finally {
    await context.close()
  }
})

test('a session without a confirmed e-mail goes to /confirm-email', async () => {
  const { context, page } = await openPage(browser, DESKTOP)
  try {
    await useSession(context, await phoneSession())
    await page.goto(`${stack().url}/dashboard`)
    await waitForPath(page, '/confirm-email')
    await page.getByRole('heading', { level: 1, name: 'Confirma tu correo' }).waitFor()
    // Signing out from there ends the session for real.
    await page.getByRole('button', { name: 'Cerrar sesión' }).click()
    await page.getByRole('link', { name: 'Volver a iniciar sesión' }).waitFor()
  } finally {
    await context.close()
  }
})

test('content creation: a teacher is sent to /dashboard (audited), a content creator gets in', async () => {
  const { context, page } = await openPage(browser, DESKTOP)
  try {
    const teacher = await createUser('docente')
    await signIn(page, teacher)
    assert.equal(await page.getByRole('link', { name: 'Creación Contenido' }).count(), 0)
    await page.goto(`${stack().url}/admin/creacion-contenido`)
    await waitForPath(page, '/dashboard')
    await page.getByText('Acceso restringido').waitFor()
    // One audit entry for the denied access, attributed by the database.
    let entries = []
    for (let attempt = 0; attempt < 50 && entries.length === 0; attempt++) {
      entries = await selectRows('security_audit_log', `user_id=eq.${teacher.id}&action=eq.logger_access_denied&select=action,resource_type,new_values,user_agent`)
      if (entries.length === 0) await new Promise((done) => setTimeout(done, 100))
    }
    assert.equal(entries.length, 1)
    assert.equal(entries[0].resource_type, 'system')
    assert.equal(entries[0].new_values.route, '/admin/creacion-contenido')
    assert.match(entries[0].user_agent, /Chrome/)

    const creator = await createUser('creadora')
    await grantRole(creator.id, 'content_creator')
    const other = await openPage(browser, DESKTOP)
    try {
      await signIn(other.page, creator)
      await other.page.getByRole('link', { name: 'Creación Contenido' }).click()
      await waitForPath(other.page, '/admin/creacion-contenido')
      await other.page.getByRole('heading', { level: 1, name: 'Creación Contenido' }).waitFor()
    } finally {
      await other.context.close()
    }
  } finally {
    await context.close()
  }
})

test('signed in: an unknown path shows the not-found page inside the layout', async () => {
  const { context, page } = await openPage(browser, DESKTOP)
  try {
    await signIn(page, await createUser('perdida'))
    await page.goto(`${stack().url}/esta/no/existe`)
    await page.getByRole('heading', { level: 1, name: 'Página no encontrada' }).waitFor()
    await page.getByTestId('sidebar').waitFor()
  } finally {
    await context.close()
  }
})
