/**
 * Autosave of one document (a plan's zone, a draft) as a state machine: every edit makes it
 * dirty; after a pause the editor saves it with the version its text is based on; the
 * database answers with the new version, or nothing when another tab or device saved first (a
 * conflict: the teacher is told and keeps her text until she chooses), or an error — a
 * network failure is retried with growing pauses, a refusal is shown. Edits made while a save
 * is in flight are saved after it.
 */

export type SaveStatus = 'saved' | 'dirty' | 'saving' | 'retrying' | 'conflict' | 'refused'

/** A stored document's version: a counter (zones) or the time of its last change (drafts). */
export type Version = number | string

export interface DocumentSave {
  status: SaveStatus
  /** The server version the local text is based on. */
  baseVersion: Version
  /** Edits made while the save in flight was running. */
  editedDuringSave: boolean
  /** Failed attempts in a row. */
  attempts: number
  message: string | null
}

export type FailureReason = 'network' | 'conflict' | 'refused'

export type SaveEvent =
  | { type: 'edit' }
  | { type: 'start' }
  | { type: 'saved'; version: Version }
  | { type: 'failed'; reason: FailureReason; message?: string }
  /** The teacher keeps her text over the server's `version`: it is saved next. */
  | { type: 'keep-mine'; version: Version }
  /** The teacher takes the server's text at `version`. */
  | { type: 'take-theirs'; version: Version }

/** The pause after the last keystroke before a save starts. */
export const AUTOSAVE_DELAY_MS = 800
const MAX_RETRY_DELAY_MS = 30_000

export function initialSave(version: Version, status: SaveStatus = 'saved'): DocumentSave {
  return { status, baseVersion: version, editedDuringSave: false, attempts: 0, message: null }
}

export function reduceSave(state: DocumentSave, event: SaveEvent): DocumentSave {
  switch (event.type) {
    case 'edit':
      if (state.status === 'conflict') return state
      if (state.status === 'saving') return { ...state, editedDuringSave: true }
      return { ...state, status: state.status === 'retrying' ? 'retrying' : 'dirty', message: null }
    case 'start':
      if (state.status !== 'dirty' && state.status !== 'retrying') return state
      return { ...state, status: 'saving', editedDuringSave: false }
    case 'saved':
      return {
        status: state.editedDuringSave ? 'dirty' : 'saved',
        baseVersion: event.version,
        editedDuringSave: false,
        attempts: 0,
        message: null,
      }
    case 'failed':
      if (event.reason === 'conflict') return { ...state, status: 'conflict', message: null }
      if (event.reason === 'refused') return { ...state, status: 'refused', attempts: state.attempts + 1, message: event.message ?? null }
      return { ...state, status: 'retrying', attempts: state.attempts + 1 }
    case 'keep-mine':
      return { ...initialSave(event.version, 'dirty') }
    case 'take-theirs':
      return initialSave(event.version)
  }
}

/** Whether the zone should be saved now (after the debounce or a retry pause). */
export function wantsSave(state: DocumentSave): boolean {
  return state.status === 'dirty' || state.status === 'retrying'
}

/** The pause before retry number `attempts` (1 s, 2 s, 4 s… up to 30 s). */
export function retryDelay(attempts: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, 1000 * 2 ** Math.max(0, attempts - 1))
}

export type OverallStatus = 'saved' | 'saving' | 'offline' | 'conflict' | 'refused'

/** The page's one save state, from its zones': the most urgent wins. */
export function overallStatus(states: readonly DocumentSave[]): OverallStatus {
  if (states.some((s) => s.status === 'conflict')) return 'conflict'
  if (states.some((s) => s.status === 'refused')) return 'refused'
  if (states.some((s) => s.status === 'retrying')) return 'offline'
  if (states.some((s) => s.status === 'dirty' || s.status === 'saving')) return 'saving'
  return 'saved'
}

export const OVERALL_LABELS: Record<OverallStatus, string> = {
  saved: 'Guardado',
  saving: 'Guardando…',
  offline: 'Sin conexión — reintentando',
  conflict: 'Cambios en otra pestaña: revisa la zona marcada',
  refused: 'No se pudo guardar: revisa la zona marcada',
}
