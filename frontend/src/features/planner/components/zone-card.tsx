/**
 * One zone of a class plan: its name (renamed in place), moved up or down, removed, and its
 * editor, saved as the teacher writes. A conflict with another tab or device is shown on the
 * zone with the two ways out; the teacher's text stays in the editor until she chooses.
 */
import type { Editor } from '@tiptap/react'
import { ArrowDown, ArrowUp, Sparkles, Trash2 } from 'lucide-react'
import { lazy, Suspense, useCallback, useEffect, useId, useRef, useState } from 'react'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import type { Json } from '@/lib/database.types'
import { cn } from '@/lib/cn'
import { notify } from '@/lib/notify'
import type { DocumentSave } from '@/lib/autosave-machine'
import type { Zone } from '@/features/planner/api/plans'
import { useZoneAutosave } from '@/features/planner/api/zone-autosave'
import { ZONE_HINTS, ZONE_TYPE_LABELS, zoneTitleProblem } from '@/features/planner/zones'

const RichTextEditor = lazy(() => import('@/components/editor/rich-text-editor'))

/** What the page may do with a zone's editor (fill it with generated text). */
export interface ZoneHandle {
  editor: Editor
}

export interface ZoneCardProps {
  zone: Zone
  isFirst: boolean
  isLast: boolean
  onMove: (direction: 'up' | 'down') => void
  onRename: (title: string) => void
  onRemove: () => void
  onSaveState: (zoneId: string, state: DocumentSave) => void
  onHandle: (zoneId: string, handle: ZoneHandle | null) => void
  /** Rewrites the zone with AI, following the teacher's instruction (absent: not offered). */
  onImprove?: (instruction: string) => Promise<void>
  busy?: boolean
}

export function ZoneCard({ zone, isFirst, isLast, onMove, onRename, onRemove, onSaveState, onHandle, onImprove, busy = false }: ZoneCardProps) {
  const editorRef = useRef<Editor | null>(null)
  const replace = useCallback((content: Json) => {
    editorRef.current?.commands.setContent(content as object, { emitUpdate: false })
  }, [])
  const autosave = useZoneAutosave(zone, replace)
  // Zones migrated from legacy plans have no title of their own: they show their kind's.
  const shownTitle = zone.title ?? ZONE_TYPE_LABELS[zone.zone_type]
  const [title, setTitle] = useState(shownTitle)
  const [titleProblem, setTitleProblem] = useState<string | null>(null)
  const [improving, setImproving] = useState<'closed' | 'asking' | 'working'>('closed')
  const [instruction, setInstruction] = useState('')
  const titleId = useId()
  const instructionId = useId()
  const working = busy || improving === 'working'

  useEffect(() => onSaveState(zone.id, autosave.state), [zone.id, autosave.state, onSaveState])
  useEffect(() => () => onHandle(zone.id, null), [zone.id, onHandle])

  const commitTitle = () => {
    const problem = zoneTitleProblem(title)
    setTitleProblem(problem)
    if (problem) return
    if (title.trim() !== shownTitle) onRename(title.trim())
  }

  const status = autosave.state.status
  return (
    <section
      className={cn('rounded-card border bg-surface p-3 shadow-card sm:p-4 print:break-inside-avoid print:border-0 print:p-0 print:shadow-none', status === 'conflict' || status === 'refused' ? 'border-bad' : 'border-line')}
      aria-labelledby={titleId}
      data-testid="zone"
      data-zone-id={zone.id}
      data-zone-type={zone.zone_type}
      data-save-status={status}
    >
      <div className="mb-2 flex items-start gap-2">
        <div className="min-w-0 flex-1">
          <label htmlFor={titleId} className="sr-only">
            Nombre de la zona
          </label>
          <input
            id={titleId}
            value={title}
            maxLength={200}
            onChange={(event) => setTitle(event.target.value)}
            onBlur={commitTitle}
            onKeyDown={(event) => {
              if (event.key === 'Enter') event.currentTarget.blur()
            }}
            className="w-full rounded-md border border-transparent bg-transparent px-1 py-0.5 text-lg font-semibold text-ink hover:border-line focus:border-brand focus:outline-none"
            data-testid="zone-title"
          />
          {titleProblem ? (
            <p role="alert" className="text-sm text-bad">
              {titleProblem}
            </p>
          ) : null}
        </div>
        <div className="flex shrink-0 gap-1 print:hidden">
          {onImprove ? (
            <Button variant="ghost" className="min-h-9 px-2 text-brand" aria-label={`Mejorar ${title} con IA`} disabled={working} onClick={() => setImproving('asking')} data-testid="improve-zone">
              <Sparkles aria-hidden="true" className="size-4" />
            </Button>
          ) : null}
          <Button variant="ghost" className="min-h-9 px-2" aria-label={`Subir ${title}`} disabled={isFirst || working} onClick={() => onMove('up')}>
            <ArrowUp aria-hidden="true" className="size-4" />
          </Button>
          <Button variant="ghost" className="min-h-9 px-2" aria-label={`Bajar ${title}`} disabled={isLast || working} onClick={() => onMove('down')}>
            <ArrowDown aria-hidden="true" className="size-4" />
          </Button>
          <Button variant="ghost" className="min-h-9 px-2 text-bad" aria-label={`Quitar ${title}`} disabled={working} onClick={onRemove}>
            <Trash2 aria-hidden="true" className="size-4" />
          </Button>
        </div>
      </div>

      {improving !== 'closed' && onImprove ? (
        <form
          className="mb-2 flex flex-col gap-2 rounded-lg bg-brand-soft p-3 print:hidden"
          onSubmit={(event) => {
            event.preventDefault()
            setImproving('working')
            onImprove(instruction)
              .then(() => {
                setInstruction('')
                setImproving('closed')
              })
              .catch(() => setImproving('asking'))
          }}
        >
          <label htmlFor={instructionId} className="text-sm font-medium text-ink">
            ¿Qué quieres mejorar? (opcional; sin indicación, la IA la escribe de nuevo · ≈ 1–2 estrellas)
          </label>
          <textarea
            id={instructionId}
            className="min-h-16 rounded-lg border border-line bg-surface px-3 py-2 text-sm text-ink"
            maxLength={2000}
            value={instruction}
            onChange={(event) => setInstruction(event.target.value)}
            placeholder="Ej.: más breve, con una actividad en grupos"
          />
          <div className="flex gap-2">
            <Button type="submit" className="min-h-9" disabled={improving === 'working'} data-testid="confirm-improve">
              {improving === 'working' ? 'Mejorando…' : 'Mejorar zona'}
            </Button>
            <Button variant="ghost" className="min-h-9" disabled={improving === 'working'} onClick={() => setImproving('closed')}>
              Cancelar
            </Button>
          </div>
        </form>
      ) : null}
      {status === 'conflict' ? (
        <div role="alert" className="mb-2 flex flex-col gap-2 rounded-lg bg-bad-soft p-3 text-sm text-bad" data-testid="zone-conflict">
          <p>Esta zona se guardó en otra pestaña o dispositivo mientras escribías. Tu texto sigue aquí; elige cuál queda.</p>
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" className="min-h-9" onClick={() => void autosave.keepMine().catch(() => notify.error('No se pudo resolver', 'Revisa tu conexión.'))}>
              Guardar mi versión
            </Button>
            <Button variant="ghost" className="min-h-9" onClick={() => void autosave.takeTheirs().catch(() => notify.error('No se pudo resolver', 'Revisa tu conexión.'))}>
              Usar la otra versión
            </Button>
          </div>
        </div>
      ) : null}
      {status === 'refused' && autosave.state.message ? (
        <p role="alert" className="mb-2 rounded-lg bg-bad-soft p-3 text-sm text-bad">
          No se pudo guardar esta zona: {autosave.state.message}
        </p>
      ) : null}

      <Suspense fallback={<Skeleton className="h-24 w-full" />}>
        <RichTextEditor
          initialContent={autosave.initialContent}
          placeholder={ZONE_HINTS[zone.zone_type]}
          label={title || 'Zona'}
          editable={!working}
          onChange={autosave.change}
          onReady={(editor) => {
            editorRef.current = editor
            onHandle(zone.id, { editor })
          }}
        />
      </Suspense>
    </section>
  )
}
