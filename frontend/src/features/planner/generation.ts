/**
 * Putting a generated plan into the teacher's zones: which of her zones each generated zone
 * fills (the same kind, in order, so renamed or reordered zones still get their text), and a
 * zone's skeleton with the text streamed so far in place of its "[Por completar]" placeholder.
 */
import type { Json } from '@/lib/database.types'
import type { ZoneType } from '@/features/planner/zones'

/** Most OAs one plan works (what generate-plan accepts). */
export const MAX_PLAN_OBJECTIVES = 5

interface KindedZone {
  id: string
  zone_type: ZoneType
  position: number
}

/**
 * For the teacher's zones, a function giving, for a list of generated zones, the id of the
 * zone each one fills (`undefined` when she has no zone of that kind left).
 */
export function matchZones(zones: readonly KindedZone[]) {
  const ordered = [...zones].sort((a, b) => a.position - b.position)
  return (generated: ReadonlyArray<{ zone_type: ZoneType }>): Array<string | undefined> => {
    const used = new Set<string>()
    return generated.map((zone) => {
      const match = ordered.find((candidate) => candidate.zone_type === zone.zone_type && !used.has(candidate.id))
      if (match) used.add(match.id)
      return match?.id
    })
  }
}

type Node = { type?: string; text?: string; content?: Node[] }

function textOf(node: Node): string {
  return (node.text ?? '') + (node.content ?? []).map(textOf).join('')
}

const PLACEHOLDER = '[Por completar'

/** `doc` with its placeholder paragraph replaced by `text`'s lines (or them appended). */
export function fillPlaceholder(doc: Json, text: string): Json {
  const root = doc as Node
  const paragraphs: Node[] = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => ({ type: 'paragraph', content: [{ type: 'text', text: line }] }))
  const content = root.content ?? []
  const at = content.findIndex((node) => textOf(node).includes(PLACEHOLDER))
  const next = at < 0 ? [...content, ...paragraphs] : [...content.slice(0, at), ...paragraphs, ...content.slice(at + 1)]
  return { ...root, type: 'doc', content: next } as Json
}
