/** The content creators' resources: state, kind, level and subject, OAs; created, edited, deleted. */
import { BookMarked, Pencil, Plus, Search, Trash2 } from 'lucide-react'
import { useState } from 'react'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { EmptyState } from '@/components/ui/empty-state'
import { fieldClass } from '@/components/ui/field'
import { Skeleton } from '@/components/ui/skeleton'
import { cn } from '@/lib/cn'
import { formatDate } from '@/lib/dates'
import { notify } from '@/lib/notify'
import { useCurriculum } from '@/features/courses'
import { KIND_LABELS, STATUS_LABELS, useDeleteResource, useResources, type Resource, type ResourceStatus } from '@/features/content-creation/api/resources'
import { ResourceDialog } from './resource-dialog'

const STATUS_TONE: Record<ResourceStatus, string> = {
  borrador: 'bg-surface-muted text-ink-muted',
  en_revision: 'bg-wait-soft text-wait',
  publicado: 'bg-ok-soft text-ok',
  archivado: 'bg-surface-muted text-ink-muted',
}

const fold = (text: string) => text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLocaleLowerCase('es')

export function ResourcesPanel() {
  const resources = useResources(true)
  const curriculum = useCurriculum()
  const remove = useDeleteResource()
  const [editing, setEditing] = useState<Resource | 'new' | null>(null)
  const [deleting, setDeleting] = useState<Resource | null>(null)
  const [words, setWords] = useState('')
  const needle = fold(words.trim())
  const shown = (resources.data ?? []).filter((item) => !needle || fold(`${item.title} ${item.description} ${item.objectives.map((o) => o.code).join(' ')}`).includes(needle))
  const where = (item: Resource) => {
    if (!item.level_code || !item.subject_code) return 'Todos los niveles'
    const level = curriculum.data?.levels.find((entry) => entry.code === item.level_code)?.name ?? item.level_code
    return `${curriculum.data?.subjects.get(item.subject_code) ?? item.subject_code} · ${level}`
  }

  return (
    <div className="flex flex-col gap-4" data-testid="resources-panel">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
        <Button onClick={() => setEditing('new')} data-testid="new-resource">
          <Plus aria-hidden="true" className="size-4" /> Nuevo recurso
        </Button>
        <label className="relative block flex-1">
          <span className="sr-only">Buscar recursos</span>
          <Search aria-hidden="true" className="absolute top-3 left-3 size-5 text-ink-muted" />
          <input type="search" className={`${fieldClass} pl-10`} value={words} onChange={(event) => setWords(event.target.value)} placeholder="Buscar por título, descripción u OA" />
        </label>
      </div>
      {resources.isPending ? (
        <Skeleton className="h-40 w-full" />
      ) : resources.isError ? (
        <p role="alert" className="text-bad">
          No se pudieron cargar los recursos.
        </p>
      ) : resources.data.length === 0 ? (
        <EmptyState icon={BookMarked} title="Aún no hay recursos" description="Crea guías, actividades, evaluaciones o rúbricas y asócialas a los OA del currículum. Los docentes verán las publicadas." />
      ) : (
        <ul className="flex flex-col gap-2" data-testid="resource-list">
          {shown.map((item) => (
            <li key={item.id} className="flex flex-col gap-3 rounded-card border border-line bg-surface p-4 shadow-card sm:flex-row sm:items-center" data-testid="resource">
              <div className="min-w-0 flex-1">
                <div className="mb-1 flex flex-wrap items-center gap-2 text-xs">
                  <span className={cn('rounded-full px-2 py-0.5 font-semibold', STATUS_TONE[item.status])} data-testid="resource-status">
                    {STATUS_LABELS[item.status]}
                  </span>
                  <span className="text-ink-muted">{KIND_LABELS[item.kind]}</span>
                  <span className="text-ink-muted">{where(item)}</span>
                  <span className="text-ink-muted">editado el {formatDate(item.updated_at)}</span>
                </div>
                <p className="font-semibold text-ink">{item.title}</p>
                {item.description ? <p className="text-sm text-ink-muted">{item.description}</p> : null}
                {item.objectives.length > 0 ? <p className="mt-1 text-xs text-ink-muted">{item.objectives.map((objective) => objective.code).join(' · ')}</p> : null}
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
          ))}
          {shown.length === 0 ? <li className="text-sm text-ink-muted">Ningún recurso coincide con la búsqueda.</li> : null}
        </ul>
      )}
      {editing ? <ResourceDialog resource={editing === 'new' ? null : editing} onClose={() => setEditing(null)} /> : null}
      {deleting ? (
        <ConfirmDialog
          title="¿Eliminar el recurso?"
          description={`«${deleting.title}» se eliminará con sus OA asociados y no se puede recuperar.`}
          confirmLabel="Eliminar"
          onClose={() => setDeleting(null)}
          onConfirm={() =>
            remove.mutate(deleting.id, {
              onSuccess: () => notify.success('Recurso eliminado', deleting.title),
              onError: () => notify.error('No se pudo eliminar el recurso', 'Inténtalo de nuevo.'),
              onSettled: () => setDeleting(null),
            })
          }
        />
      ) : null}
    </div>
  )
}
