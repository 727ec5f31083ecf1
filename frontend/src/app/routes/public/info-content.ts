/**
 * The text of Cielo's public information pages — curriculum, tutorials, terms, privacy,
 * Mineduc, pricing, contact — as titled sections in the small Markdown of `MarkdownText`.
 * Cielo is installed by schools and organisations themselves, so the pages speak of "quien
 * administra esta instalación" rather than naming a company.
 */

export interface InfoSection {
  heading: string
  text: string
}

export interface InfoContent {
  title: string
  description: string
  sections: InfoSection[]
}

export type InfoContentName = 'curriculum' | 'contact' | 'tutorials' | 'terms' | 'privacy' | 'mineduc' | 'pricing'

export const INFO_CONTENT: Record<InfoContentName, InfoContent> = {
  curriculum: {
    title: 'Currículum Nacional',
    description: 'Los Objetivos de Aprendizaje de 1° Básico a 4° Medio, por nivel y asignatura, dentro de tu planificación.',
    sections: [
      {
        heading: 'Qué trae Cielo',
        text: 'Cielo incluye los Objetivos de Aprendizaje (OA) de las Bases Curriculares de 1° Básico a 4° Medio, ordenados por nivel, asignatura y eje, con su código oficial (por ejemplo **MA07 OA 05**) y su texto completo.',
      },
      {
        heading: 'Cómo se usa al planificar',
        text: '- Al crear un curso ves los OA de su asignatura para ese nivel y cuántos ya trabajan tus planificaciones.\n- Al crear una planificación eliges sus OA en un buscador por código, palabras o eje.\n- La generación con IA escribe solo a partir de los OA que elegiste: nunca inventa códigos.',
      },
      {
        heading: 'Explóralo',
        text: 'Los OA se consultan dentro de Cielo, al crear un curso o una planificación. [Crea tu cuenta](/auth) o revisa el [Centro de ayuda](/centro-ayuda).',
      },
    ],
  },
  tutorials: {
    title: 'Tutoriales',
    description: 'Guías cortas para aprovechar Cielo desde el primer día.',
    sections: [
      {
        heading: 'Recorridos guiados',
        text: 'Inicio, Mis Cursos, Horario y Plan. Simple tienen un recorrido paso a paso que parte solo la primera vez. Para verlo de nuevo, usa **Reiniciar recorrido** (la flecha circular arriba a la derecha) en esa página.',
      },
      {
        heading: 'Tu primera semana en Cielo',
        text: '- **Día 1:** completa tu perfil y crea tus cursos en Mis Cursos.\n- **Día 2:** arma tu horario semanal y usa **Completar con mi horario** en el Calendario.\n- **Día 3:** crea tu primera planificación en Plan. Simple y genera sus zonas con IA.\n- **Día 4:** planifica una unidad completa en Plan. Secuencial.\n- **Día 5:** marca tus clases como Realizadas y revisa en Inicio lo que falta por planificar.',
      },
      {
        heading: 'Preguntas frecuentes',
        text: 'Las respuestas a las dudas más comunes están en el [Centro de ayuda](/centro-ayuda).',
      },
    ],
  },
  terms: {
    title: 'Términos y condiciones',
    description: 'Las condiciones de uso de esta instalación de Cielo.',
    sections: [
      {
        heading: 'Quién ofrece el servicio',
        text: 'Cielo es un software de código abierto para planificar clases. Esta instalación la administra el establecimiento u organización que la puso a disposición de sus docentes; esa organización es responsable del servicio y de los datos que guarda.',
      },
      {
        heading: 'Tu cuenta',
        text: '- La cuenta es personal: no compartas tu contraseña.\n- Debes usar un correo que puedas confirmar.\n- Puedes dejar de usar Cielo cuando quieras y pedir que se elimine tu cuenta.',
      },
      {
        heading: 'Tus planificaciones',
        text: 'Lo que escribes en Cielo (cursos, horario, planificaciones y borradores) es tuyo. Cielo lo guarda para mostrártelo y no lo publica. El equipo directivo de tu establecimiento puede ver un resumen si la administración le asignó ese rol.',
      },
      {
        heading: 'Contenido generado con IA',
        text: 'La IA propone textos a partir del currículum nacional y de lo que indicas. Revisa y ajusta siempre lo generado antes de usarlo en clases: la responsabilidad pedagógica es de quien planifica.',
      },
      {
        heading: 'Estrellas Cielo',
        text: 'Las Estrellas Cielo de la Demo 2025 son créditos para usar la IA dentro de Cielo. No tienen valor monetario, no se venden ni se transfieren, y pueden cambiar al terminar el período de la demo.',
      },
      {
        heading: 'Uso aceptable',
        text: 'No uses Cielo para guardar datos sensibles de estudiantes (como diagnósticos o datos de salud), para publicar contenido ilegal o para intentar acceder a cuentas ajenas.',
      },
      {
        heading: 'Cambios',
        text: 'Si estas condiciones cambian, lo avisaremos en [Anuncios](/announcements) antes de que rijan.',
      },
    ],
  },
  privacy: {
    title: 'Política de privacidad',
    description: 'Qué datos guarda Cielo, para qué y quién puede verlos.',
    sections: [
      {
        heading: 'Datos que guardamos',
        text: '- **Cuenta:** correo y contraseña (guardada solo como hash, nunca en texto).\n- **Perfil:** nombre, apellido, establecimiento y, si lo indicas, tu teléfono, que se guarda cifrado.\n- **Tu trabajo:** cursos, horario, calendario, planificaciones y borradores.\n- **Uso de IA:** cuántas estrellas usa cada generación.\n- **Registro de seguridad:** errores de la aplicación, sin contraseñas, tokens, correos ni teléfonos.',
      },
      {
        heading: 'Para qué los usamos',
        text: 'Solo para que Cielo funcione: mostrarte tu trabajo, generar contenido cuando lo pides, avisarte de tus estrellas y resolver problemas técnicos. No vendemos tus datos ni los usamos para publicidad.',
      },
      {
        heading: 'Quién los ve',
        text: 'Tus planificaciones las ves tú. La base de datos impide que otro docente las lea. El equipo directivo de tu establecimiento ve un resumen de cursos y planificaciones si tiene ese rol, y la administración de la plataforma ve los datos de tu cuenta para darte soporte.',
      },
      {
        heading: 'La inteligencia artificial',
        text: 'Para generar, Cielo envía al modelo de IA el curso, los OA y el texto de la planificación. Según cómo se configuró esta instalación, el modelo funciona en sus propios servidores o en un proveedor externo; pregunta a quien la administra si necesitas saberlo.',
      },
      {
        heading: 'Tus derechos',
        text: 'Según la Ley N° 19.628 sobre protección de la vida privada, puedes pedir acceso a tus datos, su rectificación, su eliminación o bloqueo. Puedes corregir tu perfil en cualquier momento desde [Mi perfil](/profile); para lo demás, escribe a quien administra esta instalación.',
      },
      {
        heading: 'En tu navegador',
        text: 'Cielo guarda en tu navegador tu sesión, si la barra lateral está abierta (una cookie de 7 días) y tu avance en los recorridos guiados. No usa cookies de publicidad ni de seguimiento.',
      },
    ],
  },
  mineduc: {
    title: 'Cielo y el Mineduc',
    description: 'Cómo se relaciona Cielo con el currículum del Ministerio de Educación.',
    sections: [
      {
        heading: 'Alineado al currículum nacional',
        text: 'Los Objetivos de Aprendizaje que usa Cielo provienen de las Bases Curriculares publicadas por el Ministerio de Educación de Chile, con sus códigos y textos oficiales. El calendario incluye los feriados y las vacaciones de invierno de cada región para el año escolar 2025.',
      },
      {
        heading: 'Fuentes oficiales',
        text: 'Los documentos curriculares, programas de estudio y orientaciones están en [curriculumnacional.cl](https://www.curriculumnacional.cl) y en [mineduc.cl](https://www.mineduc.cl).',
      },
      {
        heading: 'Independencia',
        text: 'Cielo es un proyecto independiente: no es un servicio del Ministerio de Educación ni habla en su nombre.',
      },
    ],
  },
  pricing: {
    title: 'Precios',
    description: 'Cómo se accede a Cielo y a sus Estrellas Cielo.',
    sections: [
      {
        heading: 'Demo 2025',
        text: 'Los docentes invitados a la Demo 2025 usan Cielo sin costo, con una cantidad de **Estrellas Cielo** para generar con IA (una estrella equivale a unos 515 tokens de texto) y un máximo de cursos. El contador de la barra lateral muestra las estrellas que quedan y hasta cuándo dura la demo.',
      },
      {
        heading: 'Sin estrellas también se planifica',
        text: 'Cursos, horario, calendario, planificaciones y borradores funcionan siempre; las estrellas solo se usan al generar o mejorar contenido con IA.',
      },
      {
        heading: 'Para establecimientos',
        text: 'Cielo es software de código abierto: un establecimiento o sostenedor puede instalarlo en sus propios servidores, con su propio modelo de IA y sin pagar licencias. Quien administra la instalación decide las estrellas y los cupos de sus docentes.',
      },
    ],
  },
  contact: {
    title: 'Contacto',
    description: 'Dónde resolver tus dudas sobre Cielo.',
    sections: [
      {
        heading: 'Primero, el Centro de ayuda',
        text: 'La mayoría de las dudas —cursos, horario, planificación, estrellas, tu cuenta— tiene respuesta en el [Centro de ayuda](/centro-ayuda).',
      },
      {
        heading: 'Novedades y cambios',
        text: 'Los avisos del equipo (cambios, mantenciones, la Demo 2025) se publican en [Anuncios](/announcements) dentro de Cielo.',
      },
      {
        heading: 'Soporte de tu establecimiento',
        text: 'Cielo lo administra tu establecimiento u organización. Para cambios de cuenta, estrellas, roles o problemas técnicos, escribe a su equipo de soporte o de informática: ellos tienen acceso a Gestión Plataforma.',
      },
    ],
  },
}
