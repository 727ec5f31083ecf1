/**
 * Signed-in pages whose features come with later work: each states what it will do, with
 * no sample data.
 */
import {
  Bell,
  BookOpen,
  LifeBuoy,
  Palette,
  School,
  Settings,
  type LucideIcon,
} from 'lucide-react'
import { EmptyState } from '@/components/ui/empty-state'
import { PageHeader } from '@/components/ui/page-header'

export type ComingSoonName =
  | 'courses'
  | 'adminPlatform'
  | 'help'
  | 'announcements'
  | 'directivo'
  | 'contentCreation'

const PAGES: Record<ComingSoonName, { title: string; description: string; empty: string; icon: LucideIcon }> = {
  courses: { title: 'Mis Cursos', description: 'Los cursos que haces en 2025.', empty: 'Aquí podrás crear y administrar tus cursos.', icon: BookOpen },
  adminPlatform: { title: 'Gestión Plataforma', description: 'Administración de Cielo.', empty: 'Aquí se administrarán usuarios, roles, anuncios y la demo 2025.', icon: Settings },
  help: { title: 'Ayuda', description: 'Guías y respuestas.', empty: 'Aquí encontrarás guías de uso y preguntas frecuentes.', icon: LifeBuoy },
  announcements: { title: 'Anuncios', description: 'Novedades de Cielo.', empty: 'Aquí verás los anuncios del equipo de Cielo.', icon: Bell },
  directivo: { title: 'Panel directivo', description: 'Vista del equipo directivo de tu establecimiento.', empty: 'Aquí se verán los cursos, horarios y planificaciones de tu establecimiento.', icon: School },
  contentCreation: { title: 'Creación Contenido', description: 'Recursos e indicadores del currículum.', empty: 'Aquí podrás crear recursos y asociarlos a objetivos de aprendizaje.', icon: Palette },
}

export default function ComingSoonPage({ page }: { page: ComingSoonName }) {
  const { title, description, empty, icon } = PAGES[page]
  return (
    <div data-testid={`page-${page}`}>
      <PageHeader title={title} description={description} />
      <EmptyState icon={icon} title="Próximamente" description={empty} />
    </div>
  )
}
