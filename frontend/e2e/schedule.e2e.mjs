// Horario against the real stack: a teacher with two courses builds her week by clicking,
// dragging and with the keyboard; an overlap is explained before anything is saved and a
// refused drop puts the block back; she changes her school day, finds her week after a
// reload and prints it; on a phone she works one day at a time.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, TOUCH_PHONE, screenshot, signIn, useBrowser, withPage } from './browser.mjs'
import { createUser, insertRows, selectRows } from './stack.mjs'

useBrowser()

async function teacherWithCourses(label) {
  const teacher = await createUser(label)
  await insertRows('profiles', [
    { user_id: teacher.id, first_name: 'Paula', last_name: 'Rojas', how_found_us: 'Un colega', school_rbd: 8485 },
  ])
  await insertRows('courses', [
    { teacher_id: teacher.id, level_code: '7B', letter: 'A', subject_code: 'matematica', color: '#2563eb' },
    { teacher_id: teacher.id, level_code: '1M', letter: 'B', subject_code: 'lengua_y_literatura', color: '#db2777' },
  ])
  return teacher
}

async function chooseCourse(page, name) {
  const dialog = page.getByTestId('block-dialog')
  const option = dialog.getByLabel('Curso').locator('option', { hasText: name })
  await dialog.getByLabel('Curso').selectOption(await option.getAttribute('value'))
}

const blocksOf = async (teacher) =>
  (await selectRows('schedule_blocks', `teacher_id=eq.${teacher.id}&select=weekday,start_time,pedagogical_hours&order=weekday,start_time`)).map(
    (b) => `${b.weekday} ${b.start_time.slice(0, 5)} ${b.pedagogical_hours}`,
  )

/** Drags with the mouse from the centre of one element to the centre of another. */
async function drag(page, from, to, { offsetY = 0 } = {}) {
  const a = await from.boundingBox()
  const b = await to.boundingBox()
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2)
  await page.mouse.down()
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2 + 10, { steps: 2 })
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2 + offsetY, { steps: 8 })
  await page.mouse.up()
}

test('a teacher builds her week by click, drag and keyboard; overlaps are explained first', async () => {
  const teacher = await teacherWithCourses('horario')
  await withPage(DESKTOP, async ({ page, problems }) => {
    await signIn(page, teacher)
    await page.goto(page.url().replace('/dashboard', '/schedule'))
    await page.getByTestId('week-grid').waitFor()
    await page.getByText('Aún no tienes bloques en la semana.').waitFor()

    // Click an empty hour: Monday 08:00, one hour of Matemática.
    await page.getByTestId('slot-1-08:00').click()
    await chooseCourse(page, 'Matemática')
    await page.getByTestId('save-block').click()
    await page.locator('[data-place="lunes 08:00–08:45"]').waitFor()

    // Drag over two free hours: Tuesday 08:00–09:30, Lengua.
    await drag(page, page.getByTestId('slot-2-08:00'), page.getByTestId('slot-2-08:45'))
    const dialog = page.getByTestId('block-dialog')
    assert.equal(await dialog.getByLabel('Duración').inputValue(), '2')
    await chooseCourse(page, 'Lengua y Literatura')
    await page.getByTestId('save-block').click()
    await page.locator('[data-place="martes 08:00–09:30"]').waitFor()

    // A block that would overlap is explained before saving, and cannot be saved.
    await page.getByTestId('slot-2-09:45').click()
    await chooseCourse(page, 'Matemática')
    await dialog.getByLabel('Desde').selectOption({ label: '2ª hora · 08:45' })
    await dialog.getByTestId('block-problem').getByText('Se cruza con Lengua y Literatura · 1° Medio B (martes 08:00–09:30).').waitFor()
    assert.equal(await page.getByTestId('save-block').isDisabled(), true)
    await dialog.getByRole('button', { name: 'Cancelar' }).click()

    // Keyboard: Monday's block goes down an hour and back, becomes two hours long, is refused
    // on Tuesday (taken), jumps over the recreo and goes on to Wednesday.
    const status = page.getByTestId('schedule-status')
    await page.locator('[data-place="lunes 08:00–08:45"]').focus()
    await page.keyboard.press('ArrowDown')
    await page.locator('[data-place="lunes 08:45–09:30"]').waitFor()
    await page.keyboard.press('Shift+ArrowUp')
    await status.getByText('no puede cambiar de duración').waitFor()
    await page.keyboard.press('ArrowUp')
    await page.keyboard.press('Shift+ArrowDown')
    await page.locator('[data-place="lunes 08:00–09:30"]').waitFor()
    await page.keyboard.press('ArrowRight')
    await status.getByText('No se movió el bloque. Se cruza con Lengua y Literatura').waitFor()
    await page.keyboard.press('ArrowDown')
    await page.locator('[data-place="lunes 09:45–11:15"]').waitFor()
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    const wednesday = page.locator('[data-place="miércoles 09:45–11:15"]')
    await wednesday.waitFor()
    assert.equal(await wednesday.evaluate((element) => element === document.activeElement), true, 'focus stays on the block')

    // Mouse: dropping onto Tuesday's block is refused and the block stays where it was.
    await drag(page, wednesday, page.locator('[data-place="martes 08:00–09:30"]'))
    await status.getByText('No se movió el bloque').waitFor()
    await wednesday.waitFor()
    // Dropping on a free place moves it: Thursday at 08:00.
    await drag(page, wednesday, page.getByTestId('slot-4-08:00'))
    const thursday = page.locator('[data-place="jueves 08:00–09:30"]')
    await thursday.waitFor()

    // Its bottom edge makes it shorter.
    const box = await thursday.boundingBox()
    await page.mouse.move(box.x + box.width / 2, box.y + box.height - 3)
    await page.mouse.down()
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 - 5, { steps: 6 })
    await page.mouse.up()
    await page.locator('[data-place="jueves 08:00–08:45"]').waitFor()

    await page.waitForFunction(() => !document.querySelector('[data-testid="drop-preview"]'))
    await assertEventually(async () => assert.deepEqual(await blocksOf(teacher), ['2 08:00 2', '4 08:00 1']))
    await page.getByTestId('weekly-hours').getByText('3 horas pedagógicas a la semana.').waitFor()
    await screenshot(page, 'schedule-desktop')

    // The school day: a 07:45 start moves the grid; the week is still there after a reload.
    await page.getByTestId('edit-day').click()
    const day = page.getByTestId('day-dialog')
    await day.getByLabel('Horas pedagógicas').fill('15')
    await day.getByTestId('day-problem').getByText('de 1 a 14 horas').waitFor()
    await day.getByLabel('Horas pedagógicas').fill('9')
    await day.getByText('Tu jornada va de 08:00 a 16:00.').waitFor()
    await day.getByTestId('save-day').click()
    await page.reload()
    await page.getByTestId('slot-5-15:15').waitFor()
    await page.locator('[data-place="martes 08:00–09:30"]').waitFor()

    // The print view is the week as a table.
    await page.emulateMedia({ media: 'print' })
    const printed = page.getByTestId('print-week')
    await printed.getByText('Horario 2025 · Paula Rojas').waitFor()
    assert.equal(await page.getByTestId('week-grid').isVisible(), false)
    await screenshot(page, 'schedule-print')
    await page.emulateMedia({ media: 'screen' })

    // Deleting a block from its dialog.
    await page.locator('[data-place="jueves 08:00–08:45"]').click()
    await page.getByTestId('delete-block').click()
    await page.getByTestId('confirm-delete-block').click()
    await page.locator('[data-place="jueves 08:00–08:45"]').waitFor({ state: 'detached' })
    assert.deepEqual(problems, [])
  })
})

test('on a phone the week is one day at a time (375 px)', async () => {
  const teacher = await teacherWithCourses('horario-movil')
  const [course] = await selectRows('courses', `teacher_id=eq.${teacher.id}&subject_code=eq.matematica&select=id`)
  await insertRows('schedule_blocks', [
    { teacher_id: teacher.id, course_id: course.id, weekday: 3, start_time: '10:00', pedagogical_hours: 2, room: 'Sala 12' },
  ])
  await withPage(MOBILE, async ({ page, problems }) => {
    await signIn(page, teacher)
    await page.goto(page.url().replace('/dashboard', '/schedule'))
    await page.getByRole('tab', { name: 'Mié' }).click()
    // 10:00 is not an hour of the usual day: the block is still shown where it is.
    await page.locator('[data-place="miércoles 10:00–11:30"]').waitFor()
    await page.getByTestId('slot-3-08:00').click()
    await chooseCourse(page, 'Lengua y Literatura')
    await page.getByTestId('save-block').click()
    await page.locator('[data-place="miércoles 08:00–08:45"]').waitFor()
    // The keyboard moves it to Thursday, and the phone follows it there.
    await page.locator('[data-place="miércoles 08:00–08:45"]').focus()
    await page.keyboard.press('ArrowRight')
    await page.locator('[data-place="jueves 08:00–08:45"]').waitFor()
    assert.equal(await page.getByRole('tab', { name: 'Jue' }).getAttribute('aria-selected'), 'true')
    await screenshot(page, 'schedule-mobile')
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`)
    assert.deepEqual(problems, [])
  })
})

test('on a touchscreen a long press picks a block up and a finger carries it', async () => {
  const teacher = await teacherWithCourses('horario-tactil')
  const [course] = await selectRows('courses', `teacher_id=eq.${teacher.id}&subject_code=eq.matematica&select=id`)
  await insertRows('schedule_blocks', [{ teacher_id: teacher.id, course_id: course.id, weekday: 2, start_time: '08:00', pedagogical_hours: 1 }])
  await withPage(TOUCH_PHONE, async ({ page, problems }) => {
    await signIn(page, teacher)
    await page.goto(page.url().replace('/dashboard', '/schedule'))
    await page.getByRole('tab', { name: 'Mar' }).tap()
    const block = page.locator('[data-place="martes 08:00–08:45"]')
    const from = await block.boundingBox()
    const to = await page.getByTestId('slot-2-10:30').boundingBox()
    const touch = await page.context().newCDPSession(page)
    const point = (x, y) => ({ touchPoints: [{ x, y, id: 1 }] })
    const x = from.x + from.width / 2
    // A quick swipe over a block scrolls the page and moves nothing.
    await touch.send('Input.dispatchTouchEvent', { type: 'touchStart', ...point(x, from.y + 20) })
    await touch.send('Input.dispatchTouchEvent', { type: 'touchMove', ...point(x, from.y + 60) })
    await touch.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] })
    await block.waitFor()
    // A long press, then the finger goes down to 10:30.
    await touch.send('Input.dispatchTouchEvent', { type: 'touchStart', ...point(x, from.y + 20) })
    await page.waitForTimeout(500)
    for (let step = 1; step <= 8; step += 1) {
      const y = from.y + 20 + ((to.y + 20 - (from.y + 20)) * step) / 8
      await touch.send('Input.dispatchTouchEvent', { type: 'touchMove', ...point(x, y) })
    }
    await touch.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] })
    await page.locator('[data-place="martes 10:30–11:15"]').waitFor()
    await assertEventually(async () =>
      assert.deepEqual(await blocksOf(teacher), ['2 10:30 1']),
    )
    assert.deepEqual(problems, [])
  })
})

async function assertEventually(check, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((done) => setTimeout(done, 100))
    }
  }
}
