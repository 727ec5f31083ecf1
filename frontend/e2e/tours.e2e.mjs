// The guided tours in Chromium against the real stack: an onboarded teacher's tours start by
// themselves; skip, finish and restart persist across reloads; a restart reaches a second
// tab; focus stays in the step and Escape skips; at 375 px the step stays on screen; the
// Horario tour shows an example week and removes it after, never saving it.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, waitForPath, withPage } from './browser.mjs'
import { createUser, insertRows, selectRows, stack } from './stack.mjs'

useBrowser()

async function onboardedTeacher(label) {
  const teacher = await createUser(label)
  await insertRows('profiles', [{ user_id: teacher.id, first_name: 'Carla', last_name: 'Rojas', how_found_us: 'YouTube', school_rbd: 8485 }])
  await insertRows('courses', [{ teacher_id: teacher.id, level_code: '7B', letter: 'A', subject_code: 'matematica' }])
  return teacher
}

const go = (page, path) => page.goto(`${stack().url}${path}`)
const step = (page) => page.getByTestId('tour-step')
const counter = (page, text) => page.getByTestId('tour-counter').getByText(text).waitFor()

test('skip, finish and restart persist across reloads, and a restart reaches a second tab', async () => {
  const teacher = await onboardedTeacher('tour')
  await withPage(DESKTOP, async ({ context, page, problems }) => {
    await signIn(page, teacher, { tours: true })
    await counter(page, '1 de 7')
    assert.equal(await step(page).getByRole('heading').textContent(), '¡Te damos la bienvenida a Cielo!')
    // The way on has the focus: Enter moves along.
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'tour-next')

    // Next and previous, bounded; the step is kept across a reload.
    await page.getByTestId('tour-next').click()
    await counter(page, '2 de 7')
    assert.equal(await step(page).getAttribute('data-step-id'), 'menu')
    await page.getByTestId('tour-spotlight').waitFor()
    await page.getByTestId('tour-next').click()
    await counter(page, '3 de 7')
    await page.getByTestId('tour-previous').click()
    await counter(page, '2 de 7')
    await page.reload()
    await counter(page, '2 de 7')

    // Focus stays inside the step; Escape skips, and a reload does not bring it back.
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press('Tab')
      assert.ok(await step(page).evaluate((card) => card.contains(document.activeElement)), 'focus left the tour step')
    }
    await page.keyboard.press('Escape')
    await step(page).waitFor({ state: 'detached' })
    await page.reload()
    await page.getByTestId('dashboard').waitFor()
    await page.waitForTimeout(500)
    assert.equal(await step(page).count(), 0)

    // Mis Cursos: finished to the end (5 steps), then gone after a reload.
    await go(page, '/courses')
    await counter(page, '1 de 5')
    for (const n of [2, 3, 4, 5]) {
      await page.getByTestId('tour-next').click()
      await counter(page, `${n} de 5`)
    }
    assert.equal(await page.getByTestId('tour-next').count(), 0)
    await page.getByTestId('tour-finish').click()
    await step(page).waitFor({ state: 'detached' })
    await page.reload()
    await page.getByTestId('courses-page').waitFor()
    await page.waitForTimeout(500)
    assert.equal(await step(page).count(), 0)
    const stored = await page.evaluate((id) => JSON.parse(localStorage.getItem(`cielo_tour:${id}:/courses`)), teacher.id)
    assert.deepEqual(stored, { tourCompleted: true, currentStep: 5, skipped: false })

    // Restart from the top-right button, seen by a second tab on the same page.
    const second = await context.newPage()
    await go(second, '/courses')
    await second.getByTestId('courses-page').waitFor()
    assert.equal(await step(second).count(), 0)
    await page.getByTestId('tour-restart').click()
    await counter(page, '1 de 5')
    await counter(second, '1 de 5')
    await page.reload()
    await counter(page, '1 de 5')
    await screenshot(page, 'tour-courses-1280')
    assert.deepEqual(problems, [])
  })
})

test('at 375 px the step stays on screen and follows its element', async () => {
  const teacher = await onboardedTeacher('tour-movil')
  await withPage(MOBILE, async ({ page }) => {
    await signIn(page, teacher, { tours: true })
    await counter(page, '1 de 7')
    for (const n of [2, 3, 4]) {
      await page.getByTestId('tour-next').click()
      await counter(page, `${n} de 7`)
      const box = await step(page).boundingBox()
      assert.ok(box.x >= 0 && box.x + box.width <= 375, `step ${n} leaves the screen: ${JSON.stringify(box)}`)
    }
    // Step 4 lights up "Nuevo curso"; the card sits next to it.
    const onTarget = async () => {
      const target = await page.getByTestId('quick-new-course').boundingBox()
      const spot = await page.getByTestId('tour-spotlight').boundingBox()
      return Math.abs(spot.x + 6 - target.x) < 2 && Math.abs(spot.y + 6 - target.y) < 2
    }
    // It moves there with a short transition.
    for (let i = 0; i < 20 && !(await onTarget()); i += 1) await page.waitForTimeout(50)
    assert.ok(await onTarget(), 'the spotlight is on its element')
    await screenshot(page, 'tour-dashboard-375')
    // Turning the phone: the step is placed again within the new width.
    await page.setViewportSize({ width: 700, height: 375 })
    await page.waitForTimeout(300)
    const turned = await step(page).boundingBox()
    assert.ok(turned.x >= 0 && turned.x + turned.width <= 700 && turned.y >= 0)
  })
})

test('the Horario tour shows an example week and removes it after, never saving it', async () => {
  const teacher = await onboardedTeacher('tour-horario')
  await withPage(DESKTOP, async ({ page }) => {
    await signIn(page, teacher, { tours: true })
    await page.keyboard.press('Escape')
    await go(page, '/schedule')
    await counter(page, '1 de 7')
    await page.locator('[data-testid="schedule-block"][data-example]').first().waitFor()
    const examples = await page.locator('[data-testid="schedule-block"][data-example]').count()
    assert.ok(examples >= 6, `${examples} example blocks`)
    await page.getByTestId('weekly-hours').getByText('Matemática · 5° Básico A').waitFor()
    for (const n of [2, 3, 4]) {
      await page.getByTestId('tour-next').click()
      await counter(page, `${n} de 7`)
    }
    assert.equal(await step(page).getAttribute('data-step-id'), 'bloque')
    await screenshot(page, 'tour-schedule-1280')
    await page.getByTestId('tour-skip').click()
    await step(page).waitFor({ state: 'detached' })
    assert.equal(await page.locator('[data-testid="schedule-block"]').count(), 0)
    assert.equal(await page.getByTestId('weekly-hours').getByText('Matemática · 5° Básico A').count(), 0)
  })
  assert.deepEqual(await selectRows('schedule_blocks', `teacher_id=eq.${teacher.id}`), [])
})

test('a teacher not onboarded gets no tour', async () => {
  const teacher = await createUser('tour-nueva')
  await withPage(DESKTOP, async ({ page }) => {
    await signIn(page, teacher, { tours: true })
    await page.getByTestId('onboarding-banner').waitFor()
    await go(page, '/courses')
    await waitForPath(page, '/courses')
    await page.getByTestId('courses-page').waitFor()
    await page.waitForTimeout(500)
    assert.equal(await page.getByTestId('tour-step').count(), 0)
  })
})
