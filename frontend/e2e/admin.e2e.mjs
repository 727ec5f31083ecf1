// The admin area in Chromium against the real stack. Monitoreo Cielo: an admin resolves and
// reopens an alert (the database records who), sees the audit log with names; a teacher is
// turned away. Gestión Plataforma: an admin publishes an announcement a teacher then reads,
// finds a teacher's account, grants and revokes a role and puts her in the Demo 2025.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, withPage } from './browser.mjs'
import { createUser, grantRole, insertRows, selectRows, stack } from './stack.mjs'

useBrowser()

async function eventually(check, what) {
  for (let attempt = 0; ; attempt++) {
    const value = await check()
    if (value) return value
    assert.ok(attempt < 50, `${what} did not happen`)
    await new Promise((done) => setTimeout(done, 100))
  }
}

test('Monitoreo Cielo: an admin resolves and reopens an alert and reads the audit log', async () => {
  const mark = randomUUID().slice(0, 6)
  const admin = await createUser('monitoreo')
  await grantRole(admin.id, 'admin')
  await insertRows('profiles', [{ user_id: admin.id, first_name: 'Marta', last_name: 'Rojas', how_found_us: 'Equipo Cielo' }])
  const [critical] = await insertRows('admin_alerts', [
    { severity: 'critical', title: `Réplica sin conexión ${mark}`, message: 'La réplica dejó de recibir cambios.', source: 'base de datos', metadata: { lag_s: 120 } },
    { severity: 'warning', title: `Cola de correos lenta ${mark}`, message: '', source: 'auth', metadata: {} },
  ])
  await insertRows('security_audit_log', [{ user_id: admin.id, action: 'logger_error', new_values: { message: `Fallo al guardar ${mark}`, password: 'no-debe-verse' } }])

  await withPage(DESKTOP, async ({ page, problems }) => {
    await signIn(page, admin)
    await page.getByRole('link', { name: /Monitoreo Cielo/ }).click()
    const row = page.getByTestId('alert').filter({ hasText: `Réplica sin conexión ${mark}` })
    await row.getByText('Crítica').waitFor()
    await row.getByText('Detalles').click()
    await row.getByText('"lag_s": 120').waitFor()
    const audit = page.getByTestId('audit-list').locator('li').filter({ hasText: `Fallo al guardar ${mark}` })
    await audit.getByText('Marta Rojas').waitFor()
    assert.equal(await page.getByText('no-debe-verse').count(), 0)
    await screenshot(page, 'admin-monitoring-alerts-desktop')

    await row.getByRole('button', { name: 'Marcar resuelta' }).click()
    await row.waitFor({ state: 'detached' })
    const [stored] = await selectRows('admin_alerts', `id=eq.${critical.id}&select=is_resolved,resolved_by`)
    assert.deepEqual(stored, { is_resolved: true, resolved_by: admin.id })

    await page.getByRole('button', { name: 'Todas' }).click()
    await row.getByText(/^Resuelta el /).waitFor()
    await row.getByRole('button', { name: 'Reabrir' }).click()
    await row.getByRole('button', { name: 'Marcar resuelta' }).waitFor()
    // Leave nothing unresolved that counts for the sidebar's badge in other tests.
    await row.getByRole('button', { name: 'Marcar resuelta' }).click()
    await row.getByRole('button', { name: 'Reabrir' }).waitFor()
    assert.deepEqual(problems, [])
  })

  await withPage(MOBILE, async ({ page }) => {
    await signIn(page, await createUser('no-admin'))
    await page.goto(`${stack().url}/admin/monitoring`)
    await page.getByRole('alert').getByText('Esta sección es solo para administradores.').waitFor()
    await page.goto(`${stack().url}/admin/platform`)
    await page.getByRole('alert').getByText('Esta sección es solo para administradores.').waitFor()
  })
})

test('Gestión Plataforma: an admin publishes an announcement and manages a teacher', async () => {
  const mark = randomUUID().slice(0, 6)
  const admin = await createUser('plataforma')
  await grantRole(admin.id, 'admin')
  const teacher = await createUser(`profe-${mark}`)
  await insertRows('profiles', [{ user_id: teacher.id, first_name: 'Camila', last_name: `Fuentes ${mark}`, how_found_us: 'Un colega', school_rbd: 8485 }])

  await withPage(DESKTOP, async ({ page, problems }) => {
    await signIn(page, admin)
    await page.getByRole('link', { name: 'Gestión Plataforma' }).click()
    await page.getByRole('heading', { level: 1, name: 'Gestión Plataforma' }).waitFor()

    // Accounts: found by words of the name, a role granted and revoked, the demo set.
    await page.getByRole('searchbox', { name: 'Buscar cuentas' }).fill(`camila fuentes ${mark}`)
    const row = page.getByTestId('user-row').filter({ hasText: teacher.email })
    await row.getByText('LICEO INSTITUTO NACIONAL', { exact: false }).waitFor()
    await eventually(async () => (await page.getByTestId('user-row').count()) === 1, 'the search')
    await row.getByRole('button', { name: 'Creación de contenido' }).click()
    await eventually(async () => (await selectRows('user_roles', `user_id=eq.${teacher.id}&role=eq.content_creator`)).length === 1, 'the grant')
    await row.getByRole('button', { name: 'Creación de contenido', pressed: true }).waitFor()
    await row.getByRole('button', { name: 'Directivo' }).click()
    await eventually(async () => {
      const [role] = await selectRows('user_roles', `user_id=eq.${teacher.id}&role=eq.directivo&select=school_rbd`)
      return role?.school_rbd === 8485
    }, 'directivo of her school')
    await row.getByRole('button', { name: 'Creación de contenido', pressed: true }).click()
    await eventually(async () => (await selectRows('user_roles', `user_id=eq.${teacher.id}&role=eq.content_creator`)).length === 0, 'the revocation')

    await row.getByRole('button', { name: 'Agregar a la Demo 2025' }).click()
    const demo = page.getByTestId('demo-dialog')
    await demo.getByLabel('Estrellas en total').fill('300')
    await demo.getByLabel('Máximo de cursos').fill('60')
    await demo.getByRole('button', { name: 'Guardar' }).click()
    await demo.getByTestId('demo-refusal').getByText('El máximo de cursos va de 0 a 50.').waitFor()
    await demo.getByLabel('Máximo de cursos').fill('4')
    await demo.getByRole('button', { name: 'Guardar' }).click()
    await row.getByTestId('user-demo').getByText('0 de 300 estrellas usadas', { exact: false }).waitFor()
    const [stored] = await selectRows('demo_users_2025', `user_id=eq.${teacher.id}&select=total_stars,max_courses,is_active`)
    assert.deepEqual(stored, { total_stars: 300, max_courses: 4, is_active: true })
    await screenshot(page, 'admin-platform-users-desktop')

    // Announcements: a draft, then published for teachers.
    await page.getByRole('tab', { name: 'Anuncios' }).click()
    await page.getByTestId('new-announcement').click()
    const dialog = page.getByTestId('announcement-dialog')
    await dialog.getByLabel('Título').fill(`Jornada de evaluación ${mark}`)
    await dialog.getByLabel('Texto').fill('El **viernes** no hay clases.\n\n- Revisa tu calendario')
    await dialog.getByText('Vista previa').waitFor()
    await dialog.getByRole('button', { name: 'Guardar borrador' }).click()
    const item = page.getByTestId('admin-announcement').filter({ hasText: `Jornada de evaluación ${mark}` })
    await item.getByTestId('announcement-state').getByText('Borrador').waitFor()
    await item.getByRole('button', { name: 'Editar' }).click()
    await dialog.getByLabel('Destacar (se muestra primero)').check()
    await dialog.getByRole('button', { name: 'Publicar' }).click()
    await item.getByTestId('announcement-state').getByText('Publicado').waitFor()
    await screenshot(page, 'admin-platform-announcements-desktop')
    assert.deepEqual(problems, [])
  })

  await withPage(MOBILE, async ({ page }) => {
    await signIn(page, teacher)
    await page.goto(`${stack().url}/announcements`)
    const shown = page.getByTestId('announcement').filter({ hasText: `Jornada de evaluación ${mark}` })
    await shown.getByText('Destacado').waitFor()
    assert.equal(await shown.locator('strong').textContent(), 'viernes')
    await screenshot(page, 'announcements-mobile')
  })
})
