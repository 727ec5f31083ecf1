// Panel directivo in Chromium against the real stack: a school's directivo sees its teachers,
// courses, plans and classes (done, and with a plan); a teacher without the role is told what
// the panel is.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, withPage } from './browser.mjs'
import { createUser, insertRows, selectRows, stack, updateRows } from './stack.mjs'

useBrowser()

test('a directivo sees how planning goes in her school; a teacher is told what the panel is', async () => {
  // A school no other test uses, so the totals are this test's.
  const [school] = await selectRows('schools', 'select=RBD,NOM_RBD&RBD=gt.20000&order=RBD&limit=1&offset=37')
  const directivo = await createUser('directiva')
  await insertRows('user_roles', [{ user_id: directivo.id, role: 'directivo', school_rbd: school.RBD }])
  const teacher = await createUser('profe-colegio')
  await insertRows('profiles', [{ user_id: teacher.id, first_name: 'Rosa', last_name: 'Valdés', how_found_us: 'Un colega', school_rbd: school.RBD }])
  const [course] = await insertRows('courses', [{ teacher_id: teacher.id, school_rbd: school.RBD, level_code: '3B', letter: 'A', subject_code: 'matematica', students_count: 28 }])
  const sessions = await insertRows('class_sessions', [
    { teacher_id: teacher.id, course_id: course.id, session_date: '2025-05-12', start_time: '08:00', pedagogical_hours: 2 },
    { teacher_id: teacher.id, course_id: course.id, session_date: '2025-05-13', start_time: '08:00', pedagogical_hours: 2 },
  ])
  await updateRows('class_sessions', `id=eq.${sessions[0].id}`, { status: 'Realizada' })
  const [plan] = await insertRows('plans', [{ teacher_id: teacher.id, course_id: course.id, title: 'Sumas con canje' }])
  await updateRows('plan_classes', `plan_id=eq.${plan.id}`, { class_session_id: sessions[0].id })

  await withPage(DESKTOP, async ({ page, problems }) => {
    await signIn(page, directivo)
    await page.goto(`${stack().url}/dev/directivo`)
    await page.getByRole('heading', { level: 1, name: 'Panel directivo' }).waitFor()
    await page.getByText(school.NOM_RBD, { exact: false }).first().waitFor()
    const totals = page.getByTestId('school-totals')
    const tile = (label) => totals.locator('div').filter({ has: page.getByText(label, { exact: true }) }).locator('dd')
    await tile('Docentes').getByText('1').waitFor()
    assert.equal(await tile('Planificaciones').textContent(), '1')
    assert.equal(await tile('Clases realizadas').textContent(), '1 de 2')
    assert.equal(await tile('Clases con planificación').textContent(), '50 %')
    const card = page.getByTestId('teacher-overview').filter({ hasText: 'Rosa Valdés' })
    await card.getByRole('cell', { name: /Matemática/ }).waitFor()
    await screenshot(page, 'directivo-desktop')
    assert.deepEqual(problems, [])
  })

  await withPage(MOBILE, async ({ page }) => {
    await signIn(page, directivo)
    await page.goto(`${stack().url}/dev/directivo`)
    await page.getByTestId('teacher-overview').first().waitFor()
    await screenshot(page, 'directivo-mobile')
  })

  await withPage(MOBILE, async ({ page }) => {
    await signIn(page, teacher)
    await page.goto(`${stack().url}/dev/directivo`)
    await page.getByRole('heading', { name: 'Este panel es para el equipo directivo' }).waitFor()
  })
})
