// Onboarding and the profile against the real stack: a new teacher completes her profile
// (school found by RBD, phone), creates her first course, lands on Inicio and never sees
// onboarding again; her phone is stored encrypted and no other teacher can read it; a
// visitor who tried a plan without an account starts at step 0 and keeps it after signing up.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, useSession, waitForPath, withPage } from './browser.mjs'
import { PASSWORD, anonymousSession, asUser, createUser, latestMail, passwordSession, selectRows, stack, uniqueEmail } from './stack.mjs'

useBrowser()

for (const [width, viewport] of [
  ['1280', DESKTOP],
  ['375', MOBILE],
]) {
  test(`a new teacher completes onboarding: profile, school by RBD, phone, first course (${width} px)`, async () => {
    const teacher = await createUser(`onboarding-${width}`)
    await withPage(viewport, async ({ page, problems }) => {
      await signIn(page, teacher, { tours: true })
      // Inicio sends her to finish setting up; no tour starts before she is onboarded.
      await page.getByTestId('onboarding-banner').waitFor()
      assert.equal(await page.getByTestId('tour-step').count(), 0)
      await page.getByTestId('onboarding-banner').getByRole('link', { name: 'Completar mi perfil' }).click()
      await waitForPath(page, '/onboarding')
      await page.getByRole('heading', { level: 1, name: 'Cuéntanos de ti' }).waitFor()

      // Nothing is saved while something is missing or wrong.
      await page.getByLabel('Teléfono (opcional)').fill('12345')
      await page.getByTestId('save-profile').click()
      await page.getByText('Escribe tu nombre.').waitFor()
      await page.getByText('Escribe un número chileno, por ejemplo +56 9 1234 5678.').waitFor()
      assert.deepEqual(await selectRows('profiles', `user_id=eq.${teacher.id}`), [])

      await page.getByLabel('Nombre', { exact: true }).fill('Ana')
      await page.getByLabel('Apellido').fill('Pérez')
      await page.getByLabel('¿Cómo conociste Cielo?').selectOption('Me lo recomendó un colega')
      await page.getByRole('combobox', { name: /Establecimiento/ }).fill('8485')
      await page.getByTestId('school-option').first().getByText('LICEO INSTITUTO NACIONAL · Santiago (RBD 8485)').waitFor()
      await page.getByRole('combobox', { name: /Establecimiento/ }).press('Enter')
      await page.getByTestId('school-picker-chosen').getByText('LICEO INSTITUTO NACIONAL').waitFor()
      await page.getByLabel('Teléfono (opcional)').fill('9 8765 4321')
      await screenshot(page, `onboarding-profile-${width}`)
      await page.getByTestId('save-profile').click()

      // Step 3: her first course.
      await page.getByRole('heading', { level: 1, name: '¡Hola, Ana! Crea tu primer curso' }).waitFor()
      assert.equal(await page.getByTestId('onboarding').getAttribute('data-step'), '3')
      await screenshot(page, `onboarding-course-${width}`)
      await page.getByTestId('onboarding-new-course').click()
      const dialog = page.getByTestId('course-dialog')
      await dialog.getByLabel('Nivel').selectOption({ label: '7° Básico' })
      await dialog.getByLabel('Asignatura').selectOption({ label: 'Matemática' })
      await dialog.getByTestId('course-school-chosen').getByText('LICEO INSTITUTO NACIONAL').waitFor()
      await dialog.getByTestId('save-course').click()
      await page.getByTestId('onboarding-ready').getByRole('heading', { name: '¡Todo listo, Ana!' }).waitFor()
      await screenshot(page, `onboarding-ready-${width}`)
      await page.getByTestId('onboarding-done').click()
      await waitForPath(page, '/dashboard')
      await page.getByRole('heading', { level: 1, name: 'Hola, Ana' }).waitFor()
      assert.equal(await page.getByTestId('onboarding-banner').count(), 0)
      // Onboarded: Inicio's tour starts.
      await page.getByTestId('tour-counter').getByText('1 de 7').waitFor()
      await screenshot(page, `tour-dashboard-${width}`)
      await page.keyboard.press('Escape')
      await page.getByTestId('tour-step').waitFor({ state: 'detached' })

      // Onboarded: /onboarding goes straight back to Inicio.
      await page.goto(`${stack().url}/onboarding`)
      await waitForPath(page, '/dashboard')

      // The profile shows her data, the phone decrypted for her.
      await page.goto(`${stack().url}/profile`)
      await page.getByTestId('profile-initials').getByText('AP').waitFor()
      // decrypt_phone answers after the profile: the field is filled (and enabled) then.
      const phone = page.getByLabel('Teléfono (opcional)')
      await page.waitForFunction(() => !document.querySelector('input[type="tel"]')?.disabled)
      assert.equal(await phone.inputValue(), '+56 9 8765 4321')
      await page.getByTestId('school-picker-chosen').getByText('LICEO INSTITUTO NACIONAL').waitFor()
      await screenshot(page, `profile-${width}`)
      assert.deepEqual(problems, [])
    })

    const [profile] = await selectRows('profiles', `user_id=eq.${teacher.id}&select=first_name,last_name,how_found_us,school_rbd,encrypted_phone,is_complete`)
    assert.deepEqual(
      { ...profile, encrypted_phone: undefined },
      { first_name: 'Ana', last_name: 'Pérez', how_found_us: 'Me lo recomendó un colega', school_rbd: 8485, is_complete: true, encrypted_phone: undefined },
    )
    assert.ok(!profile.encrypted_phone.includes('8765'), 'the phone is stored encrypted')

    // Another teacher can neither read her profile nor decrypt the phone she copied.
    const other = await passwordSession(await createUser(`otra-${width}`))
    assert.deepEqual((await asUser(other, `/rest/v1/profiles?user_id=eq.${teacher.id}&select=encrypted_phone`)).body, [])
    const stolen = await asUser(other, '/rest/v1/rpc/decrypt_phone', { method: 'POST', body: { encrypted_phone: profile.encrypted_phone } })
    assert.equal(stolen.status, 403)
    assert.equal(stolen.body.code, '42501')
    // She can.
    const own = await passwordSession(teacher)
    const mine = await asUser(own, '/rest/v1/rpc/decrypt_phone', { method: 'POST', body: { encrypted_phone: profile.encrypted_phone } })
    assert.equal(mine.body, '+56987654321')
  })
}

test('a visitor who tried a plan starts at step 0 and keeps it after signing up', async () => {
  // The public trial's visitor: an anonymous session with the plan she generated as a draft.
  const anonymous = await anonymousSession()
  const inserted = await asUser(anonymous, '/rest/v1/drafts?select=id', {
    method: 'POST',
    body: { title: 'Matemática 7° Básico · MA07 OA 03' },
    headers: { Prefer: 'return=representation' },
  })
  assert.equal(inserted.status, 201)
  const [draft] = inserted.body
  const email = uniqueEmail('visita')

  await withPage(MOBILE, async ({ context, page }) => {
    await useSession(context, anonymous)
    await page.goto(`${stack().url}/onboarding?draft_session=${draft.id}`)
    await page.getByRole('heading', { level: 1, name: 'Guarda tu planificación' }).waitFor()
    assert.equal(await page.getByTestId('onboarding').getAttribute('data-step'), '0')
    await screenshot(page, 'onboarding-account-375')
    await page.getByLabel('Correo').fill(email)
    await page.getByLabel('Contraseña (mínimo 8 caracteres)').fill(PASSWORD)
    await page.getByTestId('trial-create-account').click()
    await page.getByTestId('trial-sent').waitFor()

    // The mailed link brings her back to onboarding, signed in, at step 1; the draft is hers.
    const mail = await latestMail(email)
    await page.goto(mail.links[0])
    await waitForPath(page, '/onboarding')
    await page.getByRole('heading', { level: 1, name: 'Cuéntanos de ti' }).waitFor()
  })
  const [kept] = await selectRows('drafts', `id=eq.${draft.id}&select=teacher_id`)
  assert.equal(kept.teacher_id, anonymous.user.id)
  const [user] = await selectRows('profiles', `user_id=eq.${anonymous.user.id}`)
  assert.equal(user, undefined)
})

test('a visitor without a plan to keep is sent to sign in', async () => {
  await withPage(DESKTOP, async ({ page }) => {
    await page.goto(`${stack().url}/onboarding`)
    await waitForPath(page, '/auth')
  })
})
