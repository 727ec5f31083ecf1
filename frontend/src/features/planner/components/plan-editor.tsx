/**
 * A simple plan open for editing: its title, course, class and OAs above; its zones, each
 * saved as the teacher writes, which she renames, reorders, removes and adds; the page's one
 * save state; "Generar con IA" (its star cost said first), which fills the zones as the text
 * streams in and puts them back as they were if the generation fails; the print view. A plan
 * still in the legacy format is migrated into zones when opened, and the teacher is told.
 */
import { ListChecks, Loader2, Plus, Printer, Sparkles } from 'lucide-react'
import { lazy, Suspense, useCallback, useEffect, useId, useRef, useState } from 'react'
import { Navigate } from 'react-router'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { fieldClass } from '@/components/ui/field'
import { Skeleton } from '@/components/ui/skeleton'
import type { CourseLabel, Course } from '@/features/courses'
import { generationBlock, useDemoStars, useRecordStarUse } from '@/features/demo-stars'
import type { Json } from '@/lib/database.types'
import { paths } from '@/config/paths'
import { formatLongDate } from '@/lib/dates'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { useSupabase } from '@/lib/supabase-provider'
import { overallStatus, type DocumentSave } from '@/lib/autosave-machine'
import { SaveIndicator } from '@/components/editor/save-indicator'
import { estimatedStars, generatePlan, starsUsed, GenerationError, improvableKind, improveZone, type GeneratedZone } from '@/features/planner/api/generate'
import { useMigrateLegacy, usePlan, usePlanZones, useRenamePlan, useZoneStructure, type PlanClass, type PlanDetail, type Zone } from '@/features/planner/api/plans'
import { useRenameClass } from '@/features/planner/api/units'
import { progression } from '@/features/planner/sequence'
import { migrationNotice, needsMigration } from '@/features/planner/legacy'
import { fillPlaceholder, matchZones, MAX_PLAN_OBJECTIVES } from '@/features/planner/generation'
import { addZoneProblem, byPosition, movedOrder, nextPosition, STANDARD_ZONES, ZONE_TYPE_LABELS, zoneTitleProblem, type ZoneType } from '@/features/planner/zones'
import { ZoneCard, type ZoneHandle } from './zone-card'

// Loaded when first opened.
const ObjectivesDialog = lazy(() => import('./objectives-dialog').then((module) => ({ default: module.ObjectivesDialog })))

export interface PlanEditorProps {
  planId: string
  /** Which class of a unit (Plan. Secuencial); a simple plan's only class when absent. */
  classId?: string
  courses: Course[]
  labels: Map<string, CourseLabel>
}

export function PlanEditor({ planId, classId, courses, labels }: PlanEditorProps) {
  const plan = usePlan(planId)
  const planClass = classId ? plan.data?.classes.find((c) => c.id === classId) : plan.data?.classes[0]
  const migrate = useMigrateLegacy()
  const [notice, setNotice] = useState<string | null>(null)
  const migrating = planClass ? needsMigration(planClass) : false

  useEffect(() => {
    if (!planClass || !needsMigration(planClass) || migrate.isPending || migrate.isSuccess || migrate.isError) return
    migrate.mutate(planClass.id, {
      onSuccess: (outcome) => setNotice(migrationNotice(outcome)),
      onError: (error) => notify.error('No se pudo abrir la planificación', isDatabaseError(error) ? databaseErrorMessage(error) : undefined),
    })
  }, [planClass, migrate])

  if (plan.isPending) return <Skeleton className="h-96 w-full" />
  if (plan.isError) return <p role="alert" className="text-bad">No se pudo cargar la planificación.</p>
  if (!plan.data || !planClass) {
    return (
      <p role="alert" className="text-bad" data-testid="plan-not-found">
        Esta planificación no existe o no es tuya.
      </p>
    )
  }
  // A unit opened as a simple plan (a calendar link) goes to its overview.
  if (plan.data.kind === 'secuencial' && !classId) return <Navigate replace to={paths.sequentialSession(plan.data.id)} />
  const course = courses.find((c) => c.id === plan.data?.course_id)
  return (
    <div className="flex flex-col gap-4" data-testid="plan-editor">
      {notice ? (
        <p role="status" className="rounded-card bg-brand-soft p-3 text-sm text-ink" data-testid="legacy-notice">
          {notice}
        </p>
      ) : null}
      {migrating ? (
        <Skeleton className="h-64 w-full" />
      ) : (
        <ClassZones key={planClass.id} plan={plan.data} planClass={planClass} course={course} label={course ? labels.get(course.id) : undefined} />
      )}
    </div>
  )
}

interface ClassZonesProps {
  plan: PlanDetail
  planClass: PlanClass
  course: Course | undefined
  label: CourseLabel | undefined
}

function ClassZones({ plan, planClass, course, label }: ClassZonesProps) {
  const supabase = useSupabase()
  const planClassId = planClass.id
  const zones = usePlanZones(planClassId)
  const structure = useZoneStructure(planClassId)
  const renamePlan = useRenamePlan(plan.id)
  const renameClass = useRenameClass(plan.id)
  const demo = useDemoStars()
  const recordStarUse = useRecordStarUse()
  // A class of a unit is titled on its own and works its share of the unit's OAs.
  const inUnit = plan.kind === 'secuencial'
  const savedTitle = inUnit ? (planClass.title ?? `Clase ${planClass.position}`) : plan.title
  const objectives = inUnit ? (progression(plan.objectives, plan.class_count)[planClass.position - 1] ?? []) : plan.objectives
  const [title, setTitle] = useState(savedTitle)
  const [saveStates, setSaveStates] = useState<Record<string, DocumentSave>>({})
  const handles = useRef(new Map<string, ZoneHandle>())
  const [generating, setGenerating] = useState(false)
  const [removing, setRemoving] = useState<Zone | null>(null)
  const [confirmGenerate, setConfirmGenerate] = useState(false)
  const [editingObjectives, setEditingObjectives] = useState(false)
  const titleId = useId()

  const onSaveState = useCallback((zoneId: string, state: DocumentSave) => {
    setSaveStates((current) => (current[zoneId] === state ? current : { ...current, [zoneId]: state }))
  }, [])
  const onHandle = useCallback((zoneId: string, handle: ZoneHandle | null) => {
    if (handle) handles.current.set(zoneId, handle)
    else handles.current.delete(zoneId)
  }, [])

  if (zones.isPending) return <Skeleton className="h-64 w-full" />
  if (zones.isError) return <p role="alert" className="text-bad">No se pudieron cargar las zonas.</p>
  const ordered = byPosition(zones.data)
  const overall = overallStatus(ordered.map((zone) => saveStates[zone.id]).filter((state): state is DocumentSave => Boolean(state)))
  const cost = estimatedStars()
  const blocked = generationBlock(demo.data)
  const noStars = blocked !== null
  const session = planClass.session

  const hasText = () =>
    [...handles.current.values()].some((handle) => handle.editor.getText().trim().length > 0)

  async function generate() {
    if (!course) return
    const targets = matchZones(ordered)
    const before = new Map([...handles.current].map(([id, handle]) => [id, handle.editor.getJSON() as Json]))
    const set = (zoneId: string | undefined, content: Json) => {
      if (zoneId) handles.current.get(zoneId)?.editor.commands.setContent(content as object, { emitUpdate: true })
    }
    let skeleton: GeneratedZone[] = []
    const written = new Map<number, string>()
    setGenerating(true)
    try {
      const answer = await generatePlan(
        supabase,
        {
          level_code: course.level_code,
          subject_code: course.subject_code,
          objective_codes: objectives.map((objective) => objective.code),
          blocks: plan.class_blocks,
          ...(label ? { course: label.name } : {}),
          class_title: inUnit ? `${savedTitle} (unidad «${plan.title}»)` : plan.title,
        },
        {
          onSkeleton: (generated) => {
            skeleton = generated
            generated.forEach((zone, index) => set(targets(generated)[index], zone.content))
          },
          onDelta: (index, text) => {
            written.set(index, (written.get(index) ?? '') + text)
            const zone = skeleton[index]
            if (zone) set(targets(skeleton)[index], fillPlaceholder(zone.content, written.get(index) ?? ''))
          },
        },
      )
      answer.zones.forEach((zone, index) => set(targets(answer.zones)[index], zone.content))
      recordStarUse(answer.usage.stars_charged)
      notify.success(
        'Planificación generada',
        answer.source === 'skeleton'
          ? 'Sin modelo de IA: las zonas traen la estructura para completar.'
          : `${starsUsed(answer.usage.stars_charged)}Revísala antes de usarla.`,
      )
    } catch (error) {
      // Nothing half-written: every zone goes back to what it was.
      for (const [id, content] of before) set(id, content)
      // A refusal for the demo's stars or dates: the widget and the button catch up at once.
      if (error instanceof GenerationError && ['stars_exhausted', 'demo_expired'].includes(error.code)) recordStarUse(0)
      notify.error('No se generó la planificación', error instanceof GenerationError ? error.message : 'Revisa tu conexión e inténtalo de nuevo.')
    } finally {
      setGenerating(false)
    }
  }

  async function improve(zone: Zone, instruction: string) {
    const kind = improvableKind(zone.zone_type, zone.title)
    const handle = handles.current.get(zone.id)
    if (!course || !kind || !handle) return
    try {
      const { zone: improved, charged } = await improveZone(supabase, {
        level_code: course.level_code,
        subject_code: course.subject_code,
        objective_codes: objectives.map((objective) => objective.code),
        zone_type: kind,
        content: handle.editor.getJSON() as Json,
        ...(instruction.trim() ? { instruction: instruction.trim() } : {}),
        blocks: plan.class_blocks,
        ...(label ? { course: label.name } : {}),
        class_title: savedTitle,
      })
      handle.editor.commands.setContent(improved.content as object, { emitUpdate: true })
      recordStarUse(charged)
      notify.success('Zona mejorada', `${starsUsed(charged)}Revisa el resultado; deshacer (Ctrl+Z) la deja como estaba.`)
    } catch (error) {
      notify.error('No se mejoró la zona', error instanceof GenerationError ? error.message : 'Revisa tu conexión e inténtalo de nuevo.')
      throw error
    }
  }

  return (
    <>
      <header className="flex flex-col gap-3 rounded-card border border-line bg-surface p-4 shadow-card print:border-0 print:p-0 print:shadow-none">
        {inUnit ? (
          <p className="text-sm font-medium text-brand-strong" data-testid="unit-class-position">
            Clase {planClass.position} de {plan.class_count} · {plan.title}
          </p>
        ) : null}
        <label htmlFor={titleId} className="sr-only">
          {inUnit ? 'Título de la clase' : 'Título de la planificación'}
        </label>
        <input
          id={titleId}
          value={title}
          maxLength={200}
          onChange={(event) => setTitle(event.target.value)}
          onBlur={() => {
            if (zoneTitleProblem(title) !== null || title.trim() === savedTitle) return
            if (inUnit) renameClass.mutate({ classId: planClassId, title })
            else renamePlan.mutate(title)
          }}
          className="w-full rounded-md border border-transparent bg-transparent px-1 text-xl font-bold text-ink hover:border-line focus:border-brand focus:outline-none sm:text-2xl"
          data-testid="plan-title"
        />
        <p className="text-sm text-ink-muted">
          {label?.name ?? 'Curso'}
          {session ? ` · ${formatLongDate(session.session_date)} · ${session.start_time.slice(0, 5)}` : ' · sin clase del calendario'}
          {` · ${plan.class_blocks} ${plan.class_blocks === 1 ? 'bloque' : 'bloques'} de 45 min`}
        </p>
        <ul className="flex flex-col gap-1 text-sm" aria-label="Objetivos de aprendizaje" data-testid="plan-objectives">
          {objectives.map((objective) => (
            <li key={objective.id} className="text-ink">
              <strong>{objective.code}</strong> {objective.statement}
            </li>
          ))}
        </ul>
        {!inUnit && course ? (
          <div className="print:hidden">
            <Button variant="ghost" className="px-2 text-sm" onClick={() => setEditingObjectives(true)} data-testid="edit-objectives">
              <ListChecks aria-hidden="true" className="size-4" /> Cambiar OA
            </Button>
          </div>
        ) : null}
        <div className="flex flex-col gap-2 border-t border-line pt-3 sm:flex-row sm:items-center sm:justify-between print:hidden">
          <SaveIndicator status={overall} />
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" onClick={() => window.print()}>
              <Printer aria-hidden="true" className="size-4" /> Imprimir
            </Button>
            <Button
              onClick={() => (hasText() ? setConfirmGenerate(true) : void generate())}
              disabled={generating || noStars || objectives.length === 0}
              data-testid="generate-plan"
            >
              {generating ? <Loader2 aria-hidden="true" className="size-4 animate-spin" /> : <Sparkles aria-hidden="true" className="size-4" />}
              {generating ? 'Generando…' : `Generar con IA · ≈ ${cost.low}–${cost.high} estrellas`}
            </Button>
          </div>
        </div>
        {objectives.length === 0 ? (
          <p className="text-sm text-ink-muted print:hidden" data-testid="no-objectives">
            Esta planificación no tiene OA: la generación con IA necesita al menos uno.
          </p>
        ) : null}
        {noStars ? (
          <p role="status" className="text-sm text-bad print:hidden" data-testid="no-stars">
            {blocked}
          </p>
        ) : null}
      </header>

      {ordered.length === 0 ? (
        <div className="flex flex-col items-start gap-2 rounded-card border border-dashed border-line p-4 print:hidden" data-testid="no-zones">
          <p className="text-ink">Esta clase aún no tiene zonas.</p>
          <Button
            variant="secondary"
            disabled={structure.addStandard.isPending}
            data-testid="add-standard-zones"
            onClick={() =>
              structure.addStandard.mutate(inUnit ? STANDARD_ZONES.slice(0, 5) : STANDARD_ZONES, {
                onError: (error) => notify.error('No se pudieron agregar las zonas', isDatabaseError(error) ? databaseErrorMessage(error) : undefined),
              })
            }
          >
            <Plus aria-hidden="true" className="size-4" /> {inUnit ? 'Agregar objetivo, inicio, desarrollo, cierre y evaluación' : 'Agregar las zonas habituales'}
          </Button>
        </div>
      ) : null}
      <div className="flex flex-col gap-3" data-testid="zones">
        {ordered.map((zone, index) => (
          <ZoneCard
            key={zone.id}
            zone={zone}
            isFirst={index === 0}
            isLast={index === ordered.length - 1}
            busy={generating}
            onSaveState={onSaveState}
            onHandle={onHandle}
            onRename={(newTitle) => structure.rename.mutate({ id: zone.id, title: newTitle })}
            {...(improvableKind(zone.zone_type, zone.title) && objectives.length > 0 && !noStars
              ? { onImprove: (instruction: string) => improve(zone, instruction) }
              : {})}
            onRemove={() => setRemoving(zone)}
            onMove={(direction) => {
              const order = movedOrder(ordered, zone.id, direction)
              if (order)
                structure.reorder.mutate(order, {
                  onError: (error) => notify.error('No se pudo mover la zona', isDatabaseError(error) ? databaseErrorMessage(error) : undefined),
                })
            }}
          />
        ))}
      </div>
      <AddZone zones={ordered} disabled={generating} onAdd={(zoneType, newTitle) =>
        structure.add.mutate(
          { zoneType, title: newTitle, position: nextPosition(ordered) },
          { onError: (error) => notify.error('No se pudo agregar la zona', isDatabaseError(error) ? databaseErrorMessage(error) : undefined) },
        )
      } />

      {removing ? (
        <ConfirmDialog
          title={`¿Quitar «${removing.title ?? ZONE_TYPE_LABELS[removing.zone_type]}»?`}
          description="La zona y su texto salen de la planificación."
          confirmLabel="Quitar zona"
          confirmTestId="confirm-remove-zone"
          onClose={() => setRemoving(null)}
          onConfirm={() =>
            structure.remove.mutate(removing.id, {
              onError: (error) => notify.error('No se pudo quitar la zona', isDatabaseError(error) ? databaseErrorMessage(error) : undefined),
            })
          }
        />
      ) : null}
      {editingObjectives && course ? (
        <Suspense fallback={null}>
          <ObjectivesDialog
            planId={plan.id}
            levelCode={course.level_code}
            subjectCode={course.subject_code}
            current={plan.objectives}
            max={MAX_PLAN_OBJECTIVES}
            onClose={() => setEditingObjectives(false)}
          />
        </Suspense>
      ) : null}
      {confirmGenerate ? (
        <ConfirmDialog
          title="¿Reemplazar el texto de las zonas?"
          description="La IA escribirá cada zona de nuevo. Si la generación falla, tus zonas quedan como estaban."
          confirmLabel="Generar"
          confirmTestId="confirm-generate"
          onClose={() => setConfirmGenerate(false)}
          onConfirm={() => void generate()}
        />
      ) : null}
    </>
  )
}

const ADDABLE: ZoneType[] = ['notas', 'recursos', 'evaluacion', 'adecuaciones', 'desarrollo', 'inicio', 'cierre', 'objetivo', 'planificacion_base']

function AddZone({ zones, disabled, onAdd }: { zones: Zone[]; disabled: boolean; onAdd: (zoneType: ZoneType, title: string) => void }) {
  const [zoneType, setZoneType] = useState<ZoneType>('notas')
  const [title, setTitle] = useState('')
  const problem = addZoneProblem(zones)
  const ids = { type: useId(), title: useId() }
  return (
    <form
      className="flex flex-col gap-2 rounded-card border border-dashed border-line p-3 sm:flex-row sm:items-end print:hidden"
      onSubmit={(event) => {
        event.preventDefault()
        const name = title.trim() || ZONE_TYPE_LABELS[zoneType]
        if (problem || zoneTitleProblem(name)) return
        onAdd(zoneType, name)
        setTitle('')
      }}
    >
      <label htmlFor={ids.type} className="flex flex-1 flex-col gap-1 text-sm font-medium text-ink">
        Tipo de zona
        <select id={ids.type} className={fieldClass} value={zoneType} onChange={(event) => setZoneType(event.target.value as ZoneType)}>
          {ADDABLE.map((type) => (
            <option key={type} value={type}>
              {ZONE_TYPE_LABELS[type]}
            </option>
          ))}
        </select>
      </label>
      <label htmlFor={ids.title} className="flex flex-[2] flex-col gap-1 text-sm font-medium text-ink">
        Nombre (opcional)
        <input id={ids.title} className={fieldClass} value={title} maxLength={200} onChange={(event) => setTitle(event.target.value)} placeholder={ZONE_TYPE_LABELS[zoneType]} />
      </label>
      <Button type="submit" variant="secondary" disabled={disabled || problem !== null} data-testid="add-zone">
        <Plus aria-hidden="true" className="size-4" /> Agregar zona
      </Button>
      {problem ? <p className="text-sm text-bad">{problem}</p> : null}
    </form>
  )
}
