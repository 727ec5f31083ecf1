// Anuncios and Ayuda in Chromium against the real stack: a teacher sees the announcements of
// her audience in their publication window (pinned first, "Nuevo" until she has seen them,
// recorded in announcement_reads); drafts, expired ones and the Demo 2025's are not hers. The
// help centre finds a question whatever the accents, in the app and on the public page.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, withPage } from './browser.mjs'
import { createUser, insertRows, selectRows, stack } from './stack.mjs'

useBrowser()

const hours = (n) => new Date(Date.now() + n * 3_600_000).toISOString()

test('a teacher reads the announcements meant for her, pinned first, new ones marked once', async () => {
  const mark = randomUUID().slice(0, 6)
  const teacher = await createUser('anuncios')
  // One bulk insert: every row names the same columns.
  const announcement = (values) => ({ is_pinned: false, published_at: null, expires_at: null, ...values })
  const rows = await insertRows('announcements', [
    announcement({ title: `Vacaciones de invierno ${mark}`, body: 'Recuerda que las vacaciones de invierno **cambian según la región**.\n\n- Revisa tu [calendario](/calendar)\n- Ajusta tus clases', audience: 'docentes', published_at: hours(-2) }),
    announcement({ title: `Bienvenida ${mark}`, body: 'Planifica tus clases con el currículum nacional.', audience: 'publico', is_pinned: true, published_at: hours(-48) }),
    announcement({ title: `Solo demo ${mark}`, body: 'Para la Demo 2025.', audience: 'demo', published_at: hours(-1) }),
    announcement({ title: `Borrador ${mark}`, body: 'Aún no se publica.', audience: 'docentes' }),
    announcement({ title: `Vencido ${mark}`, body: 'Ya pasó.', audience: 'docentes', published_at: hours(-72), expires_at: hours(-24) }),
  ])
  const mine = (titles) => titles.filter((title) => title.endsWith(mark))

  await withPage(DESKTOP, async ({ page, problems }) => {
    await signIn(page, teacher)
    await page.getByTestId('sidebar').getByRole('link', { name: 'Anuncios', exact: true }).click()
    const list = page.getByTestId('announcement-list')
    await list.waitFor()
    const titles = mine(await list.getByRole('heading', { level: 2 }).allTextContents())
    assert.deepEqual(titles, [`Bienvenida ${mark}`, `Vacaciones de invierno ${mark}`])
    const winter = page.getByTestId('announcement').filter({ hasText: `Vacaciones de invierno ${mark}` })
    await winter.getByTestId('announcement-new').waitFor()
    assert.equal(await winter.locator('strong').textContent(), 'cambian según la región')
    assert.equal(await winter.getByRole('listitem').count(), 2)
    assert.equal(await winter.getByRole('link', { name: 'calendario' }).getAttribute('href'), '/calendar')
    await page.getByTestId('announcement').filter({ hasText: `Bienvenida ${mark}` }).getByText('Destacado').waitFor()
    await screenshot(page, 'announcements-desktop')

    // Seen once: recorded for her (other tests' announcements for teachers may be read too;
    // the ones not meant for her are not).
    const shownIds = rows.filter((row) => titles.includes(row.title)).map((row) => row.id)
    const hiddenIds = rows.filter((row) => !titles.includes(row.title)).map((row) => row.id)
    for (let attempt = 0; ; attempt++) {
      const read = new Set((await selectRows('announcement_reads', `user_id=eq.${teacher.id}&select=announcement_id`)).map((row) => row.announcement_id))
      if (shownIds.every((id) => read.has(id))) {
        assert.deepEqual(hiddenIds.filter((id) => read.has(id)), [])
        break
      }
      assert.ok(attempt < 50, `reads recorded: ${JSON.stringify([...read])}`)
      await page.waitForTimeout(100)
    }
    await page.reload()
    await list.waitFor()
    assert.equal(await page.getByTestId('announcement').filter({ hasText: mark }).getByTestId('announcement-new').count(), 0)
    assert.deepEqual(problems, [])
  })
})

test('the help centre finds a question in the app and on the public page', async () => {
  const teacher = await createUser('ayuda')
  await withPage(MOBILE, async ({ page, problems }) => {
    await signIn(page, teacher)
    await page.goto(`${stack().url}/help`)
    await page.getByRole('heading', { level: 1, name: 'Ayuda' }).waitFor()
    await page.getByRole('heading', { level: 2, name: 'IA y Estrellas Cielo' }).waitFor()
    const question = page.getByText('¿Qué son las Estrellas Cielo?')
    await question.click()
    await page.getByText('unos 515 tokens', { exact: false }).waitFor()
    await screenshot(page, 'help-mobile')

    await page.getByRole('searchbox', { name: 'Buscar en la ayuda' }).fill('contrasena OLVIDE')
    assert.equal(await page.getByTestId('help-question').count(), 1)
    await page.getByText('te enviaremos un enlace', { exact: false }).waitFor()
    await page.getByRole('searchbox', { name: 'Buscar en la ayuda' }).fill('xilófono')
    await page.getByRole('status').getByText('Ninguna pregunta coincide').waitFor()
    assert.deepEqual(problems, [])
  })
  await withPage(DESKTOP, async ({ page }) => {
    await page.goto(`${stack().url}/centro-ayuda`)
    await page.getByRole('heading', { level: 1, name: 'Centro de ayuda' }).waitFor()
    await page.getByRole('searchbox', { name: 'Buscar en la ayuda' }).fill('horario semanal')
    await page.getByText('arrastra sobre varias horas', { exact: false }).waitFor()
    await screenshot(page, 'help-centre-public-desktop')
  })
})

test('the public information pages have their content, on a phone and on a desktop', async () => {
  const pages = [
    ['/curriculum-nacional', 'Currículum Nacional'],
    ['/tutoriales', 'Tutoriales'],
    ['/terminos', 'Términos y condiciones'],
    ['/privacidad', 'Política de privacidad'],
    ['/mineduc', 'Cielo y el Mineduc'],
    ['/precios', 'Precios'],
    ['/contacto', 'Contacto'],
  ]
  for (const viewport of [MOBILE, DESKTOP]) {
    await withPage(viewport, async ({ page, problems }) => {
      for (const [path, title] of pages) {
        await page.goto(`${stack().url}${path}`)
        await page.getByRole('heading', { level: 1, name: title }).waitFor()
        assert.ok((await page.getByTestId('info-page').getByRole('heading', { level: 2 }).count()) >= 3, path)
        assert.equal(await page.getByText('Contenido en preparación').count(), 0, path)
      }
      await page.goto(`${stack().url}/privacidad`)
      await page.getByText('Ley N° 19.628', { exact: false }).waitFor()
      await screenshot(page, `privacy-${viewport === MOBILE ? 'mobile' : 'desktop'}`)
      assert.deepEqual(problems, [])
    })
  }
})
