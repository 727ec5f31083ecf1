/**
 * Borradores: the teacher's free-form drafts, newest first, searched by title; each opens in
 * the editor, is duplicated or deleted; "Nuevo borrador" starts an empty one.
 */
import { Copy, FilePenLine, Plus, Search, Trash2 } from 'lucide-react'
import { useState } from 'react'
import { Link, useNavigate } from 'react-router'
import { Button, buttonClass } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { EmptyState } from '@/components/ui/empty-state'
import { fieldClass } from '@/components/ui/field'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { useCourseLabels } from '@/features/courses'
import { useCreateDraft, useDeleteDraft, useDrafts, useDuplicateDraft, type DraftRow } from '@/features/drafts'
import { formatDate } from '@/lib/dates'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'

const refusal = (error: unknown) => (isDatabaseError(error) ? databaseErrorMessage(error) : 'Inténtalo de nuevo.')

export default function DraftsRoute() {
  const drafts = useDrafts()
  const courses = useCourseLabels()
  const create = useCreateDraft()
  const duplicate = useDuplicateDraft()
  const remove = useDeleteDraft()
  const navigate = useNavigate()
  const [words, setWords] = useState('')
  const [deleting, setDeleting] = useState<DraftRow | null>(null)
  const needle = words.trim().toLocaleLowerCase('es')
  const shown = (drafts.data ?? []).filter((draft) => !needle || draft.title.toLocaleLowerCase('es').includes(needle))

  const startNew = () =>
    create.mutate(
      {},
      {
        onSuccess: (id) => navigate(paths.draftEditor(id)),
        onError: (error) => notify.error('No se pudo crear el borrador', refusal(error)),
      },
    )

  return (
    <div data-testid="drafts-page">
      <PageHeader title="Borradores" description="Ideas y planificaciones que aún no terminas. Cuando estén listas, conviértelas en una planificación de clase.">
        <div>
          <Button onClick={startNew} disabled={create.isPending} data-testid="new-draft">
            <Plus aria-hidden="true" className="size-4" /> Nuevo borrador
          </Button>
        </div>
      </PageHeader>
      {drafts.isPending ? (
        <Skeleton className="h-48 w-full" />
      ) : drafts.isError ? (
        <p role="alert" className="text-bad">
          No se pudieron cargar tus borradores.
        </p>
      ) : drafts.data.length === 0 ? (
        <EmptyState icon={FilePenLine} title="Aún no tienes borradores" description="Escribe libremente una idea de clase, una guía o una prueba; se guarda sola mientras escribes.">
          <Button onClick={startNew}>Escribir un borrador</Button>
        </EmptyState>
      ) : (
        <>
          <label className="relative mb-4 block">
            <span className="sr-only">Buscar por título</span>
            <Search aria-hidden="true" className="absolute top-3 left-3 size-5 text-ink-muted" />
            <input className={`${fieldClass} pl-10`} value={words} onChange={(event) => setWords(event.target.value)} placeholder="Buscar por título" />
          </label>
          {shown.length === 0 ? <p className="text-sm text-ink-muted">Ningún borrador coincide con la búsqueda.</p> : null}
          <ul className="flex flex-col gap-2" data-testid="draft-list">
            {shown.map((draft) => (
              <li key={draft.id} className="flex items-center gap-2 rounded-card border border-line bg-surface p-3 shadow-card" data-testid="draft-row">
                <Link to={paths.draftEditor(draft.id)} className="min-w-0 flex-1">
                  <span className="block truncate font-semibold text-ink">{draft.title}</span>
                  <span className="block truncate text-sm text-ink-muted">
                    {draft.course_id ? `${courses.labels?.get(draft.course_id)?.name ?? 'Curso'} · ` : ''}
                    {draft.content_length} caracteres · editado el {formatDate(draft.updated_at)}
                  </span>
                </Link>
                <Button
                  variant="ghost"
                  className="shrink-0 px-2"
                  aria-label={`Duplicar ${draft.title}`}
                  onClick={() =>
                    duplicate.mutate(draft.id, {
                      onSuccess: () => notify.success('Borrador duplicado'),
                      onError: (error) => notify.error('No se pudo duplicar', refusal(error)),
                    })
                  }
                >
                  <Copy aria-hidden="true" className="size-4" />
                </Button>
                <Button variant="ghost" className="shrink-0 px-2 text-bad" aria-label={`Eliminar ${draft.title}`} onClick={() => setDeleting(draft)}>
                  <Trash2 aria-hidden="true" className="size-4" />
                </Button>
              </li>
            ))}
          </ul>
          <Link to={paths.planner} className={buttonClass('ghost', 'mt-3 -ml-3')}>
            Ver mis planificaciones
          </Link>
        </>
      )}
      {deleting ? (
        <ConfirmDialog
          title={`¿Eliminar «${deleting.title}»?`}
          description="El borrador y su texto se eliminan. Esta acción no se puede deshacer."
          confirmLabel="Eliminar borrador"
          confirmTestId="confirm-delete-draft"
          onClose={() => setDeleting(null)}
          onConfirm={() =>
            remove.mutate(deleting.id, {
              onSuccess: () => notify.success('Borrador eliminado'),
              onError: (error) => notify.error('No se pudo eliminar', refusal(error)),
            })
          }
        />
      ) : null}
    </div>
  )
}
