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

export async function generatePlan(
  supabase: CieloClient,
  request: GenerationRequest,
  handlers: GenerationHandlers,
  signal?: AbortSignal,
): Promise<GenerationAnswer> {
  const { fetch, restUrl } = getClientFetch(supabase)
  const response = await fetch(restUrl.replace(/\/rest\/v1\/?$/, '/functions/v1/generate-plan'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify(request),
    ...(signal ? { signal } : {}),
  })
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => null)) as { code?: string; message?: string } | null
    throw new GenerationError(generationMessage(body?.code ?? '', undefined), body?.code ?? `http_${response.status}`)
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
      if (event === 'skeleton') handlers.onSkeleton(payload.zones as GeneratedZone[])
      else if (event === 'zone_delta') handlers.onDelta(payload.zone as number, payload.text as string)
      else if (event === 'queued') handlers.onQueued?.(payload.ahead as number)
      else if (event === 'done') return payload as unknown as GenerationAnswer
      else if (event === 'error') throw new GenerationError(generationMessage(String(payload.code)), String(payload.code))
    }
  }
  throw new GenerationError(generationMessage(''), 'stream_ended')
}

/**
 * What a plan costs, about: its prompts read ~1 600 tokens (the OAs' texts and each zone's
 * brief) and the model writes 400 to 1 600 (eight zones, at most 200 tokens each); a star is
 * 515 tokens, rounded up (docs/ai.md).
 */
export const STAR_TOKENS = 515
export function estimatedStars(): { low: number; high: number } {
  return { low: Math.ceil((1600 + 400) / STAR_TOKENS), high: Math.ceil((1600 + 1600) / STAR_TOKENS) }
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

/** `POST /functions/v1/improve-zone`: one zone written again; its new content. */
export async function improveZone(supabase: CieloClient, request: ImproveRequest): Promise<GeneratedZone> {
  const { fetch, restUrl } = getClientFetch(supabase)
  const response = await fetch(restUrl.replace(/\/rest\/v1\/?$/, '/functions/v1/improve-zone'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify(request),
  })
  const body = (await response.json().catch(() => null)) as { code?: string; zone?: GeneratedZone } | null
  if (!response.ok || !body?.zone) throw new GenerationError(generationMessage(body?.code ?? ''), body?.code ?? `http_${response.status}`)
  return body.zone
}
