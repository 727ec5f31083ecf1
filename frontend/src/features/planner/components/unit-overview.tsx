/**
 * A unit (Plan. Secuencial) at a glance: its course, OAs and progress (classes with text,
 * taught, cancelled), and each class with its date, state, phase and OAs, opening in the class
 * editor. "Generar unidad con IA" (its star cost said first) writes every class as one
 * progression: the text is shown as it streams in and written into the unit in one
 * transaction at the end, so a failed generation leaves the unit as it was.
 */
import { CalendarDays, ChevronRight, ListChecks, Loader2, Sparkles } from 'lucide-react'
import { lazy, Suspense, useState } from 'react'
import { Link } from 'react-router'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { paths } from '@/config/paths'
import type { CourseLabel, Course } from '@/features/courses'
import { generationBlock, useDemoStars, useRecordStarUse } from '@/features/demo-stars'
import { cn } from '@/lib/cn'
import { formatClassDay } from '@/lib/dates'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { useSupabase } from '@/lib/supabase-provider'
import { generateSequence, starsUsed, GenerationError, type GeneratedClass } from '@/features/planner/api/generate'
import type { PlanClass, PlanDetail } from '@/features/planner/api/plans'
import { useApplyUnit } from '@/features/planner/api/units'
import { estimatedUnitStars, phase, progression, UNIT_GENERATION, unitGenerationProblem, unitProgress } from '@/features/planner/sequence'

// Loaded when first opened.
const ObjectivesDialog = lazy(() => import('./objectives-dialog').then((module) => ({ default: module.ObjectivesDialog })))

/** What the stream has written so far, per class: zones finished and the latest text. */
type Streamed = Record<number, { zones: number; text: string }>

export function UnitOverview({ unit, course, label }: { unit: PlanDetail; course: Course | undefined; label: CourseLabel | undefined }) {
  const supabase = useSupabase()
  const apply = useApplyUnit(unit.id)
  const demo = useDemoStars()
  const recordStarUse = useRecordStarUse()
  const [generating, setGenerating] = useState(false)
  const [streamed, setStreamed] = useState<Streamed>({})
  const [confirm, setConfirm] = useState(false)
  const [editingObjectives, setEditingObjectives] = useState(false)
  const progress = unitProgress(unit.classes.map((c) => ({ status: c.session?.status ?? null, written: c.written })))
  const spread = progression(unit.objectives, unit.class_count)
  const problem = unitGenerationProblem(unit.class_count, unit.objectives.length, unit.class_blocks) ?? generationBlock(demo.data)
  const cost = estimatedUnitStars(unit.class_count)

  async function generate() {
    if (!course) return
    setGenerating(true)
    setStreamed({})
    let lastZone = new Map<number, number>()
    try {
      const answer = await generateSequence(
        supabase,
        {
          level_code: course.level_code,
          subject_code: course.subject_code,
          objective_codes: unit.objectives.map((o) => o.code),
          classes: unit.class_count,
          blocks: unit.class_blocks,
          unit_title: unit.unit_name ?? unit.title,
          ...(label ? { course: label.name } : {}),
        },
        {
          onSkeleton: () => setStreamed({}),
          onDelta: (at, text) => {
            const index = at.class ?? 0
            const zoneChanged = lastZone.get(index) !== at.zone
            lastZone = new Map(lastZone).set(index, at.zone)
            setStreamed((current) => {
              const before = current[index] ?? { zones: 0, text: '' }
              return {
                ...current,
                [index]: { zones: before.zones + (zoneChanged ? 1 : 0), text: (zoneChanged ? '' : before.text) + text },
              }
            })
          },
        },
      )
      await apply.mutateAsync(answer.classes as GeneratedClass[])
      recordStarUse(answer.usage.stars_charged)
      notify.success(
        'Unidad generada',
        answer.source === 'skeleton'
          ? 'Sin modelo de IA: cada clase trae su estructura para completar.'
          : `${starsUsed(answer.usage.stars_charged)}Revisa cada clase antes de usarla.`,
      )
    } catch (error) {
      notify.error(
        'No se generó la unidad',
        error instanceof GenerationError ? error.message : isDatabaseError(error) ? databaseErrorMessage(error) : 'Revisa tu conexión e inténtalo de nuevo. La unidad quedó como estaba.',
      )
    } finally {
      setGenerating(false)
      setStreamed({})
    }
  }

  return (
    <div className="flex flex-col gap-4" data-testid="unit-overview">
      <header className="flex flex-col gap-3 rounded-card border border-line bg-surface p-4 shadow-card">
        <div>
          <h1 className="text-2xl font-bold text-ink" data-testid="unit-title">
            {unit.title}
          </h1>
          <p className="text-sm text-ink-muted">
            {label?.name ?? 'Curso'}
            {unit.unit_name ? ` · ${unit.unit_name}` : ''} · {unit.class_count} clases de {unit.class_blocks * 45} min
          </p>
        </div>
        <ul className="flex flex-col gap-1 text-sm" aria-label="Objetivos de aprendizaje de la unidad" data-testid="unit-objectives">
          {unit.objectives.map((objective) => (
            <li key={objective.id} className="text-ink">
              <strong>{objective.code}</strong> {objective.statement}
            </li>
          ))}
        </ul>
        {course ? (
          <div>
            <Button variant="ghost" className="px-2 text-sm" onClick={() => setEditingObjectives(true)} data-testid="edit-objectives">
              <ListChecks aria-hidden="true" className="size-4" /> Cambiar OA
            </Button>
          </div>
        ) : null}
        <dl className="grid grid-cols-2 gap-2 text-sm sm:grid-cols-4" data-testid="unit-progress">
          {[
            ['Clases', progress.total],
            ['Planificadas', progress.planned],
            ['Realizadas', progress.taught],
            ['Canceladas', progress.cancelled],
          ].map(([name, value]) => (
            <div key={name} className="rounded-lg bg-surface-muted p-2">
              <dt className="text-ink-muted">{name}</dt>
              <dd className="text-lg font-semibold text-ink">{value}</dd>
            </div>
          ))}
        </dl>
        <div
          className="h-2 overflow-hidden rounded-full bg-surface-muted"
          role="progressbar"
          aria-label="Clases planificadas"
          aria-valuemin={0}
          aria-valuemax={progress.total}
          aria-valuenow={progress.planned}
        >
          <div className="h-full rounded-full bg-brand" style={{ width: `${(progress.planned / Math.max(progress.total, 1)) * 100}%` }} />
        </div>
        <div className="flex flex-col gap-2 border-t border-line pt-3 sm:flex-row sm:items-center sm:justify-between">
          <p className="text-sm text-ink-muted">La IA escribe las clases como una progresión: activación, práctica guiada, práctica autónoma y síntesis.</p>
          <Button
            onClick={() => (progress.planned > 0 ? setConfirm(true) : void generate())}
            disabled={generating || problem !== null || !course}
            data-testid="generate-unit"
            className="shrink-0"
          >
            {generating ? <Loader2 aria-hidden="true" className="size-4 animate-spin" /> : <Sparkles aria-hidden="true" className="size-4" />}
            {generating ? 'Generando…' : `Generar unidad con IA · ≈ ${cost.low}–${cost.high} estrellas`}
          </Button>
        </div>
        {problem ? (
          <p role="status" className="text-sm text-ink-muted" data-testid="unit-generation-problem">
            {problem}
          </p>
        ) : null}
      </header>

      <ol className="flex flex-col gap-2" aria-label="Clases de la unidad" data-testid="unit-classes">
        {unit.classes.map((planClass, index) => (
          <UnitClassRow
            key={planClass.id}
            unitId={unit.id}
            planClass={planClass}
            phaseName={phase(index, unit.class_count)}
            codes={(spread[index] ?? []).map((o) => o.code)}
            streaming={generating ? (streamed[index] ?? { zones: 0, text: '' }) : null}
          />
        ))}
      </ol>

      {editingObjectives && course ? (
        <Suspense fallback={null}>
          <ObjectivesDialog
            planId={unit.id}
            levelCode={course.level_code}
            subjectCode={course.subject_code}
            current={unit.objectives}
            max={UNIT_GENERATION.maxObjectives}
            onClose={() => setEditingObjectives(false)}
          />
        </Suspense>
      ) : null}
      {confirm ? (
        <ConfirmDialog
          title="¿Reemplazar el texto de las clases?"
          description="La IA escribirá de nuevo las zonas de cada clase. Si la generación falla, la unidad queda como estaba."
          confirmLabel="Generar"
          confirmTestId="confirm-generate-unit"
          onClose={() => setConfirm(false)}
          onConfirm={() => void generate()}
        />
      ) : null}
    </div>
  )
}

function UnitClassRow({
  unitId,
  planClass,
  phaseName,
  codes,
  streaming,
}: {
  unitId: string
  planClass: PlanClass
  phaseName: string
  codes: string[]
  streaming: { zones: number; text: string } | null
}) {
  const status = planClass.session?.status ?? null
  return (
    <li data-testid="unit-class">
      <Link
        to={paths.sequentialClassEdit(unitId, planClass.id)}
        className="flex items-center gap-3 rounded-card border border-line bg-surface p-3 shadow-card hover:border-brand"
      >
        <span className="grid size-10 shrink-0 place-items-center rounded-full bg-brand-soft font-semibold text-brand-strong">{planClass.position}</span>
        <span className="min-w-0 flex-1">
          <span className="block truncate font-semibold text-ink" data-testid="unit-class-title">
            {planClass.title ?? `Clase ${planClass.position}`}
          </span>
          <span className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-ink-muted">
            <span className="inline-flex items-center gap-1">
              <CalendarDays aria-hidden="true" className="size-4" />
              {planClass.session ? formatClassDay(planClass.session.session_date) : 'Sin fecha'}
            </span>
            <span>· {phaseName}</span>
            {codes.length > 0 ? <span>· {codes.join(', ')}</span> : null}
          </span>
          <span className="mt-1 flex flex-wrap gap-1 text-xs">
            <span className={cn('rounded-full px-2 py-0.5 font-medium', planClass.written ? 'bg-ok-soft text-ok' : 'bg-surface-muted text-ink-muted')} data-testid="unit-class-state">
              {planClass.written ? 'Planificada' : 'Sin planificar'}
            </span>
            {status && status !== 'Programada' ? (
              <span className={cn('rounded-full px-2 py-0.5 font-medium', status === 'Cancelada' ? 'bg-bad/10 text-bad' : 'bg-brand-soft text-brand-strong')}>{status}</span>
            ) : null}
          </span>
          {streaming ? (
            <span className="mt-1 block truncate text-sm text-brand-strong" data-testid="unit-class-streaming" aria-live="polite">
              {streaming.zones === 0 ? 'En espera…' : `Escribiendo zona ${streaming.zones} de 5: ${streaming.text.slice(-120)}`}
            </span>
          ) : null}
        </span>
        <ChevronRight aria-hidden="true" className="size-5 shrink-0 text-ink-muted" />
      </Link>
    </li>
  )
}
