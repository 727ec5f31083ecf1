// The teacher's year end to end, at 1280 and at 375 px: a new teacher is told what to do
// first, creates two courses, builds her week in Horario by click, drag and keyboard, fills
// the 2025 calendar from it (the 21 May holiday skipped), marks one class Realizada and
// cancels another with a reason, reloads and finds everything, and sees it on Inicio; a second
// teacher sees none of it. (The demo's course cap is in courses.e2e.mjs.) Each page is
// screenshotted at both widths.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, withPage } from './browser.mjs'
import { createUser, insertRows } from './stack.mjs'

useBrowser()

async function createCourse(page, { level, letter, subject }) {
  const dialog = page.getByTestId('course-dialog')
  await dialog.waitFor()
  await dialog.getByLabel('Nivel').selectOption({ label: level })
  await dialog.getByLabel('Letra').fill(letter)
  await dialog.getByLabel('Asignatura').selectOption({ label: subject })
  await dialog.getByTestId('save-course').click()
  await dialog.waitFor({ state: 'detached' })
}

async function chooseCourse(page, name) {
  const select = page.getByTestId('block-dialog').getByLabel('Curso')
  await select.selectOption(await select.locator('option', { hasText: name }).getAttribute('value'))
  await page.getByTestId('save-block').click()
  await page.getByTestId('block-dialog').waitFor({ state: 'detached' })
}

async function dragDown(page, from, to) {
  const a = await from.boundingBox()
  const b = await to.boundingBox()
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2)
  await page.mouse.down()
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 })
  await page.mouse.up()
}

const go = (page, path) => page.goto(`${new URL(page.url()).origin}${path}`)
const classOn = (page, day) => page.locator(`[data-testid="calendar-class"][data-day="${day}"]`)

for (const [width, viewport] of [
  ['1280', DESKTOP],
  ['375', MOBILE],
]) {
  test(`a new teacher prepares her year (${width} px); another teacher sees none of it`, async () => {
    const phone = viewport === MOBILE
    const teacher = await createUser(`anio-${width}`)
    await insertRows('profiles', [{ user_id: teacher.id, first_name: 'Marta', last_name: 'Fuentes', how_found_us: 'Un colega', school_rbd: 8485 }])

    await withPage(viewport, async ({ page, problems }) => {
      // Inicio tells her where to start.
      await signIn(page, teacher)
      const steps = page.getByTestId('first-steps')
      await steps.getByText('Aún no tienes cursos').waitFor()
      await screenshot(page, `journey-dashboard-new-${width}`)
      await steps.getByRole('link', { name: 'Ir a Mis Cursos' }).click()

      // Two courses.
      await page.getByRole('button', { name: 'Crear mi primer curso' }).click()
      await createCourse(page, { level: '7° Básico', letter: 'A', subject: 'Matemática' })
      await page.getByTestId('new-course').click()
      await createCourse(page, { level: '1° Medio', letter: 'B', subject: 'Lengua y Literatura' })
      await page.getByTestId('course-card').nth(1).waitFor()
      await screenshot(page, `journey-courses-${width}`)

      // Horario: Monday by click and keyboard, Wednesday by drag.
      await go(page, '/schedule')
      if (phone) await page.getByRole('tab', { name: 'Lun' }).click()
      await page.getByTestId('slot-1-08:00').click()
      await chooseCourse(page, 'Matemática')
      const monday = page.locator('[data-place="lunes 08:00–08:45"]')
      await monday.focus()
      await page.keyboard.press('Shift+ArrowDown')
      await page.keyboard.press('ArrowDown')
      await page.locator('[data-place="lunes 09:45–11:15"]').waitFor()
      if (phone) await page.getByRole('tab', { name: 'Mié' }).click()
      await dragDown(page, page.getByTestId('slot-3-08:00'), page.getByTestId('slot-3-08:45'))
      await page.getByTestId('block-dialog').waitFor()
      await screenshot(page, `journey-block-dialog-${width}`)
      await chooseCourse(page, 'Lengua y Literatura')
      await page.locator('[data-place="miércoles 08:00–09:30"]').waitFor()
      await page.getByTestId('weekly-hours').getByText('4 horas pedagógicas a la semana.').waitFor()
      await screenshot(page, `journey-schedule-${width}`)

      // Calendario: fill 2025; 21 May (Wednesday) is a holiday and has no class.
      await go(page, '/calendar')
      await page.getByTestId('fill-calendar').click()
      await page.getByTestId('confirm-fill').click()
      await page.getByText(/^Se crearon \d+ clases$/).waitFor()
      await go(page, '/calendar?vista=semana&fecha=2025-05-19')
      const holiday = page.locator('[data-testid="calendar-day"][data-day="2025-05-21"]')
      await holiday.getByText('Feriado: Día de las Glorias Navales').waitFor()
      assert.equal(await holiday.getByTestId('calendar-class').count(), 0)

      // One class Realizada, the next week's Wednesday cancelled with a reason.
      await classOn(page, '2025-05-19').click()
      await page.getByTestId('mark-done').click()
      await classOn(page, '2025-05-19').getByText('Realizada').waitFor()
      await page.getByTestId('class-dialog').getByRole('button', { name: 'Cerrar' }).click()
      await page.getByTestId('calendar-next').click()
      await classOn(page, '2025-05-28').click()
      await page.getByTestId('cancel-class').click()
      await page.getByLabel('¿Por qué se canceló?').fill('Consejo de profesores')
      await screenshot(page, `journey-class-dialog-${width}`)
      await page.getByTestId('confirm-cancel-class').click()
      await page.getByTestId('cancellation-reason').waitFor()
      await page.getByTestId('class-dialog').getByRole('button', { name: 'Cerrar' }).click()
      await screenshot(page, `journey-calendar-${width}`)

      // After a reload everything is where she left it.
      await page.reload()
      await classOn(page, '2025-05-28').getByText('Cancelada').waitFor()
      await page.getByTestId('calendar-previous').click()
      await classOn(page, '2025-05-19').getByText('Realizada').waitFor()
      await page.getByRole('button', { name: 'Mes', exact: true }).click()
      await page.locator('[data-testid="month-day"][data-day="2025-05-21"]').waitFor()
      await screenshot(page, `journey-calendar-month-${width}`)
      await go(page, '/schedule')
      if (phone) await page.getByRole('tab', { name: 'Lun' }).click()
      await page.locator('[data-place="lunes 09:45–11:15"]').waitFor()

      // Inicio now shows her classes (2025 is over: the last ones) and her week.
      await go(page, '/dashboard')
      await page.getByTestId('focus-classes').getByText(/Tus últimas clases/).waitFor()
      await page.getByTestId('week-glance').waitFor()
      await screenshot(page, `journey-dashboard-${width}`)
      if (phone) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
        assert.ok(overflow <= 0, `Inicio scrolls sideways by ${overflow} px`)
      }
      assert.deepEqual(problems, [])
    })

    // Another teacher finds an empty year.
    await withPage(viewport, async ({ page }) => {
      await signIn(page, await createUser(`otra-${width}`))
      await page.getByTestId('first-steps').getByText('Aún no tienes cursos').waitFor()
      await go(page, '/schedule')
      await page.getByText('Primero crea tus cursos').waitFor()
      await go(page, '/calendar?vista=semana&fecha=2025-05-19')
      await page.getByText('Primero crea tus cursos').waitFor()
      assert.equal(await page.getByTestId('calendar-class').count(), 0)
    })
  })
}
