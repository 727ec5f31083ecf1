/**
 * Saves a rich-text document as the teacher writes (the state machine of
 * `autosave-machine.ts` driving a store's requests): a pause after the last keystroke, then
 * the store writes it only where its version is still the one the text is based on. Every
 * change is also kept in localStorage until the database has it, so a closed tab or a dropped
 * network loses nothing: on the next open the kept text comes back (and is saved, or shown as
 * a conflict if the document changed elsewhere meanwhile). Outcomes are logged as the spec
 * names them: triggered, completed, failed, with the duration.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react'
import type { Json } from '@/lib/database.types'
import { databaseErrorMessage, isDatabaseError, isNetworkError } from '@/lib/errors'
import { logger } from '@/lib/logger'
import {
  AUTOSAVE_DELAY_MS,
  initialSave,
  reduceSave,
  retryDelay,
  wantsSave,
  type FailureReason,
  type Version,
  type DocumentSave,
} from './autosave-machine'

/** How one kind of document is read and written (plan zones, drafts). */
export interface DocumentStore {
  /** Names the document in the crash copy's key and the log, e.g. `zone:<id>`. */
  name: string
  /** Writes `content` if the stored version is still `base`: the new version, or `null` when it was not. */
  save: (content: Json, base: Version) => Promise<Version | null>
  /** The stored version and text now. */
  load: () => Promise<{ version: Version; content: Json }>
}

interface Backup {
  content: Json
  baseVersion: Version
}

const backupKey = (name: string) => `cielo:draft-copy:${name}`

function readBackup(name: string): Backup | null {
  try {
    const raw = window.localStorage.getItem(backupKey(name))
    return raw ? (JSON.parse(raw) as Backup) : null
  } catch {
    return null
  }
}

function writeBackup(name: string, backup: Backup | null) {
  try {
    if (backup) window.localStorage.setItem(backupKey(name), JSON.stringify(backup))
    else window.localStorage.removeItem(backupKey(name))
  } catch {
    // A full or blocked storage only loses the crash copy; the save itself goes on.
  }
}

/** Where a document starts: the stored text, or the teacher's unsaved text kept from before. */
function startingPoint(name: string, version: Version, content: Json): { content: Json; save: DocumentSave } {
  const backup = readBackup(name)
  if (!backup) return { content, save: initialSave(version) }
  if (backup.baseVersion === version) return { content: backup.content, save: initialSave(version, 'dirty') }
  // Saved elsewhere after this text was written: the teacher decides.
  return { content: backup.content, save: { ...initialSave(backup.baseVersion), status: 'conflict' } }
}

export interface DocumentAutosave {
  state: DocumentSave
  /** The text the editor starts with. */
  initialContent: Json
  /** The editor's text changed. */
  change: (content: Json) => void
  /** After a conflict: save this text over the other one. */
  keepMine: () => Promise<void>
  /** After a conflict: take the other text (given to `replace`). */
  takeTheirs: () => Promise<void>
}

export function useDocumentAutosave(
  store: DocumentStore,
  stored: { version: Version; content: Json },
  replace: (content: Json) => void,
): DocumentAutosave {
  const [start] = useState(() => startingPoint(store.name, stored.version, stored.content))
  const [state, dispatch] = useReducer(reduceSave, start.save)
  const latest = useRef<Json>(start.content)
  const inFlight = useRef(false)
  // The crash copy is written a moment after the typing, not on every keystroke: a long
  // document serialised per key would stall the editor.
  const backupTimer = useRef<number | undefined>(undefined)

  const save = useCallback(async () => {
    if (inFlight.current) return
    inFlight.current = true
    const content = latest.current
    const baseVersion = state.baseVersion
    dispatch({ type: 'start' })
    const startedAt = performance.now()
    const elapsed = () => Math.round(performance.now() - startedAt)
    logger.info('Autoguardado: iniciado', { document: store.name })
    let failure: { reason: FailureReason; message?: string } | null = null
    try {
      const version = await store.save(content, baseVersion)
      if (version === null) {
        failure = { reason: 'conflict' }
      } else {
        logger.info('Autoguardado: completado', { document: store.name, durationMs: elapsed() })
        window.clearTimeout(backupTimer.current)
        writeBackup(store.name, latest.current === content ? null : { content: latest.current, baseVersion: version })
        dispatch({ type: 'saved', version })
      }
    } catch (error) {
      failure =
        isNetworkError(error) || !isDatabaseError(error)
          ? { reason: 'network' }
          : { reason: 'refused', message: databaseErrorMessage(error) }
    } finally {
      inFlight.current = false
    }
    if (failure) {
      logger.warn('Autoguardado: falló', { document: store.name, reason: failure.reason, durationMs: elapsed() })
      dispatch({ type: 'failed', ...failure })
    }
  }, [store, state.baseVersion])

  // A save after a pause in the typing, or after the retry pause; at once when the network
  // comes back or the page is being hidden.
  useEffect(() => {
    if (!wantsSave(state)) return
    const delay = state.status === 'retrying' ? retryDelay(state.attempts) : AUTOSAVE_DELAY_MS
    const timer = window.setTimeout(() => void save(), delay)
    const now = () => {
      window.clearTimeout(timer)
      void save()
    }
    const onHide = () => {
      if (document.visibilityState === 'hidden') now()
    }
    window.addEventListener('online', now)
    document.addEventListener('visibilitychange', onHide)
    return () => {
      window.clearTimeout(timer)
      window.removeEventListener('online', now)
      document.removeEventListener('visibilitychange', onHide)
    }
  }, [state, save])

  const change = useCallback(
    (content: Json) => {
      latest.current = content
      window.clearTimeout(backupTimer.current)
      const baseVersion = state.baseVersion
      backupTimer.current = window.setTimeout(() => writeBackup(store.name, { content: latest.current, baseVersion }), 300)
      dispatch({ type: 'edit' })
    },
    [store.name, state.baseVersion],
  )
  useEffect(() => () => window.clearTimeout(backupTimer.current), [])

  return {
    state,
    initialContent: start.content,
    change,
    keepMine: async () => {
      const theirs = await store.load()
      writeBackup(store.name, { content: latest.current, baseVersion: theirs.version })
      dispatch({ type: 'keep-mine', version: theirs.version })
    },
    takeTheirs: async () => {
      const theirs = await store.load()
      latest.current = theirs.content
      writeBackup(store.name, null)
      replace(theirs.content)
      dispatch({ type: 'take-theirs', version: theirs.version })
    },
  }
}
