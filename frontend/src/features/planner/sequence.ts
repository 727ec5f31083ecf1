/**
 * Plan. Secuencial's rules in one place: how a unit's OAs spread over its classes (the same
 * progression generate-sequence plans, docs/ai.md), which calendar classes a new unit takes,
 * what its AI generation may cover and cost, and the progress of its classes.
 */
import { STAR_TOKENS } from '@/features/planner/api/generate'

/** Fewest and most classes of a unit (the plans table's rule). */
export const UNIT_CLASSES = { min: 2, max: 40 } as const
/** What one generate-sequence call covers: classes, OAs and blocks per class. */
export const UNIT_GENERATION = { maxClasses: 12, maxObjectives: 8, maxBlocks: 4 } as const

/**
 * The OAs each class works, in order: spread over the classes before the last (a run of them
 * each when there are more OAs than classes), and all of them in the closing synthesis.
 */
export function progression<T>(objectives: readonly T[], classes: number): T[][] {
  const working = classes - 1
  const count = objectives.length
  return Array.from({ length: classes }, (_, index) => {
    if (count === 0) return []
    if (index === working) return [...objectives]
    if (count <= working) return [objectives[Math.floor((index * count) / working)] as T]
    return objectives.slice(Math.floor((index * count) / working), Math.floor(((index + 1) * count) / working))
  })
}

/** The phase of class `index` (0-based) of a unit of `classes`, as generate-sequence names it. */
export function phase(index: number, classes: number): string {
  const middle = Math.max(classes - 2, 0)
  if (index === 0) return 'Activación e introducción'
  if (index + 1 === classes) return 'Síntesis y evaluación'
  return index - 1 < Math.ceil(middle / 2) ? 'Modelamiento y práctica guiada' : 'Aplicación y práctica autónoma'
}

interface DatedClass {
  id: string
  session_date: string
  start_time: string
  planned: boolean
  status: string
}

/**
 * The calendar classes a new unit of `count` classes takes: from the chosen first one on, the
 * course's next classes that no plan covers and that are not cancelled, at most `count`.
 */
export function unitDates<T extends DatedClass>(classes: readonly T[], firstId: string | null, count: number): T[] {
  const ordered = [...classes].sort((a, b) => (a.session_date + a.start_time).localeCompare(b.session_date + b.start_time))
  const start = ordered.findIndex((c) => c.id === firstId)
  if (start < 0) return []
  return ordered
    .slice(start)
    .filter((c) => !c.planned && c.status !== 'Cancelada')
    .slice(0, count)
}

/** Why a unit cannot be generated in one go, or null when it can. */
export function unitGenerationProblem(classes: number, objectives: number, blocks: number): string | null {
  if (objectives === 0) return 'La unidad no tiene OA: la generación con IA necesita al menos uno.'
  if (classes > UNIT_GENERATION.maxClasses)
    return `La IA genera unidades de hasta ${UNIT_GENERATION.maxClasses} clases: genera cada clase desde su editor.`
  if (objectives > UNIT_GENERATION.maxObjectives) return `La IA genera unidades de hasta ${UNIT_GENERATION.maxObjectives} OA.`
  if (blocks > UNIT_GENERATION.maxBlocks) return `La IA genera unidades con clases de hasta ${UNIT_GENERATION.maxBlocks} bloques.`
  return null
}

/**
 * What a unit costs, about: each class has five zones; each zone's prompt reads ~750 tokens
 * (the class's OAs with their official text, the zone's brief and the whole unit's outline)
 * and its text is up to 200 more; a star is 515 tokens, rounded up (docs/ai.md).
 */
export function estimatedUnitStars(classes: number): { low: number; high: number } {
  const zones = classes * 5
  return { low: Math.ceil((zones * 750) / STAR_TOKENS), high: Math.ceil((zones * 950) / STAR_TOKENS) }
}

export interface ClassProgress {
  status: string | null
  written: boolean
}

/** How far the unit is: classes with text, taught and cancelled, of its total. */
export function unitProgress(classes: readonly ClassProgress[]) {
  return {
    total: classes.length,
    planned: classes.filter((c) => c.written).length,
    taught: classes.filter((c) => c.status === 'Realizada').length,
    cancelled: classes.filter((c) => c.status === 'Cancelada').length,
  }
}
