// The public trial against the real stack: a visitor without an account (an anonymous
// sign-in) picks a level, subject and OA on /planificacion-ia, watches the stack's model
// write the plan, gets it as her draft (`?draft_session=` kept through a reload), creates her
// account there and, after confirming the e-mail, finds the plan among her drafts. A teacher
// with an account who tried it first gets her copy when she signs in.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, screenshot, useBrowser, withPage } from './browser.mjs'
import { PASSWORD, createUser, getUser, latestMail, selectRows, stack, uniqueEmail } from './stack.mjs'

useBrowser()

async function generateAsVisitor(page, path) {
  await page.goto(`${stack().url}${path}`)
  await page.getByTestId('trial-begin').click()
  const form = page.getByTestId('trial-form')
  await form.getByLabel('Nivel').selectOption('7B')
  await form.getByLabel('Asignatura').selectOption('matematica')
  await form.getByPlaceholder(/Buscar por código/).fill('MA07 OA 03')
  await form.getByTestId('objective-list').getByRole('checkbox').first().check()
  await form.getByTestId('trial-generate').click()
  // The zones appear at once and fill while the model writes.
  await page.getByTestId('trial-zone').first().waitFor()
  assert.equal(await page.getByTestId('trial-zone').count(), 8)
  await page.waitForURL((url) => url.searchParams.has('draft_session'), { timeout: 60_000 })
  await page.getByText('Quedó guardada como borrador').waitFor()
  await page.getByTestId('trial-keep').waitFor()
  return new URL(page.url()).searchParams.get('draft_session')
}

test('a visitor generates a plan without an account and keeps it by signing up', async () => {
  await withPage(DESKTOP, async ({ page, problems }) => {
    const draftId = await generateAsVisitor(page, '/planificacion-ia')
    assert.match(await page.getByTestId('trial-zone').first().innerText(), /MA07 OA 03/)
    assert.doesNotMatch(await page.getByTestId('trial-plan').innerText(), /\[Por completar/)
    await screenshot(page, 'trial-desktop')

    // A reload shows her plan again.
    await page.reload()
    await page.getByTestId('trial-plan').getByText('Matemática 7° Básico · MA07 OA 03').waitFor()

    // Signing up there keeps the same user: after confirming, the plan is in Borradores.
    const email = uniqueEmail('visitante')
    const keep = page.getByTestId('trial-keep')
    await keep.getByLabel('Correo').fill(email)
    await keep.getByLabel(/^Contraseña/).fill(PASSWORD)
    await keep.getByTestId('trial-create-account').click()
    await page.getByTestId('trial-sent').getByText(email).waitFor()
    const mail = await latestMail(email)
    await page.goto(mail.links[0])
    await page.waitForURL((url) => url.pathname === '/drafts')
    await page.getByText('Matemática 7° Básico · MA07 OA 03').waitFor()
    const [draft] = await selectRows('drafts', `id=eq.${draftId}&select=teacher_id`)
    const owner = await getUser(draft.teacher_id)
    assert.equal(owner.email, email)
    assert.equal(owner.is_anonymous, false)
    assert.deepEqual(problems, [])
  })
})

test('a teacher who tried it before signing in finds her copy in Borradores (375 px)', async () => {
  const teacher = await createUser('prueba-antes')
  await withPage(MOBILE, async ({ page }) => {
    await generateAsVisitor(page, '/crear-planificacion')
    await screenshot(page, 'trial-mobile')
    await page.getByTestId('trial-keep').getByText('Ya tengo cuenta').click()
    await page.waitForURL((url) => url.pathname === '/auth')
    // Signing in brings her back to the trial, which gives her account the copy.
    await page.getByLabel('Correo electrónico').fill(teacher.email)
    await page.getByLabel('Contraseña').fill(teacher.password)
    await page.getByRole('button', { name: 'Iniciar sesión', exact: true }).click()
    await page.waitForURL((url) => url.pathname === '/crear-planificacion')
    await page.getByText('Tu planificación de prueba quedó en Borradores').waitFor()
    const drafts = await selectRows('drafts', `teacher_id=eq.${teacher.id}&select=title`)
    assert.deepEqual(drafts.map((d) => d.title), ['Matemática 7° Básico · MA07 OA 03'])
  })
})
