/**
 * "Generar con IA": `POST /functions/v1/generate-plan` asking for server-sent events, read as
 * they arrive — the skeleton of zones at once, then each zone's text line by line, then the
 * final answer with the usage and the stars charged. A refusal before generating (no stars,
 * an expired demo, bad input) is an ordinary JSON error; it is turned into Spanish here.
 */
import type { Json } from '@/lib/database.types'
import type { CieloClient } from '@/lib/supabase'
import { getClientFetch } from '@/lib/supabase'
import type { ZoneType } from '@/features/planner/zones'

export interface GeneratedZone {
  zone_type: ZoneType
  title: string
  content: Json
}

export interface GenerationRequest {
  level_code: string
  subject_code: string
  objective_codes: string[]
  blocks: number
  course?: string
  class_title?: string
}

export interface GenerationAnswer {
  zones: GeneratedZone[]
  usage: { prompt_tokens: number; completion_tokens: number; stars_charged: number }
  source: string
}

export interface GenerationHandlers {
  onSkeleton: (zones: GeneratedZone[]) => void
  onDelta: (zoneIndex: number, text: string) => void
  onQueued?: (ahead: number) => void
}

/** A generation the server refused or that failed, with the teacher's words for it. */
export class GenerationError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message)
    this.name = 'GenerationError'
  }
}

/** The functions' error codes (docs/ai.md) as a teacher reads them. */
const REFUSALS: Record<string, string> = {
  stars_exhausted: 'Te quedaste sin Estrellas Cielo para generar.',
  demo_expired: 'Tu demo terminó: ya no puedes generar con IA.',
  visitor_limit: 'Llegaste al máximo de generaciones gratuitas de hoy.',
  invalid_request: 'La solicitud no es válida: revisa el curso, los OA y la duración.',
  unknown_objective: 'Uno de los OA elegidos no es de este nivel y asignatura.',
  not_authenticated: 'Tu sesión expiró. Inicia sesión de nuevo.',
  provider_error: 'El generador falló. No se cobraron estrellas; inténtalo de nuevo.',
  provider_timeout: 'El generador tardó demasiado. No se cobraron estrellas; inténtalo de nuevo.',
  internal_error: 'No se pudo generar por un error del servidor. No se cobraron estrellas.',
}

export function generationMessage(code: string, fallback?: string): string {
  return REFUSALS[code] ?? fallback ?? 'No se pudo generar la planificación. Inténtalo de nuevo.'
}

/** Splits a server-sent-events buffer into complete events and the unfinished rest. */
export function parseEvents(buffer: string): { events: Array<{ event: string; data: string }>; rest: string } {
  const blocks = buffer.split('\n\n')
  const rest = blocks.pop() ?? ''
  const events = blocks
    .map((block) => {
      let event = 'message'
      const data: string[] = []
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim()
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
      }
      return { event, data: data.join('\n') }
    })
    .filter((entry) => entry.data !== '')
  return { events, rest }
}

/** Where a streamed piece of text goes: `{zone}` in a plan, `{class, zone}` in a unit. */
export interface DeltaTarget {
  zone: number
  class?: number
}

interface StreamHandlers<Skeleton> {
  onSkeleton: (skeleton: Skeleton) => void
  onDelta: (at: DeltaTarget, text: string) => void
  onQueued?: ((ahead: number) => void) | undefined
}

/** Calls an AI function asking for server-sent events and reads them as they arrive. */
async function streamFunction<Skeleton, Answer>(
  supabase: CieloClient,
  name: string,
  body: object,
  handlers: StreamHandlers<Skeleton>,
  signal?: AbortSignal,
): Promise<Answer> {
  const { fetch, restUrl } = getClientFetch(supabase)
  const response = await fetch(restUrl.replace(/\/rest\/v1\/?$/, `/functions/v1/${name}`), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  })
  if (!response.ok || !response.body) {
    const refusal = (await response.json().catch(() => null)) as { code?: string; message?: string } | null
    throw new GenerationError(generationMessage(refusal?.code ?? '', undefined), refusal?.code ?? `http_${response.status}`)
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    buffer += value
    const parsed = parseEvents(buffer)
    buffer = parsed.rest
    for (const { event, data } of parsed.events) {
      const payload = JSON.parse(data) as Record<string, unknown>
      if (event === 'skeleton') handlers.onSkeleton(payload as Skeleton)
      else if (event === 'zone_delta') {
        const at: DeltaTarget = { zone: payload.zone as number }
        if (typeof payload.class === 'number') at.class = payload.class
        handlers.onDelta(at, payload.text as string)
      } else if (event === 'queued') handlers.onQueued?.(payload.ahead as number)
      else if (event === 'done') return payload as Answer
      else if (event === 'error') throw new GenerationError(generationMessage(String(payload.code)), String(payload.code))
    }
  }
  throw new GenerationError(generationMessage(''), 'stream_ended')
}

/** "Generar con IA" for one class: `generate-plan`, streamed. */
export function generatePlan(
  supabase: CieloClient,
  request: GenerationRequest,
  handlers: GenerationHandlers,
  signal?: AbortSignal,
): Promise<GenerationAnswer> {
  return streamFunction<{ zones: GeneratedZone[] }, GenerationAnswer>(
    supabase,
    'generate-plan',
    request,
    {
      onSkeleton: (skeleton) => handlers.onSkeleton(skeleton.zones),
      onDelta: (at, text) => handlers.onDelta(at.zone, text),
      onQueued: handlers.onQueued,
    },
    signal,
  )
}

export interface SequenceRequest {
  level_code: string
  subject_code: string
  objective_codes: string[]
  classes: number
  blocks: number
  unit_title?: string
  course?: string
}

export interface GeneratedClass {
  position: number
  title: string
  phase: string
  objective_codes: string[]
  zones: GeneratedZone[]
}

export interface SequenceAnswer {
  classes: GeneratedClass[]
  usage: GenerationAnswer['usage']
  source: string
}

/** A unit as a progression: `generate-sequence`, streamed (each delta names its class). */
export function generateSequence(
  supabase: CieloClient,
  request: SequenceRequest,
  handlers: StreamHandlers<{ classes: GeneratedClass[] }>,
  signal?: AbortSignal,
): Promise<SequenceAnswer> {
  return streamFunction<{ classes: GeneratedClass[] }, SequenceAnswer>(supabase, 'generate-sequence', request, handlers, signal)
}

/**
 * What a plan costs, about: each of its eight zones is one model request whose prompt reads
 * 600 to 700 tokens (the OAs' official texts, the zone's brief, the class) and whose text is
 * up to 200 more (as measured with the tests' model); a star is 515 tokens, rounded up
 * (docs/ai.md).
 */
export const STAR_TOKENS = 515
export function estimatedStars(): { low: number; high: number } {
  return { low: Math.ceil((8 * 600) / STAR_TOKENS), high: Math.ceil((8 * 900) / STAR_TOKENS) }
}

/** "Se usaron N estrellas. " for a toast (nothing when nothing was charged). */
export function starsUsed(charged: number): string {
  if (charged <= 0) return ''
  return charged === 1 ? 'Se usó 1 estrella. ' : `Se usaron ${charged} estrellas. `
}

export interface ImproveRequest {
  level_code: string
  subject_code: string
  objective_codes: string[]
  zone_type: string
  content?: Json
  instruction?: string
  blocks?: number
  course?: string
  class_title?: string
}

/** The zone kinds `improve-zone` writes; an evaluation zone named for indicators is its own. */
export function improvableKind(zoneType: ZoneType, title: string | null): string | null {
  if (zoneType === 'planificacion_base' || zoneType === 'notas') return null
  if (zoneType === 'evaluacion' && /^indicadores/i.test(title ?? '')) return 'indicadores'
  return zoneType
}

/** `POST /functions/v1/improve-zone`: one zone written again; its new content and the stars it cost. */
export async function improveZone(supabase: CieloClient, request: ImproveRequest): Promise<{ zone: GeneratedZone; charged: number }> {
  const { fetch, restUrl } = getClientFetch(supabase)
  const response = await fetch(restUrl.replace(/\/rest\/v1\/?$/, '/functions/v1/improve-zone'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify(request),
  })
  const body = (await response.json().catch(() => null)) as { code?: string; zone?: GeneratedZone; usage?: GenerationAnswer['usage'] } | null
  if (!response.ok || !body?.zone) throw new GenerationError(generationMessage(body?.code ?? ''), body?.code ?? `http_${response.status}`)
  return { zone: body.zone, charged: body.usage?.stars_charged ?? 0 }
}
