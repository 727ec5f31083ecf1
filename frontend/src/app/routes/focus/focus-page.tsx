/**
 * Signed-in pages without the sidebar (editors): a bar to go back and an honest empty
 * state until the editors arrive.
 */
import { ArrowLeft, FilePenLine } from 'lucide-react'
import { Link, useParams } from 'react-router'
import { EmptyState } from '@/components/ui/empty-state'
import { paths } from '@/config/paths'

export type FocusPageName = 'sequentialClassEdit'

const PAGES: Record<FocusPageName, { title: string; back: string; backLabel: string }> = {
  sequentialClassEdit: { title: 'Editar clase de la unidad', back: paths.sequential, backLabel: 'Volver a la unidad' },
}

export default function FocusPage({ page }: { page: FocusPageName }) {
  const { title, back, backLabel } = PAGES[page]
  const { sessionId } = useParams()
  const backTo = page === 'sequentialClassEdit' && sessionId ? paths.sequentialSession(sessionId) : back
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex min-h-16 items-center border-b border-line bg-surface px-4">
        <Link to={backTo} className="inline-flex min-h-11 items-center gap-2 rounded-lg px-2 text-sm font-medium text-ink hover:bg-surface-muted">
          <ArrowLeft aria-hidden="true" className="size-4" />
          {backLabel}
        </Link>
      </header>
      <main id="contenido" className="mx-auto w-full max-w-4xl flex-1 px-4 py-8" data-testid={`page-${page}`}>
        <h1 className="mb-6 text-2xl font-bold text-ink">{title}</h1>
        <EmptyState icon={FilePenLine} title="Editor en preparación" description="El editor de planificaciones llegará próximamente." />
      </main>
    </div>
  )
}
