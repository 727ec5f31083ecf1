// The route guards against the real stack: no user → /auth (and back after signing in);
// an e-mail not confirmed → /confirm-email; no content-creator right → /dashboard (with a
// security alert and one audit-log entry); /waitlist and /acceso-anticipado → /auth; the
// catch-all not-found page.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, signIn, useBrowser, useSession, waitForPath, withPage } from './browser.mjs'
import { createUser, grantRole, phoneSession, selectRows, stack } from './stack.mjs'

useBrowser()

test('signed out: app routes go to /auth, and back to the page asked for after signing in', async () => {
  await withPage(MOBILE, async ({ page }) => {
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
  })
})

test('a session without a confirmed e-mail goes to /confirm-email', async () => {
  await withPage(DESKTOP, async ({ context, page }) => {
    await useSession(context, await phoneSession())
    await page.goto(`${stack().url}/dashboard`)
    await waitForPath(page, '/confirm-email')
    await page.getByRole('heading', { level: 1, name: 'Confirma tu correo' }).waitFor()
    // Signing out from there ends the session for real.
    await page.getByRole('button', { name: 'Cerrar sesión' }).click()
    await page.getByRole('link', { name: 'Volver a iniciar sesión' }).waitFor()
  })
})

test('content creation: a teacher is sent to /dashboard (audited), a content creator gets in', async () => {
  await withPage(DESKTOP, async ({ page }) => {
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
    await withPage(DESKTOP, async ({ page: creatorPage }) => {
      await signIn(creatorPage, creator)
      await creatorPage.getByRole('link', { name: 'Creación Contenido' }).click()
      await waitForPath(creatorPage, '/admin/creacion-contenido')
      await creatorPage.getByRole('heading', { level: 1, name: 'Creación Contenido' }).waitFor()
    })
  })
})

test('signed in: an unknown path shows the not-found page inside the layout', async () => {
  await withPage(DESKTOP, async ({ page }) => {
    await signIn(page, await createUser('perdida'))
    await page.goto(`${stack().url}/esta/no/existe`)
    await page.getByRole('heading', { level: 1, name: 'Página no encontrada' }).waitFor()
    await page.getByTestId('sidebar').waitFor()
  })
})
