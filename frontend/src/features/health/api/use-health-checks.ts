import { useCallback, useEffect, useState } from 'react'
import type { CieloClient } from '@/lib/supabase'
import type { CheckOptions } from './checks'
import { deriveOverallStatus } from './overall'
import { runHealthChecks } from './run-checks'
import type { HealthResults, HealthStatus } from './types'

export interface HealthChecksState {
  results: HealthResults
  overall: HealthStatus
  /** True while a round of checks is in flight. */
  running: boolean
  /** When the last complete round finished. */
  checkedAt: Date | null
  recheck: () => void
}

/** Runs the health checks on mount and on `recheck()`; stale rounds are ignored. */
export function useHealthChecks(client: CieloClient, supabaseUrl: string, options?: CheckOptions): HealthChecksState {
  const [round, setRound] = useState(0)
  const [results, setResults] = useState<HealthResults>({})
  const [running, setRunning] = useState(true)
  const [checkedAt, setCheckedAt] = useState<Date | null>(null)
  const timeoutMs = options?.timeoutMs

  useEffect(() => {
    let current = true
    void runHealthChecks(
      client,
      supabaseUrl,
      (result) => {
        if (current) setResults((previous) => ({ ...previous, [result.service]: result }))
      },
      timeoutMs === undefined ? {} : { timeoutMs },
    ).then(() => {
      if (!current) return
      setRunning(false)
      setCheckedAt(new Date())
    })
    return () => {
      current = false
    }
  }, [client, supabaseUrl, timeoutMs, round])

  const recheck = useCallback(() => {
    setResults({})
    setRunning(true)
    setRound((value) => value + 1)
  }, [])

  return { results, overall: deriveOverallStatus(results), running, checkedAt, recheck }
}
