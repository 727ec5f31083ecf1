/**
 * A class plan's zones: the standard parts of a Chilean lesson plan in order, and the rules
 * for adding, renaming, moving and removing them (the same the database applies: a title of
 * 1–200 characters, at most 50 zones, positions unique within the class).
 */
import type { Database } from '@/lib/database.types'

export type ZoneType = Database['public']['Enums']['zone_type']

export const ZONE_TYPE_LABELS: Record<ZoneType, string> = {
  planificacion_base: 'Planificación',
  objetivo: 'Objetivo de la clase',
  inicio: 'Inicio',
  desarrollo: 'Desarrollo',
  cierre: 'Cierre',
  evaluacion: 'Evaluación',
  recursos: 'Recursos',
  adecuaciones: 'Adecuaciones (PIE/DUA)',
  notas: 'Notas',
}

/** What belongs in each kind of zone, as the editor's placeholder says it. */
export const ZONE_HINTS: Record<ZoneType, string> = {
  planificacion_base: 'La planificación de la clase.',
  objetivo: 'Qué aprenderán los estudiantes en esta clase, con el OA que trabaja.',
  inicio: 'Activación de conocimientos previos y motivación (unos 10 minutos).',
  desarrollo: 'Actividades principales, paso a paso, con el tiempo de cada una.',
  cierre: 'Síntesis, metacognición y ticket de salida.',
  evaluacion: 'Cómo sabrás que aprendieron: indicadores, preguntas, instrumentos.',
  recursos: 'Materiales, guías, textos y recursos digitales.',
  adecuaciones: 'Apoyos para estudiantes PIE y medidas DUA.',
  notas: 'Notas para ti.',
}

/** The zones a new class plan starts with (the database's `private.standard_zones()`). */
export const STANDARD_ZONES: ReadonlyArray<{ zoneType: ZoneType; title: string }> = [
  { zoneType: 'objetivo', title: 'Objetivo de la clase' },
  { zoneType: 'inicio', title: 'Inicio' },
  { zoneType: 'desarrollo', title: 'Desarrollo' },
  { zoneType: 'cierre', title: 'Cierre' },
  { zoneType: 'evaluacion', title: 'Evaluación formativa' },
  { zoneType: 'recursos', title: 'Recursos' },
  { zoneType: 'adecuaciones', title: 'Adecuaciones (PIE/DUA)' },
  { zoneType: 'evaluacion', title: 'Indicadores de evaluación' },
]

export const MAX_ZONES = 50

export interface OrderedZone {
  id: string
  position: number
}

/** Zones in their order. */
export function byPosition<T extends OrderedZone>(zones: readonly T[]): T[] {
  return [...zones].sort((a, b) => a.position - b.position)
}

/** The ids in the new order after moving one zone up or down; `null` at an edge. */
export function movedOrder(zones: readonly OrderedZone[], id: string, direction: 'up' | 'down'): string[] | null {
  const ids = byPosition(zones).map((zone) => zone.id)
  const at = ids.indexOf(id)
  const to = direction === 'up' ? at - 1 : at + 1
  if (at < 0 || to < 0 || to >= ids.length) return null
  ;[ids[at], ids[to]] = [ids[to] as string, ids[at] as string]
  return ids
}

/** Zones given positions 1…n in the order of `ids` (for showing a new order at once). */
export function applyOrder<T extends OrderedZone>(zones: readonly T[], ids: readonly string[]): T[] {
  const rank = new Map(ids.map((id, index) => [id, index + 1]))
  return byPosition(zones.map((zone) => ({ ...zone, position: rank.get(zone.id) ?? zone.position })))
}

/** The position a new zone takes: after the last one. */
export function nextPosition(zones: readonly OrderedZone[]): number {
  return zones.reduce((last, zone) => Math.max(last, zone.position), 0) + 1
}

/** Why a zone title would be refused, in Spanish; `null` when it would not. */
export function zoneTitleProblem(title: string): string | null {
  const trimmed = title.trim()
  if (trimmed.length === 0) return 'La zona necesita un nombre.'
  if (trimmed.length > 200) return 'El nombre puede tener hasta 200 caracteres.'
  return null
}

/** Why another zone cannot be added; `null` when it can. */
export function addZoneProblem(zones: readonly OrderedZone[]): string | null {
  if (zones.length >= MAX_ZONES || nextPosition(zones) > MAX_ZONES) return `Una clase tiene hasta ${MAX_ZONES} zonas.`
  return null
}
