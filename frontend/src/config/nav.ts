/**
 * The sidebar, as data (spec section 2): groups, labels, routes, icons and who sees each
 * item. The sidebar component renders this list and nothing else.
 */
import {
  Bell,
  BookOpen,
  CalendarDays,
  Clock,
  FilePenLine,
  FileText,
  Gauge,
  House,
  LifeBuoy,
  ListOrdered,
  Palette,
  Settings,
  type LucideIcon,
} from 'lucide-react'
import { paths } from './paths'

/** Who may see an item: everyone signed in, admins, or content creators. */
export type NavAudience = 'all' | 'admin' | 'contentCreator'

export interface NavItem {
  label: string
  to: string
  icon: LucideIcon
  audience: NavAudience
  /** Shows the count of unresolved error/critical admin alerts. */
  alertBadge?: boolean
}

export interface NavGroup {
  label: string
  items: NavItem[]
}

export const navGroups: NavGroup[] = [
  {
    label: 'Navegación',
    items: [
      { label: 'Inicio', to: paths.dashboard, icon: House, audience: 'all' },
      { label: 'Mis Cursos', to: paths.courses, icon: BookOpen, audience: 'all' },
      { label: 'Horario', to: paths.schedule, icon: Clock, audience: 'all' },
      { label: 'Calendario', to: paths.calendar, icon: CalendarDays, audience: 'all' },
    ],
  },
  {
    label: 'Planificación Clases',
    items: [
      { label: 'Borradores', to: paths.drafts, icon: FilePenLine, audience: 'all' },
      { label: 'Plan. Simple', to: paths.planner, icon: FileText, audience: 'all' },
      { label: 'Plan. Secuencial', to: paths.sequential, icon: ListOrdered, audience: 'all' },
    ],
  },
  {
    label: 'Administración',
    items: [
      { label: 'Gestión Plataforma', to: paths.adminPlatform, icon: Settings, audience: 'admin' },
      { label: 'Monitoreo Cielo', to: paths.adminMonitoring, icon: Gauge, audience: 'admin', alertBadge: true },
      { label: 'Creación Contenido', to: paths.contentCreation, icon: Palette, audience: 'contentCreator' },
    ],
  },
  {
    label: 'Soporte',
    items: [
      { label: 'Anuncios', to: paths.announcements, icon: Bell, audience: 'all' },
      { label: 'Ayuda', to: paths.help, icon: LifeBuoy, audience: 'all' },
    ],
  },
]

export interface NavAccess {
  isAdmin: boolean
  isContentCreator: boolean
}

/** The groups a user sees: items filtered by audience, empty groups left out. */
export function visibleNavGroups(access: NavAccess, groups: NavGroup[] = navGroups): NavGroup[] {
  const allowed = (item: NavItem) =>
    item.audience === 'all' ||
    (item.audience === 'admin' && access.isAdmin) ||
    (item.audience === 'contentCreator' && access.isContentCreator)
  return groups
    .map((group) => ({ ...group, items: group.items.filter(allowed) }))
    .filter((group) => group.items.length > 0)
}
