/**
 * Anuncios: what the Cielo team tells teachers — news, changes, the Demo 2025 — pinned ones
 * first. The ones not seen before carry "Nuevo" during this visit and are recorded as read.
 */
import { Megaphone, Pin } from 'lucide-react'
import { useEffect } from 'react'
import { EmptyState } from '@/components/ui/empty-state'
import { MarkdownText } from '@/components/ui/markdown-text'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { useAnnouncements, useMarkAnnouncementsRead } from '@/features/announcements'
import { formatLongDate } from '@/lib/dates'

export default function AnnouncementsRoute() {
  const announcements = useAnnouncements()
  const markRead = useMarkAnnouncementsRead()
  const { mutate } = markRead

  useEffect(() => {
    const unread = announcements.data?.filter((item) => item.unread).map((item) => item.id) ?? []
    if (unread.length > 0) mutate(unread)
  }, [announcements.data, mutate])

  return (
    <div data-testid="page-announcements">
      <PageHeader title="Anuncios" description="Novedades del equipo de Cielo: cambios en la plataforma, la Demo 2025 y lo que viene." />
      {announcements.isPending ? (
        <Skeleton className="h-40 w-full" />
      ) : announcements.isError ? (
        <p role="alert" className="text-bad">
          No se pudieron cargar los anuncios.
        </p>
      ) : announcements.data.length === 0 ? (
        <EmptyState icon={Megaphone} title="No hay anuncios por ahora" description="Cuando el equipo de Cielo publique una novedad, la verás aquí." />
      ) : (
        <ul className="flex max-w-3xl flex-col gap-3" data-testid="announcement-list">
          {announcements.data.map((item) => (
            <li key={item.id} data-testid="announcement" className="rounded-card border border-line bg-surface p-4 shadow-card sm:p-5">
              <article aria-labelledby={`announcement-${item.id}`}>
                <div className="mb-1 flex flex-wrap items-center gap-2">
                  {item.is_pinned ? (
                    <span className="inline-flex items-center gap-1 rounded-full bg-brand-soft px-2 py-0.5 text-xs font-semibold text-brand-strong">
                      <Pin aria-hidden="true" className="size-3" /> Destacado
                    </span>
                  ) : null}
                  {item.unread ? (
                    <span className="rounded-full bg-wait-soft px-2 py-0.5 text-xs font-semibold text-wait" data-testid="announcement-new">
                      Nuevo
                    </span>
                  ) : null}
                  {item.published_at ? <span className="text-xs text-ink-muted">{formatLongDate(item.published_at)}</span> : null}
                </div>
                <h2 id={`announcement-${item.id}`} className="text-lg font-semibold text-ink">
                  {item.title}
                </h2>
                {item.body ? <MarkdownText text={item.body} className="mt-2 text-sm" /> : null}
              </article>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
