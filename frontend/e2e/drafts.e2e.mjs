// Borradores against the real stack: a teacher writes a draft (saved as she types, kept
// through a reload), renames, duplicates and deletes, then turns it into a plan for her
// course, whose first zone is the draft's text; the draft leaves the list. 375 px included.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, withPage } from './browser.mjs'
import { createUser, insertRows, selectRows } from './stack.mjs'

useBrowser()

const origin = (page) => new URL(page.url()).origin

for (const [width, viewport] of [
  ['1280', DESKTOP],
  ['375', MOBILE],
]) {
  test(`a teacher writes a draft and turns it into a plan (${width} px)`, async () => {
    const teacher = await createUser(`borrador-${width}`)
    await insertRows('profiles', [{ user_id: teacher.id, first_name: 'Lucía', last_name: 'Paz', how_found_us: 'Un colega', school_rbd: 8485 }])
    await insertRows('courses', [{ teacher_id: teacher.id, level_code: '7B', letter: 'A', subject_code: 'matematica' }])
    await withPage(viewport, async ({ page, problems }) => {
      await signIn(page, teacher)
      await page.goto(`${origin(page)}/drafts`)
      await page.getByText('Aún no tienes borradores').waitFor()
      await page.getByRole('button', { name: 'Escribir un borrador' }).click()
      await page.getByTestId('page-draftEditor').waitFor()
      await page.locator('.tiptap').click()
      await page.keyboard.type('Idea: medir la sala con pasos y pasar a fracciones.')
      await page.locator('[data-testid="save-status"][data-status="saved"]').waitFor()
      await page.getByTestId('draft-title').fill('Fracciones con el cuerpo')
      await page.getByTestId('draft-title').press('Tab')
      await page.reload()
      await page.getByText('Idea: medir la sala con pasos').waitFor()
      assert.equal(await page.getByTestId('draft-title').inputValue(), 'Fracciones con el cuerpo')
      await screenshot(page, `drafts-editor-${width}`)

      await page.goto(`${origin(page)}/drafts`)
      await page.getByRole('button', { name: 'Duplicar Fracciones con el cuerpo' }).click()
      await page.getByTestId('draft-row').filter({ hasText: 'Copia de Fracciones con el cuerpo' }).waitFor()
      await page.getByRole('button', { name: 'Eliminar Copia de Fracciones con el cuerpo' }).click()
      await page.getByTestId('confirm-delete-draft').click()
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="draft-row"]').length === 1)
      await screenshot(page, `drafts-list-${width}`)

      await page.getByTestId('draft-row').getByText('Fracciones con el cuerpo').click()
      await page.getByTestId('promote-draft').click()
      const dialog = page.getByTestId('promote-dialog')
      await dialog.getByLabel('Curso').selectOption({ label: 'Matemática · 7° Básico A' })
      await dialog.getByTestId('objective-list').getByRole('checkbox').first().check()
      await dialog.getByTestId('create-plan').click()
      await page.getByTestId('plan-editor').waitFor()
      const first = page.getByTestId('zone').first()
      assert.equal(await first.getByTestId('zone-title').inputValue(), 'Planificación')
      await first.getByText('Idea: medir la sala con pasos').waitFor()
      assert.equal((await selectRows('drafts', `teacher_id=eq.${teacher.id}&select=id`)).length, 0)
      assert.deepEqual(problems, [])
    })
  })
}
