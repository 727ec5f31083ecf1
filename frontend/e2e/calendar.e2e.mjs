// Calendario against the real stack: a teacher of a Santiago school fills 2025 from her
// Horario (holidays and the winter break skipped, nothing duplicated on a second fill),
// opens on the nearest week with classes because today is outside the school year, marks a
// class Realizada and cancels another with a reason, keeps her own events, and finds it all
// after a reload; the month view and the 375 px layout show the same year.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, withPage } from './browser.mjs'
import { createUser, insertRows, selectRows } from './stack.mjs'

useBrowser()

/** A teacher at LICEO INSTITUTO NACIONAL (Santiago) with Monday and Thursday blocks. */
async function teacherWithWeek(label) {
  const teacher = await createUser(label)
  await insertRows('profiles', [{ user_id: teacher.id, first_name: 'Rosa', last_name: 'Díaz', how_found_us: 'Un colega', school_rbd: 8485 }])
  const [math, language] = await insertRows('courses', [
    { teacher_id: teacher.id, level_code: '7B', letter: 'A', subject_code: 'matematica', color: '#2563eb' },
    { teacher_id: teacher.id, level_code: '1M', letter: 'B', subject_code: 'lengua_y_literatura', color: '#db2777' },
  ])
  await insertRows('schedule_blocks', [
    { teacher_id: teacher.id, course_id: math.id, weekday: 1, start_time: '08:00', pedagogical_hours: 2 },
    { teacher_id: teacher.id, course_id: language.id, weekday: 4, start_time: '09:45', pedagogical_hours: 2 },
  ])
  return teacher
}

const calendarUrl = (page, query = '') => `${new URL(page.url()).origin}/calendar${query}`

async function openClass(page, day, course) {
  await page.locator(`[data-testid="calendar-class"][data-day="${day}"][data-course^="${course}"]`).click()
  return page.getByTestId('class-dialog')
}

test('a teacher fills her year, marks classes and keeps her events', async () => {
  const teacher = await teacherWithWeek('calendario')
  await withPage(DESKTOP, async ({ page, problems }) => {
    await signIn(page, teacher)
    await page.goto(calendarUrl(page))
    await page.getByTestId('calendar-page').waitFor()

    // Fill the school year from the Horario; a second fill adds nothing.
    await page.getByTestId('fill-calendar').click()
    const fill = page.getByTestId('fill-dialog')
    assert.equal(await fill.getByLabel('Desde').inputValue(), '2025-03-05')
    await fill.getByText('región Metropolitana de Santiago').waitFor()
    await fill.getByTestId('confirm-fill').click()
    await page.getByText(/^Se crearon \d+ clases$/).waitFor()
    const created = await selectRows('class_sessions', `teacher_id=eq.${teacher.id}&select=session_date`)
    assert.ok(created.length > 60, `${created.length} classes`)
    const days = new Set(created.map((row) => row.session_date))
    assert.ok(!days.has('2025-05-01'), 'no class on Día del Trabajo (a Thursday)')
    assert.ok(!days.has('2025-06-23') && !days.has('2025-06-26'), 'no class in the winter break')
    await page.getByTestId('fill-calendar').click()
    await page.getByTestId('confirm-fill').click()
    await page.getByText('No había clases nuevas que crear').waitFor()

    // Today (2026) is outside the 2025 school year: the calendar opens on the nearest class week.
    await page.goto(calendarUrl(page))
    await page.getByTestId('outside-year').getByText('la semana más cercana con clases').waitFor()
    await page.getByTestId('calendar-title').getByText('Semana del 1 al 5 de diciembre de 2025').waitFor()

    // The week of 1 May: Thursday is a holiday, Monday has its class.
    await page.goto(calendarUrl(page, '?vista=semana&fecha=2025-04-30'))
    const thursday = page.locator('[data-testid="calendar-day"][data-day="2025-05-01"]')
    await thursday.getByTestId('day-banner').getByText('Feriado: Día Nacional del Trabajo').waitFor()
    assert.equal(await thursday.getByTestId('calendar-class').count(), 0)
    const dialog = await openClass(page, '2025-04-28', 'Matemática')
    await dialog.getByTestId('mark-done').click()
    await page.locator('[data-day="2025-04-28"][data-testid="calendar-class"]').getByText('Realizada').waitFor()
    await dialog.getByText('Una clase realizada queda registrada así.').waitFor()
    assert.equal(await dialog.getByTestId('cancel-class').count(), 0, 'a Realizada class has no further state')
    await dialog.getByRole('button', { name: 'Cerrar' }).click()

    // Cancel the next week's Thursday class: a reason is required.
    await page.getByTestId('calendar-next').click()
    await openClass(page, '2025-05-08', 'Lengua y Literatura')
    await page.getByTestId('cancel-class').click()
    await page.getByTestId('confirm-cancel-class').click()
    await page.getByText('Indica por qué se canceló la clase.').waitFor()
    await page.getByLabel('¿Por qué se canceló?').fill('Ensayo general del acto del 21 de mayo')
    await page.getByTestId('confirm-cancel-class').click()
    await page.getByTestId('cancellation-reason').getByText('Ensayo general del acto').waitFor()
    await page.getByTestId('class-dialog').getByTestId('plan-class').waitFor()
    await page.getByTestId('class-dialog').getByRole('button', { name: 'Cerrar' }).click()

    // An evaluation of her own on Wednesday, then renamed.
    await page.getByTestId('new-event').click()
    const event = page.getByTestId('event-dialog')
    await event.getByLabel('Título').fill('Prueba de fracciones')
    await event.getByLabel('Desde').fill('2025-05-07')
    await event.getByLabel('Hasta').fill('2025-05-06')
    await event.getByTestId('save-event').click()
    await event.getByText('Termina antes de empezar.').waitFor()
    await event.getByLabel('Hasta').fill('2025-05-07')
    await event.getByTestId('save-event').click()
    const wednesday = page.locator('[data-testid="calendar-day"][data-day="2025-05-07"]')
    await wednesday.getByTestId('calendar-event').getByText('Prueba de fracciones').click()
    await page.getByTestId('event-dialog').getByLabel('Título').fill('Prueba de fracciones y decimales')
    await page.getByTestId('save-event').click()
    await wednesday.getByText('Prueba de fracciones y decimales').waitFor()
    await screenshot(page, 'calendar-week-desktop')

    // Everything is still there after a reload.
    await page.reload()
    await page.locator('[data-day="2025-05-08"][data-testid="calendar-class"]').getByText('Cancelada').waitFor()
    await page.getByTestId('calendar-previous').click()
    await page.locator('[data-day="2025-04-28"][data-testid="calendar-class"]').getByText('Realizada').waitFor()

    // The month: the holiday named on its day; a day opens the day view.
    await page.getByRole('button', { name: 'Mes', exact: true }).click()
    await page.getByTestId('calendar-title').getByText('abril de 2025').waitFor()
    await page.getByTestId('calendar-next').click()
    await page.getByTestId('calendar-title').getByText('mayo de 2025').waitFor()
    const first = page.locator('[data-testid="month-day"][data-day="2025-05-01"]')
    await first.getByText('Día Nacional del Trabajo').waitFor()
    await screenshot(page, 'calendar-month-desktop')
    await page.locator('[data-testid="month-day"][data-day="2025-05-05"]').click()
    await page.getByTestId('day-view').waitFor()
    await page.getByTestId('calendar-title').getByText('lunes, 5 de mayo de 2025').waitFor()

    // The event goes away when deleted.
    await page.goto(calendarUrl(page, '?vista=semana&fecha=2025-05-07'))
    await wednesday.getByTestId('calendar-event').click()
    await page.getByTestId('delete-event').click()
    await page.getByTestId('confirm-delete-event').click()
    await wednesday.getByTestId('calendar-event').waitFor({ state: 'detached' })
    assert.deepEqual(problems, [])
  })

  // 375 px: the same year, week and month.
  await withPage(MOBILE, async ({ page, problems }) => {
    await signIn(page, teacher)
    await page.goto(calendarUrl(page, '?vista=semana&fecha=2025-05-05'))
    await page.locator('[data-day="2025-05-08"][data-testid="calendar-class"]').getByText('Cancelada').waitFor()
    await screenshot(page, 'calendar-week-mobile')
    await page.getByRole('button', { name: 'Mes', exact: true }).click()
    await page.getByTestId('month-view').waitFor()
    await screenshot(page, 'calendar-month-mobile')
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`)
    assert.deepEqual(problems, [])
  })
})
