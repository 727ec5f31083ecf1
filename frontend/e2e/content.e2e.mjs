// Creación Contenido in Chromium against the real stack: a content creator writes a resource
// with rich text and OAs (saved with them in one call), publishes it, and writes an OA's
// indicators; a teacher is sent to Inicio.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, withPage } from './browser.mjs'
import { createUser, grantRole, selectRows, stack } from './stack.mjs'

useBrowser()

test('a content creator writes a resource with its OAs and an OA\'s indicators', async () => {
  const mark = randomUUID().slice(0, 6)
  const creator = await createUser('creadora')
  await grantRole(creator.id, 'content_creator')

  await withPage(DESKTOP, async ({ page, problems }) => {
    await signIn(page, creator)
    await page.getByRole('link', { name: 'Creación Contenido' }).click()
    await page.getByRole('heading', { level: 1, name: 'Creación Contenido' }).waitFor()

    await page.getByTestId('new-resource').click()
    const dialog = page.getByTestId('resource-dialog')
    await dialog.getByRole('button', { name: 'Guardar recurso' }).click()
    await dialog.getByTestId('resource-refusal').getByText('Escribe un título.').waitFor()
    await dialog.getByRole('textbox', { name: 'Título', exact: true }).fill(`Guía de potencias ${mark}`)
    await dialog.getByLabel('Descripción breve').fill('Ejercicios graduados con notación científica.')
    await dialog.getByLabel('Nivel').selectOption({ label: '7° Básico' })
    await dialog.getByLabel('Asignatura').selectOption('matematica')
    await dialog.getByRole('textbox', { name: 'Contenido del recurso' }).fill('Completa la tabla de potencias de base 10.')
    const oa = dialog.getByTestId('objective-list').locator('label').first()
    await oa.locator('input[type=checkbox]').check()
    await dialog.getByRole('button', { name: 'Guardar recurso' }).click()
    const item = page.getByTestId('resource').filter({ hasText: `Guía de potencias ${mark}` })
    await item.getByTestId('resource-status').getByText('Borrador').waitFor()
    const [stored] = await selectRows('content_creator_resources', `title=eq.${encodeURIComponent(`Guía de potencias ${mark}`)}&select=id,level_code,content_length,resource_learning_objectives(objective_id)`)
    assert.equal(stored.level_code, '7B')
    assert.ok(stored.content_length > 20, JSON.stringify(stored))
    assert.equal(stored.resource_learning_objectives.length, 1)

    await item.getByRole('button', { name: 'Editar' }).click()
    await dialog.getByLabel('Estado').selectOption('publicado')
    await dialog.getByRole('button', { name: 'Guardar recurso' }).click()
    await item.getByTestId('resource-status').getByText('Publicado').waitFor()
    await screenshot(page, 'content-resources-desktop')

    await page.getByRole('tab', { name: 'Indicadores de evaluación' }).click()
    await page.getByLabel('Nivel').selectOption({ label: '7° Básico' })
    await page.getByLabel('Asignatura').selectOption('matematica')
    const objective = page.getByLabel('Objetivo de aprendizaje')
    await objective.locator('option').nth(3).waitFor({ state: 'attached' })
    await objective.selectOption({ index: 3 })
    await page.getByLabel('Nuevo indicador').fill(`Comparan potencias ${mark}.`)
    await page.getByRole('button', { name: 'Agregar indicador' }).click()
    await page.getByLabel('Indicador 1', { exact: true }).waitFor()
    assert.equal(await page.getByLabel('Indicador 1', { exact: true }).inputValue(), `Comparan potencias ${mark}.`)
    await page.getByLabel('Indicador 1', { exact: true }).fill(`Comparan y ordenan potencias ${mark}.`)
    await page.getByLabel('Indicador 1', { exact: true }).press('Enter')
    for (let attempt = 0; ; attempt++) {
      const rows = await selectRows('learning_objective_indicators', `text=like.*${mark}*&select=text,position`)
      if (rows.length === 1 && rows[0].text.startsWith('Comparan y ordenan')) break
      assert.ok(attempt < 50, JSON.stringify(rows))
      await page.waitForTimeout(100)
    }
    await screenshot(page, 'content-indicators-desktop')
    await page.getByRole('button', { name: 'Eliminar el indicador 1' }).click()
    await page.getByText('Este OA aún no tiene indicadores.').waitFor()
    assert.deepEqual(problems, [])
  })

  await withPage(MOBILE, async ({ page }) => {
    await signIn(page, creator)
    await page.goto(`${stack().url}/admin/creacion-contenido`)
    await page.getByTestId('resource').first().waitFor()
    await screenshot(page, 'content-resources-mobile')
  })
})
