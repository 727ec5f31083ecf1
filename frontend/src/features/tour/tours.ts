/**
 * The guided tours, one per page (spec section 4): Inicio 7 steps, Mis Cursos 5, Horario 7
 * (shown over example data) and Plan. Simple 7. Each step points at a real element of the page
 * by its `data-tour` name; a step whose element is not on screen (the sidebar of a phone, a
 * list still empty) is shown in the middle of the screen instead.
 */
import { paths } from '@/config/paths'

export type TourPosition = 'top' | 'bottom' | 'left' | 'right' | 'center'

export interface TourStep {
  id: string
  title: string
  content: string
  /** A CSS selector of the element the step explains; null for a step about the whole page. */
  target: string | null
  position: TourPosition
  showNext: boolean
  showPrev: boolean
  /** Runs 150 ms after the step shows (e.g. bringing its element into view). */
  autoAction?: () => void
}

export const tourTarget = (name: string) => `[data-tour="${name}"]`

function step(id: string, title: string, content: string, target: string | null, position: TourPosition, extra: Partial<TourStep> = {}): TourStep {
  return { id, title, content, target: target === null ? null : tourTarget(target), position, showNext: true, showPrev: true, ...extra }
}

/** Brings the element of `name` into the middle of the screen (the grid on a phone, say). */
const bringIntoView = (name: string) => () => {
  document.querySelector(tourTarget(name))?.scrollIntoView({ block: 'center', behavior: 'smooth' })
}

export const TOURS: Partial<Record<string, TourStep[]>> = {
  [paths.dashboard]: [
    step('bienvenida', '¡Te damos la bienvenida a Cielo!', 'En siete pasos te mostramos dónde está cada cosa. Puedes salir cuando quieras con «Saltar recorrido» o la tecla Escape.', null, 'center', { showPrev: false }),
    step('menu', 'Tu menú', 'Desde aquí llegas a Inicio, Mis Cursos, Horario y Calendario, y a tus planificaciones: Borradores, Plan. Simple y Plan. Secuencial.', 'sidebar-nav', 'right'),
    step('nueva-planificacion', 'Planifica una clase', 'Elige el curso y los objetivos de aprendizaje del currículum nacional: la IA te propone la clase por zonas y tú la ajustas.', 'quick-new-plan', 'bottom'),
    step('nuevo-curso', 'Agrega tus cursos', 'Cada curso es un grupo y una asignatura que haces en 2025. Con ellos armas tu horario y tu calendario.', 'quick-new-course', 'bottom'),
    step('tu-dia', 'Tu día de un vistazo', 'Aquí ves tus clases de hoy y las próximas, o los pasos que te faltan para tener tu año listo.', 'dashboard-main', 'top', { autoAction: bringIntoView('dashboard-main') }),
    step('perfil', 'Tu perfil', 'Tu nombre, tu establecimiento y tu teléfono. Puedes cambiarlos cuando quieras.', 'sidebar-profile', 'right'),
    step('repetir', 'Vuelve a ver este recorrido', 'Con este botón repites el recorrido de la página en la que estés. ¡Listo, a planificar!', 'tour-restart', 'bottom', { showNext: false }),
  ],
  [paths.courses]: [
    step('mis-cursos', 'Tus cursos del año escolar 2025', 'Un curso es un nivel, una letra y una asignatura, por ejemplo «Lenguaje y Comunicación · 5° Básico A». Aquí los tienes todos.', null, 'center', { showPrev: false }),
    step('nuevo-curso', 'Crea un curso', 'Elige nivel, letra y asignatura: las asignaturas son las del currículum nacional para ese nivel. También puedes indicar tus estudiantes y un color.', 'new-course', 'bottom'),
    step('lista', 'Cada curso, con sus OA', 'Cada tarjeta muestra cuántos objetivos de aprendizaje tiene la asignatura y cuántos cubren ya tus planificaciones.', 'courses-list', 'top', { autoAction: bringIntoView('courses-list') }),
    step('editar', 'Edita o elimina', 'Cambia un curso cuando quieras. Si lo eliminas, se van también sus bloques del horario y sus clases del calendario.', 'courses-list', 'top'),
    step('siguiente', 'Lo que sigue: tu horario', 'Con tus cursos creados, ubica sus horas en Horario y Cielo arma tu calendario 2025.', 'nav-schedule', 'right', { showNext: false }),
  ],
  [paths.schedule]: [
    step('horario', 'Tu semana de clases', 'Te mostramos un horario de ejemplo para explicarte cómo funciona. No se guarda: desaparece al terminar el recorrido.', null, 'center', { showPrev: false }),
    step('jornada', 'Configura tu jornada', 'Indica a qué hora empiezas, cuántas horas pedagógicas tienes y tus recreos y almuerzo.', 'edit-day', 'bottom'),
    step('semana', 'La grilla semanal', 'Haz clic en una hora libre, o arrastra sobre varias, para crear un bloque de clases de uno de tus cursos.', 'week-grid', 'top', { autoAction: bringIntoView('week-grid') }),
    step('bloque', 'Un bloque de clases', 'Cada bloque es un curso en una sala. Ábrelo para cambiarlo; arrástralo para moverlo a otro día u hora.', 'schedule-block', 'bottom', { autoAction: bringIntoView('schedule-block') }),
    step('duracion', 'Cambia la duración', 'Arrastra el borde inferior de un bloque para agregar o quitar horas. Con el teclado: selecciona el bloque y usa Mayús + flechas arriba o abajo; las flechas solas lo mueven.', 'schedule-block', 'bottom'),
    step('horas', 'Horas por curso', 'Aquí sumamos las horas semanales de cada curso, para que compares con tu carga horaria.', 'weekly-hours', 'bottom', { autoAction: bringIntoView('weekly-hours') }),
    step('imprimir', 'Imprime o revisa el calendario', 'Imprime tu semana para la sala de profesores, o ve al Calendario: Cielo crea tus clases del año desde este horario.', 'print-schedule', 'bottom', { showNext: false }),
  ],
  [paths.planner]: [
    step('plan-simple', 'Plan. Simple: una clase a la vez', 'Aquí están tus planificaciones de clases sueltas, hechas con los OA del currículum nacional.', null, 'center', { showPrev: false }),
    step('nueva', 'Nueva planificación', 'Elige el curso, la fecha y los objetivos de aprendizaje; la IA escribe la clase por zonas: inicio, desarrollo y cierre.', 'new-plan', 'bottom'),
    step('lista', 'Tus planificaciones', 'Ábrelas para editarlas en el editor. Se guardan solas mientras escribes.', 'plan-list', 'top', { autoAction: bringIntoView('plan-list') }),
    step('estrellas', 'Estrellas Cielo', 'Generar con IA usa Estrellas Cielo: cada estrella son unos 515 tokens. En la demo ves las tuyas en el menú.', null, 'center'),
    step('borradores', 'Borradores', 'Lo que escribes sin asignar a un curso queda en Borradores, listo para convertirlo en planificación.', 'nav-drafts', 'right'),
    step('secuencial', 'Plan. Secuencial', 'Para una unidad completa: varias clases seguidas con sus objetivos, que la IA reparte por ti.', 'nav-sequential', 'right'),
    step('repetir', '¡Listo para planificar!', 'Si quieres ver esto de nuevo, usa el botón de recorrido arriba a la derecha.', 'tour-restart', 'bottom', { showNext: false }),
  ],
}
