/**
 * Saves one zone's text as the teacher writes (the state machine of `autosave.ts` driving real
 * requests): a pause after the last keystroke, then `plan_zones` updated only where its
 * `version` is still the one the text is based on. Every change is also kept in localStorage
 * until the database has it, so a closed tab or a dropped network loses nothing: on the next
 * open the kept text comes back (and is saved, or shown as a conflict if the zone changed
 * elsewhere meanwhile). Outcomes are logged as the spec names them: triggered, completed,
 * failed, with the duration.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react'
import type { Json } from '@/lib/database.types'
import { databaseErrorMessage, isNetworkError } from '@/lib/errors'
import { logger } from '@/lib/logger'
import { useSupabase } from '@/lib/supabase-provider'
import {
  AUTOSAVE_DELAY_MS,
  initialSave,
  reduceSave,
  retryDelay,
  wantsSave,
  type FailureReason,
  type ZoneSave,
} from '@/features/planner/autosave'
import type { Zone } from './plans'

interface Backup {
  content: Json
  baseVersion: number
}

const backupKey = (zoneId: string) => `cielo:zone-draft:${zoneId}`

function readBackup(zoneId: string): Backup | null {
  try {
    const raw = window.localStorage.getItem(backupKey(zoneId))
    return raw ? (JSON.parse(raw) as Backup) : null
  } catch {
    return null
  }
}

function writeBackup(zoneId: string, backup: Backup | null) {
  try {
    if (backup) window.localStorage.setItem(backupKey(zoneId), JSON.stringify(backup))
    else window.localStorage.removeItem(backupKey(zoneId))
  } catch {
    // A full or blocked storage only loses the crash copy; the save itself goes on.
  }
}

/** Where a zone starts: the server's text, or the teacher's unsaved text kept from before. */
function startingPoint(zone: Zone): { content: Json; save: ZoneSave } {
  const backup = readBackup(zone.id)
  if (!backup || backup.baseVersion > zone.version) return { content: zone.content, save: initialSave(zone.version) }
  if (backup.baseVersion === zone.version) return { content: backup.content, save: initialSave(zone.version, 'dirty') }
  // Saved elsewhere after this text was written: the teacher decides.
  return { content: backup.content, save: { ...initialSave(backup.baseVersion), status: 'conflict' } }
}

export interface ZoneAutosave {
  state: ZoneSave
  /** The text the editor starts with. */
  initialContent: Json
  /** The editor's text changed. */
  change: (content: Json) => void
  /** After a conflict: save this text over the other one. */
  keepMine: () => Promise<void>
  /** After a conflict: take the other text (given to `replace`). */
  takeTheirs: () => Promise<void>
}

export function useZoneAutosave(zone: Zone, replace: (content: Json) => void): ZoneAutosave {
  const supabase = useSupabase()
  const [start] = useState(() => startingPoint(zone))
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
    logger.info('Autoguardado de zona: iniciado', { zoneId: zone.id, baseVersion })
    let failure: { reason: FailureReason; message?: string } | null = null
    try {
      const { data, error } = await supabase
        .from('plan_zones')
        .update({ content })
        .eq('id', zone.id)
        .eq('version', baseVersion)
        .select('version')
      const durationMs = Math.round(performance.now() - startedAt)
      if (error) {
        failure = isNetworkError(error)
          ? { reason: 'network' }
          : { reason: 'refused', message: databaseErrorMessage(error) }
      } else if (data.length === 0) {
        failure = { reason: 'conflict' }
      } else {
        const version = data[0]?.version ?? baseVersion + 1
        logger.info('Autoguardado de zona: completado', { zoneId: zone.id, version, durationMs })
        if (latest.current === content) {
          window.clearTimeout(backupTimer.current)
          writeBackup(zone.id, null)
        }
        else writeBackup(zone.id, { content: latest.current, baseVersion: version })
        dispatch({ type: 'saved', version })
      }
      if (failure) {
        logger.warn('Autoguardado de zona: falló', { zoneId: zone.id, reason: failure.reason, durationMs })
        dispatch({ type: 'failed', ...failure })
      }
    } catch (error) {
      const durationMs = Math.round(performance.now() - startedAt)
      logger.warn('Autoguardado de zona: falló', { zoneId: zone.id, reason: 'network', durationMs, error })
      dispatch({ type: 'failed', reason: 'network' })
    } finally {
      inFlight.current = false
    }
  }, [supabase, zone.id, state.baseVersion])

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
      backupTimer.current = window.setTimeout(() => writeBackup(zone.id, { content: latest.current, baseVersion }), 300)
      dispatch({ type: 'edit' })
    },
    [zone.id, state.baseVersion],
  )
  useEffect(() => () => window.clearTimeout(backupTimer.current), [])

  const current = async () => {
    const { data, error } = await supabase.from('plan_zones').select('version, content').eq('id', zone.id).single()
    if (error) throw error
    return data
  }

  return {
    state,
    initialContent: start.content,
    change,
    keepMine: async () => {
      const theirs = await current()
      writeBackup(zone.id, { content: latest.current, baseVersion: theirs.version })
      dispatch({ type: 'keep-mine', version: theirs.version })
    },
    takeTheirs: async () => {
      const theirs = await current()
      latest.current = theirs.content
      writeBackup(zone.id, null)
      replace(theirs.content)
      dispatch({ type: 'take-theirs', version: theirs.version })
    },
  }
}
