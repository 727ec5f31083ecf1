/**
 * The help centre's questions and answers, by topic, in the words a teacher uses. Answers are
 * the small Markdown of `MarkdownText`; in-app links point to the page that does the thing.
 */

export interface HelpQuestion {
  id: string
  question: string
  answer: string
}

export interface HelpTopic {
  id: string
  title: string
  questions: HelpQuestion[]
}

export const HELP_TOPICS: HelpTopic[] = [
  {
    id: 'primeros-pasos',
    title: 'Primeros pasos',
    questions: [
      {
        id: 'por-donde-empiezo',
        question: '¿Por dónde empiezo?',
        answer:
          'Completa tu [perfil](/profile) con tu nombre y tu colegio, crea tus cursos en [Mis Cursos](/courses) y arma tu semana en [Horario](/schedule). Con eso, el [Calendario](/calendar) puede llenar el año con tus clases y podrás planificar cada una.',
      },
      {
        id: 'recorrido',
        question: '¿Cómo vuelvo a ver el recorrido guiado de una página?',
        answer:
          'Inicio, Mis Cursos, Horario y Plan. Simple tienen un recorrido guiado. Usa el botón **Reiniciar recorrido** (la flecha circular arriba a la derecha) en esa página y el recorrido parte desde el primer paso.',
      },
      {
        id: 'correo',
        question: 'No me llegó el correo de confirmación.',
        answer:
          'Revisa la carpeta de spam o promociones. Desde la pantalla de confirmación puedes pedir que te lo enviemos de nuevo; si usas el correo del colegio, pregunta a tu encargado de informática si bloquea mensajes externos.',
      },
    ],
  },
  {
    id: 'cursos-horario',
    title: 'Cursos, horario y calendario',
    questions: [
      {
        id: 'crear-curso',
        question: '¿Cómo creo un curso?',
        answer:
          'En [Mis Cursos](/courses) usa **Nuevo curso**: elige el nivel, la asignatura (solo aparecen las que se enseñan en ese nivel), la letra y tu colegio. Cielo muestra los Objetivos de Aprendizaje (OA) de la asignatura para ese nivel y cuántos de ellos ya trabajan tus planificaciones.',
      },
      {
        id: 'bloques',
        question: '¿Cómo armo mi horario semanal?',
        answer:
          'En [Horario](/schedule) primero indica a qué hora empieza tu jornada y cuándo son tus recreos y almuerzo. Luego haz clic en una hora libre para crear un bloque, o arrastra sobre varias horas para uno más largo. Los bloques se mueven arrastrándolos (en el teléfono, con una pulsación larga) o con las flechas del teclado.',
      },
      {
        id: 'calendario',
        question: '¿De dónde salen las clases del calendario?',
        answer:
          'Del horario: en el [Calendario](/calendar) usa **Completar con mi horario** y Cielo crea tus clases para los días hábiles del año escolar 2025, saltando feriados y vacaciones de invierno de tu región. Puedes repetirlo cuando cambie tu horario: nunca duplica una clase.',
      },
      {
        id: 'estados',
        question: '¿Qué significan Programada, Realizada y Cancelada?',
        answer:
          'Toda clase parte **Programada**. Desde su día puedes marcarla **Realizada**; si no se hizo (paro, suspensión, actividad del colegio) márcala **Cancelada** e indica el motivo. Si te equivocas, vuelve a dejarla Programada.',
      },
    ],
  },
  {
    id: 'planificacion',
    title: 'Planificar clases',
    questions: [
      {
        id: 'simple-o-secuencial',
        question: '¿Cuál es la diferencia entre Plan. Simple y Plan. Secuencial?',
        answer:
          '**Plan. Simple** es la planificación de una clase: inicio, desarrollo, cierre y las demás zonas. **Plan. Secuencial** planifica una unidad completa: defines los OA y la cantidad de clases, y luego editas cada clase de la secuencia.',
      },
      {
        id: 'zonas',
        question: '¿Qué son las zonas?',
        answer:
          'Una planificación se arma con zonas: objetivo, inicio, desarrollo, cierre, evaluación, recursos y otras. Puedes cambiarles el nombre, ordenarlas, quitarlas o agregar nuevas. Cada zona se escribe en un editor con títulos, listas, tablas y enlaces.',
      },
      {
        id: 'guardar',
        question: '¿Tengo que guardar?',
        answer:
          'No. Cielo guarda cada zona sola, un momento después de que dejas de escribir, y lo indica arriba (Guardando… / Guardado). Si se corta internet, lo escrito queda en tu navegador y se guarda al volver la conexión.',
      },
      {
        id: 'borradores',
        question: '¿Para qué sirven los Borradores?',
        answer:
          'Para escribir libremente una idea de clase, una guía o una prueba sin elegir todavía curso ni fecha. Cuando esté lista, conviértela en una planificación desde [Borradores](/drafts).',
      },
    ],
  },
  {
    id: 'ia-estrellas',
    title: 'IA y Estrellas Cielo',
    questions: [
      {
        id: 'como-genera',
        question: '¿Cómo genera Cielo una planificación?',
        answer:
          'En una planificación usa **Generar con IA**. Cielo escribe cada zona a partir de los OA que elegiste, el nivel y la asignatura del currículum nacional; tú revisas y editas todo lo que escribió. Antes de generar, te dice cuántas estrellas costará.',
      },
      {
        id: 'estrellas',
        question: '¿Qué son las Estrellas Cielo?',
        answer:
          'Son los créditos de IA del programa Demo 2025. Una estrella equivale a unos 515 tokens de texto generado (un token es una palabra o parte de una). El contador de la barra lateral muestra cuántas te quedan y hasta cuándo dura tu demo.',
      },
      {
        id: 'avisos',
        question: '¿Qué pasa cuando se me acaban?',
        answer:
          'Te avisamos al usar el 80 % y el 95 % de tus estrellas. Sin estrellas no puedes generar contenido con IA hasta que se renueve el período de la demo, pero puedes seguir planificando y editando a mano con normalidad.',
      },
    ],
  },
  {
    id: 'cuenta',
    title: 'Cuenta y privacidad',
    questions: [
      {
        id: 'datos',
        question: '¿Quién ve mis planificaciones?',
        answer:
          'Solo tú. Tus cursos, horario, clases y planificaciones están protegidos en la base de datos para que ningún otro docente pueda leerlos. El equipo directivo de tu establecimiento puede ver un resumen de los cursos y planificaciones del colegio si Cielo le dio ese rol.',
      },
      {
        id: 'telefono',
        question: '¿Para qué piden mi teléfono?',
        answer:
          'Es opcional y sirve para contactarte por soporte. Se guarda cifrado y solo tú lo ves en tu [perfil](/profile).',
      },
      {
        id: 'contrasena',
        question: 'Olvidé mi contraseña.',
        answer: 'En la pantalla de ingreso usa **¿Olvidaste tu contraseña?**: te enviaremos un enlace para crear una nueva.',
      },
    ],
  },
]

const fold = (text: string) => text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLocaleLowerCase('es')

/** The topics with only the questions that contain every word of `words` (accents ignored). */
export function searchHelp(words: string, topics: HelpTopic[] = HELP_TOPICS): HelpTopic[] {
  const needles = fold(words).split(/\s+/).filter(Boolean)
  if (needles.length === 0) return topics
  return topics
    .map((topic) => ({
      ...topic,
      questions: topic.questions.filter((item) => {
        const haystack = fold(`${topic.title} ${item.question} ${item.answer}`)
        return needles.every((needle) => haystack.includes(needle))
      }),
    }))
    .filter((topic) => topic.questions.length > 0)
}
