// Mis Cursos against the real stack: a new teacher creates, edits and deletes courses (the
// subjects offered are those taught at the level; a duplicate is refused in Spanish), the
// courses survive a reload, another teacher sees none of them, and a demo teacher reads the
// course cap before and when she reaches it, at 375 px.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DESKTOP, MOBILE, screenshot, signIn, useBrowser, withPage } from './browser.mjs'
import { createUser, insertRows, selectRows } from './stack.mjs'

useBrowser()

async function fillCourse(page, { level, letter, subject, students }) {
  const dialog = page.getByTestId('course-dialog')
  await dialog.waitFor()
  await dialog.getByLabel('Nivel').selectOption({ label: level })
  await dialog.getByLabel('Letra').fill(letter)
  await dialog.getByLabel('Asignatura').selectOption({ label: subject })
  if (students !== undefined) await dialog.getByLabel('Estudiantes (opcional)').fill(String(students))
  await dialog.getByTestId('save-course').click()
}

test('a teacher creates, edits and deletes her courses; another teacher sees none of them', async () => {
  const teacher = await createUser('cursos')
  await insertRows('profiles', [
    { user_id: teacher.id, first_name: 'Carla', last_name: 'Soto', how_found_us: 'Un colega', school_rbd: 8485 },
  ])
  await withPage(DESKTOP, async ({ page, problems }) => {
    await signIn(page, teacher)
    await page.goto(page.url().replace('/dashboard', '/courses'))
    await page.getByText('Aún no tienes cursos').waitFor()
    await page.getByRole('button', { name: 'Crear mi primer curso' }).click()

    // Only subjects taught at the level are offered.
    const dialog = page.getByTestId('course-dialog')
    await dialog.getByLabel('Nivel').selectOption({ label: '1° Medio' })
    const subjects = await dialog.getByLabel('Asignatura').locator('option').allInnerTexts()
    assert.ok(subjects.includes('Lengua y Literatura'), subjects.join(', '))
    assert.ok(!subjects.includes('Lenguaje y Comunicación'), 'a subject of básica is not offered in media')
    await dialog.getByRole('button', { name: 'Cancelar' }).click()

    await page.getByTestId('new-course').click()
    await fillCourse(page, { level: '7° Básico', letter: 'b', subject: 'Matemática', students: 32 })
    const cards = page.getByTestId('course-card')
    await cards.filter({ hasText: '7° Básico B' }).waitFor()
    await page.getByTestId('new-course').click()
    await fillCourse(page, { level: '1° Medio', letter: 'A', subject: 'Lengua y Literatura' })
    await cards.filter({ hasText: '1° Medio A' }).waitFor()
    const math = cards.filter({ hasText: '7° Básico B' })
    await math.getByText('LICEO INSTITUTO NACIONAL').waitFor()
    await math.getByTestId('course-objectives').getByText(/^\d+ OA · 0 cubiertos/).waitFor()

    // The same course again is refused, in Spanish.
    await page.getByTestId('new-course').click()
    await fillCourse(page, { level: '7° Básico', letter: 'B', subject: 'Matemática' })
    await page.getByTestId('course-error').getByText('Ya tienes ese curso').waitFor()
    await page.getByTestId('course-dialog').getByRole('button', { name: 'Cancelar' }).click()

    await math.getByRole('button', { name: /Editar/ }).click()
    await page.getByTestId('course-dialog').getByLabel('Estudiantes (opcional)').fill('30')
    await page.getByTestId('save-course').click()
    await math.getByText('30 estudiantes').waitFor()
    await screenshot(page, 'courses-desktop')

    // A plan for the course working on two OAs: the card counts them as covered.
    const [course] = await selectRows('courses', `teacher_id=eq.${teacher.id}&level_code=eq.7B&select=id`)
    const objectives = await selectRows('learning_objectives', 'level_code=eq.7B&subject_code=eq.matematica&kind=eq.OA&select=id&limit=2')
    const [plan] = await insertRows('plans', [{ teacher_id: teacher.id, course_id: course.id, title: 'Números enteros' }])
    await insertRows('plan_learning_objectives', objectives.map((objective) => ({ plan_id: plan.id, objective_id: objective.id, teacher_id: teacher.id })))

    await page.reload()
    await cards.first().waitFor()
    assert.equal(await cards.count(), 2)
    await math.getByTestId('course-objectives').getByText(/^\d+ OA · 2 cubiertos por planificaciones$/).waitFor()
    await cards.filter({ hasText: '1° Medio A' }).getByRole('button', { name: /Eliminar/ }).click()
    await page.getByTestId('confirm-delete-course').click()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="course-card"]').length === 1)
    // The one failed request is the duplicate course, refused on purpose above.
    assert.deepEqual(problems, ['console: Failed to load resource: the server responded with a status of 409 (Conflict)'])
  })

  await withPage(DESKTOP, async ({ page }) => {
    await signIn(page, await createUser('otra'))
    await page.goto(page.url().replace('/dashboard', '/courses'))
    await page.getByText('Aún no tienes cursos').waitFor()
  })
})

test('a demo teacher reads the course cap before and when she reaches it (375 px)', async () => {
  const teacher = await createUser('demo-cursos')
  await insertRows('demo_users_2025', [
    { user_id: teacher.id, total_stars: 100, demo_end_date: '2099-12-31', max_courses: 1 },
  ])
  await withPage(MOBILE, async ({ page }) => {
    await signIn(page, teacher)
    await page.goto(page.url().replace('/dashboard', '/courses'))
    await page.getByTestId('course-cap').getByText('Puedes crear 1 curso más en la demo.').waitFor()
    await page.getByRole('button', { name: 'Crear mi primer curso' }).click()
    await fillCourse(page, { level: '3° Básico', letter: 'A', subject: 'Ciencias Naturales', students: 28 })
    await page.getByTestId('course-card').waitFor()
    await page.getByTestId('course-cap').getByText('Alcanzaste el máximo de 1 curso de la demo.').waitFor()
    assert.equal(await page.getByTestId('new-course').isDisabled(), true)
    await screenshot(page, 'courses-mobile')
    // Inicio shows her stars and her next step.
    await page.goto(page.url().replace('/courses', '/dashboard'))
    await page.getByTestId('dashboard-stars').getByText('100 de 100 Estrellas Cielo disponibles').waitFor()
    await page.getByTestId('first-steps').getByRole('link', { name: 'Ir a Horario' }).waitFor()
  })
})
