/**
 * The public trial's pieces that need no React: a generated plan as one draft document (each
 * zone a heading and its text), the draft's title, and the copy kept in this browser so a
 * visitor who signs into an existing account (another user id) still gets her plan.
 */
import type { Json } from '@/lib/database.types'

interface Zone {
  title: string
  content: Json
}

type Node = { type?: string; text?: string; attrs?: Record<string, unknown>; content?: Node[] }

/** The plan's zones, in order, as one document: a heading per zone, then its content. */
export function draftDocument(zones: readonly Zone[]): Json {
  const content: Node[] = []
  for (const zone of zones) {
    content.push({ type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: zone.title }] })
    content.push(...((zone.content as Node | null)?.content ?? []))
  }
  return { type: 'doc', content } as unknown as Json
}

/** "Matemática 7° Básico · MA07 OA 03, MA07 OA 04", at most 200 characters. */
export function draftTitle(subject: string, level: string, codes: readonly string[]): string {
  return `${subject} ${level} · ${codes.join(', ')}`.slice(0, 200)
}

const STORAGE_KEY = 'cielo:trial-draft'

export interface KeptTrial {
  /** The anonymous visitor who generated it. */
  visitorId: string
  title: string
  content: Json
}

export function keepTrial(trial: KeptTrial, storage: Storage = localStorage): void {
  try {
    storage.setItem(STORAGE_KEY, JSON.stringify(trial))
  } catch {
    // A full or blocked storage only loses the copy for another account.
  }
}

export function keptTrial(storage: Storage = localStorage): KeptTrial | null {
  try {
    const raw = storage.getItem(STORAGE_KEY)
    const value = raw ? (JSON.parse(raw) as Partial<KeptTrial>) : null
    return value && typeof value.visitorId === 'string' && typeof value.title === 'string' && value.content ? (value as KeptTrial) : null
  } catch {
    return null
  }
}

export function forgetTrial(storage: Storage = localStorage): void {
  try {
    storage.removeItem(STORAGE_KEY)
  } catch {
    // Nothing to forget.
  }
}
