// Plan. Secuencial against the real stack: a teacher starts a unit of four classes over the
// next free dates of her calendar, generates it with the stack's model as one progression
// (each class titled by its phase, its zones written, the stars charged exactly, all written
// at once), edits class 3 like a simple plan, and follows the unit's progress as classes
// are taught; the calendar's class opens its class of the unit; another teacher sees none of it.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, withPage } from './browser.mjs'
import { createUser, deleteRows, insertRows, selectRows, updateRows } from './stack.mjs'

useBrowser()

const origin = (page) => new URL(page.url()).origin
const saved = (page) => page.locator('[data-testid="save-status"][data-status="saved"]').waitFor()

async function teacherWithWeek(label) {
  const teacher = await createUser(label)
  await insertRows('profiles', [{ user_id: teacher.id, first_name: 'Rosa', last_name: 'Tapia', how_found_us: 'Un colega', school_rbd: 8485 }])
  await insertRows('demo_users_2025', [{ user_id: teacher.id, total_stars: 200, demo_end_date: '2099-12-31' }])
  const [course] = await insertRows('courses', [{ teacher_id: teacher.id, level_code: '7B', letter: 'B', subject_code: 'matematica', color: '#16a34a' }])
  // Five classes; the second is already planned by a simple plan, so the unit skips it.
  const sessions = await insertRows(
    'class_sessions',
    ['2025-05-19', '2025-05-20', '2025-05-22', '2025-05-26', '2025-05-27'].map((session_date) => ({
      teacher_id: teacher.id,
      course_id: course.id,
      session_date,
      start_time: '10:00',
      pedagogical_hours: 2,
    })),
  )
  return { teacher, course, sessions }
}

test('a teacher plans a unit over her calendar, generates it as a progression and edits a class', async () => {
  const { teacher, course, sessions } = await teacherWithWeek('unidad')
  const [simple] = await insertRows('plans', [{ teacher_id: teacher.id, course_id: course.id, title: 'Clase suelta' }])
  const [simpleClass] = await selectRows('plan_classes', `plan_id=eq.${simple.id}&select=id`)
  await updateRows('plan_classes', `id=eq.${simpleClass.id}`, { class_session_id: sessions[1].id })

  await withPage(DESKTOP, async ({ page, problems }) => {
    await signIn(page, teacher)
    await page.goto(`${origin(page)}/planner/sequential`)
    await page.getByText('Aún no tienes unidades').waitFor()
    await page.getByTestId('new-unit').click()
    const form = page.getByTestId('new-unit-form')
    await form.getByLabel('Número de clases').fill('4')
    await form.getByLabel('Título').fill('Números enteros')
    await form.getByLabel('Unidad del programa (opcional)').fill('Unidad 1: Números')
    // The next free classes of her calendar, the planned one skipped.
    await form.getByTestId('unit-dates').getByText('Las 4 clases, en tu calendario:').waitFor()
    assert.match(await form.getByTestId('unit-dates').innerText(), /lun 19 may · jue 22 may · lun 26 may · mar 27 may/)
    await form.getByTestId('create-unit').click()
    await form.getByText('Elige al menos un OA.').waitFor()
    for (const code of ['MA07 OA 01', 'MA07 OA 03']) {
      await form.getByPlaceholder(/Buscar por código/).fill(code)
      await form.getByTestId('objective-list').getByRole('checkbox').first().check()
    }
    await form.getByTestId('create-unit').click()

    await page.getByTestId('unit-overview').waitFor()
    assert.equal(await page.getByTestId('unit-class').count(), 4)
    assert.deepEqual(await page.getByTestId('unit-class-state').allInnerTexts(), Array(4).fill('Sin planificar'))
    await screenshot(page, 'sequential-unit-new-desktop')

    // Generated as one progression: every class written, titled by its phase, charged once.
    const [low, high] = /≈ (\d+)–(\d+) estrellas/.exec(await page.getByTestId('generate-unit').innerText()).slice(1).map(Number)
    await page.getByTestId('generate-unit').click()
    await page.getByTestId('unit-class-streaming').first().waitFor()
    const generated = page.getByText(/Se usaron? \d+ estrellas?\. Revisa cada clase/)
    await generated.waitFor({ timeout: 90_000 })
    const stars = Number(/(\d+)/.exec(await generated.textContent())[1])
    assert.ok(low <= stars && stars <= high, `${stars} stars, estimated ${low}–${high}`)
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="unit-class-state"]')].every((state) => state.textContent === 'Planificada'))
    const titles = await page.getByTestId('unit-class-title').allInnerTexts()
    assert.deepEqual(titles, [
      'Clase 1: Activación e introducción',
      'Clase 2: Modelamiento y práctica guiada',
      'Clase 3: Aplicación y práctica autónoma',
      'Clase 4: Síntesis y evaluación',
    ])
    const [demo] = await selectRows('demo_users_2025', `user_id=eq.${teacher.id}&select=used_stars`)
    assert.equal(demo.used_stars, stars)
    await page.getByTestId('stars-widget').getByText(`${200 - stars} de 200 Estrellas Cielo disponibles`).waitFor()
    await screenshot(page, 'sequential-unit-desktop')

    // Class 3 edited like a simple plan, with its share of the unit's OAs.
    await page.getByTestId('unit-class').nth(2).click()
    await page.getByTestId('plan-editor').waitFor()
    await page.getByTestId('unit-class-position').getByText('Clase 3 de 4 · Números enteros').waitFor()
    assert.deepEqual(await page.getByTestId('plan-objectives').locator('strong').allInnerTexts(), ['MA07 OA 03'])
    assert.equal(await page.getByTestId('zone').count(), 5)
    const inicio = page.getByTestId('zone').filter({ has: page.locator('input[value="Inicio"]') })
    await inicio.locator('.tiptap').click()
    await page.keyboard.press('Control+End')
    await page.keyboard.type(' Recordamos la recta numérica.')
    await saved(page)
    await page.getByTestId('plan-title').fill('Clase 3: Problemas con la recta numérica')
    await page.getByTestId('plan-title').press('Tab')
    await page.getByTestId('next-class').click()
    await page.getByTestId('unit-class-position').getByText('Clase 4 de 4').waitFor()
    await screenshot(page, 'sequential-class-desktop')

    // Taught and cancelled classes show in the unit's progress; the calendar's class opens its class.
    await updateRows('class_sessions', `id=eq.${sessions[0].id}`, { status: 'Realizada' })
    await page.goto(`${origin(page)}/planner/sequential`)
    await page.getByTestId('unit-row').getByText('4 planificadas · 1 realizadas').waitFor()
    await page.getByTestId('unit-row').getByRole('link').click()
    await page.getByTestId('unit-class').nth(2).getByText('Clase 3: Problemas con la recta numérica').waitFor()
    const progress = await page.getByTestId('unit-progress').innerText()
    assert.match(progress, /Clases\s+4/)
    assert.match(progress, /Realizadas\s+1/)
    await page.goto(`${origin(page)}/calendar?vista=dia&fecha=2025-05-26`)
    await page.getByTestId('calendar-class').first().click()
    await page.getByTestId('open-plan').click()
    await page.getByTestId('unit-class-position').getByText('Clase 3 de 4').waitFor()
    await page.getByText('Recordamos la recta numérica.').waitFor()
    assert.deepEqual(problems, [])
  })

  // Another teacher cannot open it.
  const stranger = await createUser('unidad-ajena')
  const [unit] = await selectRows('plans', `teacher_id=eq.${teacher.id}&kind=eq.secuencial&select=id`)
  await withPage(MOBILE, async ({ page }) => {
    await signIn(page, stranger)
    await page.goto(`${origin(page)}/planner/sequential/${unit.id}`)
    await page.getByTestId('unit-not-found').waitFor()
  })
})

test('the unit at 375 px: overview and a class readable on a phone', async () => {
  const { teacher } = await teacherWithWeek('unidad-movil')
  await withPage(MOBILE, async ({ page, problems }) => {
    await signIn(page, teacher)
    await page.goto(`${origin(page)}/planner/sequential`)
    await page.getByTestId('new-unit').click()
    const form = page.getByTestId('new-unit-form')
    await form.getByLabel('Número de clases').fill('3')
    await form.getByPlaceholder(/Buscar por código/).fill('MA07 OA 02')
    await form.getByTestId('objective-list').getByRole('checkbox').first().check()
    await screenshot(page, 'sequential-new-mobile')
    await form.getByTestId('create-unit').click()
    await page.getByTestId('unit-overview').waitFor()
    await screenshot(page, 'sequential-unit-mobile')
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)
    assert.equal(overflow, false, 'nothing wider than the phone')
    // A class without zones (like the demo unit's last ones) gets the usual five in one go.
    const [unit] = await selectRows('plans', `teacher_id=eq.${teacher.id}&kind=eq.secuencial&select=plan_classes(id,position)`)
    const first = unit.plan_classes.find((c) => c.position === 1)
    await deleteRows('plan_zones', `plan_class_id=eq.${first.id}`)
    await page.getByTestId('unit-class').first().click()
    await page.getByTestId('plan-editor').waitFor()
    await page.getByTestId('no-zones').waitFor()
    await page.getByTestId('add-standard-zones').click()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="zone"]').length === 5)
    await screenshot(page, 'sequential-class-mobile')
    assert.deepEqual(problems, [])
  })
})
