/** Every announcement for an admin, with its state and audience: written, edited, deleted here. */
import { Megaphone, Pencil, Plus, Trash2 } from 'lucide-react'
import { useState } from 'react'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { EmptyState } from '@/components/ui/empty-state'
import { Skeleton } from '@/components/ui/skeleton'
import { cn } from '@/lib/cn'
import { formatDate } from '@/lib/dates'
import { notify } from '@/lib/notify'
import {
  AUDIENCE_LABELS,
  STATE_LABELS,
  announcementState,
  useAllAnnouncements,
  useDeleteAnnouncement,
  type AnnouncementRow,
  type AnnouncementState,
} from '@/features/announcements/api/manage'
import { AnnouncementDialog } from './announcement-dialog'

const STATE_TONE: Record<AnnouncementState, string> = {
  draft: 'bg-surface-muted text-ink-muted',
  scheduled: 'bg-wait-soft text-wait',
  published: 'bg-ok-soft text-ok',
  expired: 'bg-surface-muted text-ink-muted',
}

export function AnnouncementsAdmin() {
  const announcements = useAllAnnouncements()
  const remove = useDeleteAnnouncement()
  const [editing, setEditing] = useState<AnnouncementRow | 'new' | null>(null)
  const [deleting, setDeleting] = useState<AnnouncementRow | null>(null)

  return (
    <div className="flex flex-col gap-4" data-testid="announcements-admin">
      <div>
        <Button onClick={() => setEditing('new')} data-testid="new-announcement">
          <Plus aria-hidden="true" className="size-4" /> Nuevo anuncio
        </Button>
      </div>
      {announcements.isPending ? (
        <Skeleton className="h-40 w-full" />
      ) : announcements.isError ? (
        <p role="alert" className="text-bad">
          No se pudieron cargar los anuncios.
        </p>
      ) : announcements.data.length === 0 ? (
        <EmptyState icon={Megaphone} title="Aún no hay anuncios" description="Escribe el primero: los docentes lo verán en Anuncios." />
      ) : (
        <ul className="flex flex-col gap-2" data-testid="admin-announcement-list">
          {announcements.data.map((item) => {
            const state = announcementState(item)
            return (
              <li key={item.id} className="flex flex-col gap-3 rounded-card border border-line bg-surface p-4 shadow-card sm:flex-row sm:items-center" data-testid="admin-announcement">
                <div className="min-w-0 flex-1">
                  <div className="mb-1 flex flex-wrap items-center gap-2 text-xs">
                    <span className={cn('rounded-full px-2 py-0.5 font-semibold', STATE_TONE[state])} data-testid="announcement-state">
                      {STATE_LABELS[state]}
                    </span>
                    <span className="text-ink-muted">{AUDIENCE_LABELS[item.audience]}</span>
                    {item.is_pinned ? <span className="text-ink-muted">Destacado</span> : null}
                    <span className="text-ink-muted">
                      {item.published_at ? `desde ${formatDate(item.published_at)}` : `creado el ${formatDate(item.created_at)}`}
                      {item.expires_at ? ` · hasta ${formatDate(item.expires_at)}` : ''}
                    </span>
                  </div>
                  <p className="truncate font-semibold text-ink">{item.title}</p>
                </div>
                <div className="flex gap-2">
                  <Button variant="secondary" className="min-h-9" onClick={() => setEditing(item)} aria-label={`Editar «${item.title}»`}>
                    <Pencil aria-hidden="true" className="size-4" /> Editar
                  </Button>
                  <Button variant="ghost" className="min-h-9" onClick={() => setDeleting(item)} aria-label={`Eliminar «${item.title}»`}>
                    <Trash2 aria-hidden="true" className="size-4" />
                  </Button>
                </div>
              </li>
            )
          })}
        </ul>
      )}
      {editing ? <AnnouncementDialog announcement={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
      {deleting ? (
        <ConfirmDialog
          title="¿Eliminar el anuncio?"
          description={`«${deleting.title}» dejará de verse y no se puede recuperar.`}
          confirmLabel="Eliminar"
          confirmTestId="confirm-delete-announcement"
          onClose={() => setDeleting(null)}
          onConfirm={() =>
            remove.mutate(deleting.id, {
              onSuccess: () => notify.success('Anuncio eliminado', deleting.title),
              onError: () => notify.error('No se pudo eliminar el anuncio', 'Inténtalo de nuevo.'),
              onSettled: () => setDeleting(null),
            })
          }
        />
      ) : null}
    </div>
  )
}
