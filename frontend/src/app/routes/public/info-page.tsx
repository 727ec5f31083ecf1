/**
 * The public information pages: the written ones (curriculum, tutorials, legal, Mineduc,
 * pricing, contact) as titled sections, and the developer sandboxes, which say they are not
 * part of the product yet.
 */
import { Construction } from 'lucide-react'
import { Link } from 'react-router'
import { PublicLayout } from '@/components/layout/public-layout'
import { buttonClass } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { MarkdownText } from '@/components/ui/markdown-text'
import { PageHeader } from '@/components/ui/page-header'
import { paths } from '@/config/paths'
import { INFO_CONTENT, type InfoContentName } from './info-content'

export type InfoPageName = InfoContentName | 'zonesSandbox' | 'documentPlanner'

const SANDBOXES: Record<'zonesSandbox' | 'documentPlanner', { title: string; description: string }> = {
  zonesSandbox: { title: 'Sandbox de zonas', description: 'Espacio de pruebas para el editor de zonas de planificación (desarrollo).' },
  documentPlanner: { title: 'Planificador de documentos', description: 'Espacio de pruebas del planificador de documentos (desarrollo).' },
}

export default function InfoPage({ page }: { page: InfoPageName }) {
  if (page === 'zonesSandbox' || page === 'documentPlanner') return <Sandbox page={page} />
  const { title, description, sections } = INFO_CONTENT[page]
  return (
    <PublicLayout>
      <PageHeader title={title} description={description} />
      <div className="flex max-w-3xl flex-col gap-6" data-testid="info-page">
        {sections.map((section, index) => (
          <section key={section.heading} aria-labelledby={`info-${index}`}>
            <h2 id={`info-${index}`} className="mb-2 text-lg font-semibold text-ink">
              {section.heading}
            </h2>
            <MarkdownText text={section.text} />
          </section>
        ))}
        <div>
          <Link to={paths.auth} className={buttonClass('primary')}>
            Ingresar a Cielo
          </Link>
        </div>
      </div>
    </PublicLayout>
  )
}

function Sandbox({ page }: { page: 'zonesSandbox' | 'documentPlanner' }) {
  const { title, description } = SANDBOXES[page]
  return (
    <PublicLayout>
      <PageHeader title={title} description={description} />
      <EmptyState
        icon={Construction}
        title="Espacio de desarrollo"
        description="Esta página es para el equipo que desarrolla Cielo y no es parte del producto. Para planificar, ingresa a Cielo."
      >
        <Link to={paths.auth} className={buttonClass('primary')}>
          Ingresar a Cielo
        </Link>
      </EmptyState>
    </PublicLayout>
  )
}
