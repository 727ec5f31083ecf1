/**
 * The public pages whose content comes with later work (marketing, help, legal, the
 * developer sandboxes): each says what it will hold, without inventing any.
 */
import { Construction } from 'lucide-react'
import { Link } from 'react-router'
import { PublicLayout } from '@/components/layout/public-layout'
import { buttonClass } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'
import { paths } from '@/config/paths'

export type InfoPageName =
  | 'curriculum'
  | 'contact'
  | 'tutorials'
  | 'terms'
  | 'privacy'
  | 'mineduc'
  | 'pricing'
  | 'zonesSandbox'
  | 'documentPlanner'

const PAGES: Record<InfoPageName, { title: string; description: string }> = {
  curriculum: { title: 'Currículum Nacional', description: 'Objetivos de aprendizaje de 1° Básico a 4° Medio, por nivel y asignatura.' },
  contact: { title: 'Contacto', description: 'Escríbenos para resolver dudas o darnos tu opinión.' },
  tutorials: { title: 'Tutoriales', description: 'Videos y guías cortas para aprovechar Cielo.' },
  terms: { title: 'Términos y condiciones', description: 'Las condiciones de uso de Cielo.' },
  privacy: { title: 'Política de privacidad', description: 'Cómo cuidamos tus datos personales.' },
  mineduc: { title: 'Mineduc', description: 'Información relacionada con el Ministerio de Educación.' },
  pricing: { title: 'Precios', description: 'Planes de Cielo para docentes y establecimientos.' },
  zonesSandbox: { title: 'Sandbox de zonas', description: 'Espacio de pruebas para el editor de zonas de planificación (desarrollo).' },
  documentPlanner: { title: 'Planificador de documentos', description: 'Espacio de pruebas del planificador de documentos (desarrollo).' },
}

export default function InfoPage({ page }: { page: InfoPageName }) {
  const { title, description } = PAGES[page]
  return (
    <PublicLayout>
      <PageHeader title={title} description={description} />
      <EmptyState
        icon={Construction}
        title="Contenido en preparación"
        description="Esta sección todavía no tiene contenido publicado. Mientras tanto, puedes crear tu cuenta o ingresar a Cielo."
      >
        <Link to={paths.auth} className={buttonClass('primary')}>
          Ingresar a Cielo
        </Link>
      </EmptyState>
    </PublicLayout>
  )
}
