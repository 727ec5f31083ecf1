import { describe, expect, it } from 'vitest'
import { formatDate, formatLongDate } from './dates'

describe('Chilean dates', () => {
  it('calendar days as dd-mm-yyyy, never shifted by the time zone', () => {
    expect(formatDate('2025-05-21')).toBe('21-05-2025')
    expect(formatDate('2025-01-01')).toBe('01-01-2025')
  })

  it('instants in Chile time', () => {
    // 02:00 UTC on 1 March is still 28 February in Santiago (UTC-3).
    expect(formatDate('2025-03-01T02:00:00Z')).toBe('28-02-2025')
  })

  it('the long form', () => {
    expect(formatLongDate('2025-05-21')).toBe('miércoles, 21 de mayo de 2025')
  })
})
