// Plan. Simple against the real stack: a teacher starts a plan from a calendar class with
// OAs of her course, writes in its zones (saved without a button, kept through a reload and
// a dropped network), renames, moves, removes and adds zones, fills them with the stack's real
// model (the text streaming into the zones, the stars charged exactly), and two tabs on the same zone never overwrite each other silently; a legacy plan is
// migrated into zones when opened; another teacher cannot open any of it.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, withPage } from './browser.mjs'
import { createUser, insertRows, selectRows, updateRows } from './stack.mjs'

useBrowser()

async function teacherWithClass(label) {
  const teacher = await createUser(label)
  await insertRows('profiles', [{ user_id: teacher.id, first_name: 'Inés', last_name: 'Mora', how_found_us: 'Un colega', school_rbd: 8485 }])
  const [course] = await insertRows('courses', [{ teacher_id: teacher.id, level_code: '7B', letter: 'A', subject_code: 'matematica', color: '#2563eb' }])
  const [session] = await insertRows('class_sessions', [
    { teacher_id: teacher.id, course_id: course.id, session_date: '2025-05-19', start_time: '08:00', pedagogical_hours: 2 },
  ])
  return { teacher, course, session }
}

const origin = (page) => new URL(page.url()).origin
const zone = (page, title) => page.getByTestId('zone').filter({ has: page.locator(`input[value="${title}"]`) })
const saved = (page) => page.locator('[data-testid="save-status"][data-status="saved"]').waitFor()

async function typeInto(page, title, text) {
  await zone(page, title).locator('.tiptap').click()
  await page.keyboard.type(text)
}

test('a teacher plans a class: zones saved as she writes, kept through reloads and a dropped network', async () => {
  const { teacher, session } = await teacherWithClass('plan')
  // A demo teacher, with 100 Estrellas Cielo to generate with.
  await insertRows('demo_users_2025', [{ user_id: teacher.id, total_stars: 100, demo_end_date: '2099-12-31' }])
  await withPage(DESKTOP, async ({ page, context, problems }) => {
    await signIn(page, teacher)
    // The calendar's "Planificar esta clase" lands here with the class chosen.
    await page.goto(`${origin(page)}/planner/create?clase=${session.id}`)
    const form = page.getByTestId('new-plan-form')
    await form.waitFor()
    assert.equal(await form.getByLabel('Duración').inputValue(), '2')
    await form.getByTestId('create-plan').click()
    await form.getByText('Elige al menos un OA.').waitFor()
    await form.getByPlaceholder(/Buscar por código/).fill('MA07 OA 01')
    await form.getByTestId('objective-list').getByRole('checkbox').first().check()
    await form.getByPlaceholder(/Buscar por código/).fill('MA07 OA 03')
    await form.getByTestId('objective-list').getByRole('checkbox').first().check()
    await form.getByTestId('create-plan').click()

    await page.getByTestId('plan-editor').waitFor()
    await page.getByTestId('plan-objectives').getByText('MA07 OA 01').waitFor()
    assert.equal(await page.getByTestId('zone').count(), 8)
    await page.getByText('lunes, 19 de mayo de 2025').waitFor()
    // Her OAs change after the plan is made: one of the two taken out.
    await page.getByTestId('edit-objectives').click()
    await page.getByTestId('objectives-dialog').getByRole('button', { name: 'Quitar MA07 OA 03' }).click()
    await page.getByTestId('save-objectives').click()
    await page.getByText('OA actualizados').waitFor()
    await page.waitForFunction(() => !document.querySelector('[data-testid="plan-objectives"]').textContent.includes('MA07 OA 03'))
    assert.match(await page.getByTestId('plan-objectives').innerText(), /MA07 OA 01/)

    await typeInto(page, 'Inicio', 'Preguntas sobre números negativos en la vida diaria.')
    await page.locator('[data-testid="save-status"][data-status="saving"]').waitFor()
    await saved(page)

    // Rename, move up, remove and add zones.
    const inicioTitle = zone(page, 'Inicio').getByTestId('zone-title')
    await inicioTitle.click()
    await page.keyboard.press('End')
    await page.keyboard.type(': activación')
    await page.keyboard.press('Enter')
    await zone(page, 'Inicio: activación').waitFor()
    await page.getByRole('button', { name: 'Subir Cierre' }).click()
    await page.getByRole('button', { name: 'Quitar Recursos' }).click()
    await page.getByTestId('confirm-remove-zone').click()
    await page.getByTestId('add-zone').click()
    await zone(page, 'Notas').waitFor()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="zone"]').length === 8)

    // Offline: the text waits, the page says so, and it is saved when the network is back.
    await context.setOffline(true)
    await typeInto(page, 'Desarrollo', 'Trabajo en parejas con la recta numérica.')
    await page.locator('[data-testid="save-status"][data-status="offline"]').waitFor({ timeout: 10_000 })
    await context.setOffline(false)
    await saved(page)
    await screenshot(page, 'planner-editor-desktop')

    await page.reload()
    await page.getByTestId('plan-editor').waitFor()
    await zone(page, 'Inicio: activación').getByText('Preguntas sobre números negativos').waitFor()
    await zone(page, 'Desarrollo').getByText('Trabajo en parejas con la recta numérica.').waitFor()
    const titles = await page.getByTestId('zone-title').evaluateAll((inputs) => inputs.map((input) => input.value))
    assert.deepEqual(titles, ['Objetivo de la clase', 'Inicio: activación', 'Cierre', 'Desarrollo', 'Evaluación formativa', 'Adecuaciones (PIE/DUA)', 'Indicadores de evaluación', 'Notas'])

    // The model writes the zones as the text streams in: one is written while a later one
    // still waits for its turn.
    await page.evaluate(() => {
      const text = (title) =>
        [...document.querySelectorAll('[data-testid="zone"]')].find((zone) => zone.querySelector(`input[value="${title}"]`))?.querySelector('.tiptap')?.innerText ?? ''
      window.streamedWhileGenerating = false
      new MutationObserver(() => {
        const busy = document.querySelector('[data-testid="generate-plan"]')?.textContent?.includes('Generando')
        const inicio = text('Inicio: activación')
        if (busy && inicio.trim() && !inicio.includes('[Por completar') && text('Adecuaciones (PIE/DUA)').includes('[Por completar'))
          window.streamedWhileGenerating = true
      }).observe(document.querySelector('[data-testid="zones"]'), { subtree: true, childList: true, characterData: true })
    })
    // Its cost is said first, and what is charged falls within it.
    const [low, high] = /≈ (\d+)–(\d+) estrellas/.exec(await page.getByTestId('generate-plan').innerText()).slice(1).map(Number)
    await page.getByTestId('generate-plan').click()
    await page.getByTestId('confirm-generate').click()
    const generated = page.getByText(/Se usaron? \d+ estrellas?\. Revísala/)
    await generated.waitFor({ timeout: 60_000 })
    const planStars = Number(/(\d+)/.exec(await generated.textContent())[1])
    assert.ok(low <= planStars && planStars <= high, `${planStars} stars, estimated ${low}–${high}`)
    assert.equal(await page.evaluate(() => window.streamedWhileGenerating), true, 'a zone was written while the generation went on')
    await zone(page, 'Objetivo de la clase').getByText(/MA07 OA 01/).first().waitFor()
    assert.doesNotMatch(await zone(page, 'Adecuaciones (PIE/DUA)').locator('.tiptap').innerText(), /\[Por completar/)
    await saved(page)
    // Charged exactly what the answer says, once.
    const [demo] = await selectRows('demo_users_2025', `user_id=eq.${teacher.id}&select=used_stars`)
    assert.equal(demo.used_stars, planStars)

    // One zone written again by the model, replacing what the teacher had.
    const cierre = zone(page, 'Cierre')
    await cierre.locator('.tiptap').click()
    await page.keyboard.press('Control+End')
    await page.keyboard.type(' Texto que la IA reescribe.')
    await saved(page)
    const before = await cierre.locator('.tiptap').innerText()
    await cierre.getByTestId('improve-zone').click()
    await cierre.getByPlaceholder(/más breve/).fill('Con un ticket de salida de dos preguntas')
    await cierre.getByTestId('confirm-improve').click()
    const improved = page.getByText(/Se usaron? \d+ estrellas?\. Revisa el resultado/)
    await improved.waitFor({ timeout: 30_000 })
    const zoneStars = Number(/(\d+)/.exec(await improved.textContent())[1])
    assert.notEqual(await cierre.locator('.tiptap').innerText(), before)
    assert.doesNotMatch(await cierre.locator('.tiptap').innerText(), /Texto que la IA reescribe/)
    await saved(page)

    // The plan is on the list and the class in the calendar links to it.
    await page.goto(`${origin(page)}/planner`)
    await page.getByTestId('plan-row').getByText('lunes', { exact: false }).count()
    await page.getByTestId('plan-row').first().waitFor()
    // The sidebar's stars: what both calls charged, as the database counts them.
    const [after] = await selectRows('demo_users_2025', `user_id=eq.${teacher.id}&select=used_stars`)
    assert.equal(after.used_stars, planStars + zoneStars)
    await page.getByTestId('stars-widget').getByText(`${100 - planStars - zoneStars} de 100 Estrellas Cielo disponibles`).waitFor()
    await screenshot(page, 'planner-list-desktop')
    assert.deepEqual(problems.filter((problem) => !problem.includes('ERR_INTERNET_DISCONNECTED')), [])
  })
})

test('two tabs on one zone: the second is told and keeps its text until it chooses', async () => {
  const { teacher, course } = await teacherWithClass('plan-pestanas')
  await withPage(DESKTOP, async ({ page, context }) => {
    await signIn(page, teacher)
    await page.goto(`${origin(page)}/planner/create`)
    await page.getByTestId('new-plan-form').getByLabel('Curso').selectOption({ label: 'Matemática · 7° Básico A' })
    await page.getByTestId('objective-list').getByRole('checkbox').first().check()
    await page.getByTestId('create-plan').click()
    await page.getByTestId('plan-editor').waitFor()
    const url = page.url()

    const other = await context.newPage()
    await other.goto(url)
    await other.getByTestId('plan-editor').waitFor()

    await typeInto(page, 'Cierre', 'Ticket de salida de la primera pestaña.')
    await saved(page)
    await typeInto(other, 'Cierre', 'Texto de la segunda pestaña.')
    await zone(other, 'Cierre').getByTestId('zone-conflict').waitFor()
    await other.locator('[data-testid="save-status"][data-status="conflict"]').waitFor()
    await zone(other, 'Cierre').getByText('Texto de la segunda pestaña.').waitFor()
    await screenshot(other, 'planner-conflict-desktop')
    await zone(other, 'Cierre').getByRole('button', { name: 'Guardar mi versión' }).click()
    await saved(other)

    const [plan] = await selectRows('plans', `course_id=eq.${course.id}&select=plan_classes(plan_zones(title,content))`)
    const cierre = plan.plan_classes[0].plan_zones.find((z) => z.title === 'Cierre')
    assert.match(JSON.stringify(cierre.content), /Texto de la segunda pestaña/)
  })
})

test('the demo\'s legacy plan opens migrated into zones; another teacher cannot open it (375 px)', async () => {
  const { teacher, course } = await teacherWithClass('plan-antiguo')
  const [plan] = await insertRows('plans', [{ teacher_id: teacher.id, course_id: course.id, title: 'Repaso: operaciones con fracciones' }])
  const [planClass] = await selectRows('plan_classes', `plan_id=eq.${plan.id}&select=id`)
  // Exactly the content of the demo's legacy plan (sql/seed/demo.sql).
  const seed = readFileSync(new URL('../../sql/seed/demo.sql', import.meta.url), 'utf8')
  const legacy = JSON.parse(/SET content_format = 'legacy',\s+legacy_content = '(.*?)'\n/s.exec(seed)[1].replaceAll("''", "'"))
  await updateRows('plan_classes', `id=eq.${planClass.id}`, { content_format: 'legacy', legacy_content: legacy })

  await withPage(MOBILE, async ({ page, problems }) => {
    await signIn(page, teacher)
    await page.goto(`${origin(page)}/planner/create?plan=${plan.id}`)
    await page.getByTestId('legacy-notice').getByText('la pasamos a zonas').waitFor()
    await page.getByText('Recordar fracciones equivalentes con una pizza dibujada en la pizarra.').waitFor()
    await page.getByText('Revisión en plenario.').waitFor()
    const titles = await page.getByTestId('zone-title').evaluateAll((inputs) => inputs.map((input) => input.value))
    assert.deepEqual(titles, ['Objetivo de la clase', 'Inicio', 'Desarrollo', 'Cierre'])
    await page.getByTestId('no-objectives').waitFor()
    await screenshot(page, 'planner-legacy-mobile')
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    assert.ok(overflow <= 0, `the editor scrolls sideways by ${overflow} px`)
    assert.deepEqual(problems, [])
  })

  await withPage(MOBILE, async ({ page }) => {
    await signIn(page, await createUser('plan-ajeno'))
    await page.goto(`${origin(page)}/planner/create?plan=${plan.id}`)
    await page.getByTestId('plan-not-found').waitFor()
  })
})

test('a refused generation leaves the zones as they were and says why; an oversized paste is refused', async () => {
  const { teacher } = await teacherWithClass('plan-rechazo')
  await insertRows('demo_users_2025', [{ user_id: teacher.id, total_stars: 100, demo_end_date: '2099-12-31' }])
  await withPage(DESKTOP, async ({ page, problems }) => {
    await signIn(page, teacher)
    // A plan for a date the calendar has no class on: the class is made with it.
    await page.goto(`${origin(page)}/planner/create`)
    const form = page.getByTestId('new-plan-form')
    await form.getByLabel('Clase del calendario').selectOption({ label: 'Otra fecha…' })
    await form.getByLabel('Fecha de la clase').fill('2025-06-08')
    await form.getByTestId('objective-list').getByRole('checkbox').first().check()
    await form.getByTestId('create-plan').click()
    await form.getByText('Las clases son de lunes a sábado.').waitFor()
    await form.getByLabel('Fecha de la clase').fill('2025-06-04')
    await form.getByLabel('Hora').fill('09:30')
    await form.getByTestId('create-plan').click()
    await page.getByTestId('plan-editor').waitFor()
    await page.getByText('miércoles, 4 de junio de 2025 · 09:30').waitFor()
    const sessions = await selectRows('class_sessions', `teacher_id=eq.${teacher.id}&session_date=eq.2025-06-04&select=start_time`)
    assert.deepEqual(sessions, [{ start_time: '09:30:00' }])
    await typeInto(page, 'Inicio', 'Mi inicio, escrito a mano.')
    await saved(page)

    // The demo ends while the page is open: the server refuses, nothing is replaced.
    await updateRows('demo_users_2025', `user_id=eq.${teacher.id}`, { demo_end_date: '2025-01-01' })
    await page.getByTestId('generate-plan').click()
    await page.getByTestId('confirm-generate').click()
    await page.getByText('Tu demo terminó: ya no puedes generar con IA.').waitFor()
    assert.equal(await zone(page, 'Inicio').locator('.tiptap').innerText(), 'Mi inicio, escrito a mano.')
    // And generation is now off, with the spec's words.
    await page.getByTestId('no-stars').getByText(/no se puede generar más contenido con IA hasta que se renueve el periodo de demo/).waitFor()
    assert.equal(await page.getByTestId('generate-plan').isDisabled(), true)
    const [demo] = await selectRows('demo_users_2025', `user_id=eq.${teacher.id}&select=used_stars`)
    assert.equal(demo.used_stars, 0)

    // A paste longer than a zone can hold is refused before anything is sent.
    await zone(page, 'Cierre').locator('.tiptap').click()
    await page.evaluate(() => {
      const data = new DataTransfer()
      data.setData('text/plain', 'fracciones '.repeat(12_000))
      document.activeElement.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))
    })
    await page.getByText('El texto pegado es demasiado largo').waitFor()
    assert.equal((await zone(page, 'Cierre').locator('.tiptap').innerText()).trim(), '')
    assert.deepEqual(problems.filter((problem) => !/403|Forbidden/.test(problem)), [])
  })
})
