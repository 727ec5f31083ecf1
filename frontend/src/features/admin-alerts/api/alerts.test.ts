import { describe, expect, it } from 'vitest'
import { auditSummary, sortAlerts, type AdminAlert } from './alerts'

const alert = (id: string, severity: AdminAlert['severity'], created_at: string, is_resolved = false): AdminAlert => ({
  id,
  severity,
  created_at,
  is_resolved,
  title: id,
  message: '',
  source: 'sistema',
  metadata: {},
  resolved_at: is_resolved ? created_at : null,
  resolved_by: null,
})

describe('sortAlerts', () => {
  it('puts open ones first, then the most severe, then the newest', () => {
    const sorted = sortAlerts([
      alert('old-error', 'error', '2025-05-01T10:00:00Z'),
      alert('resolved-critical', 'critical', '2025-05-03T10:00:00Z', true),
      alert('warning', 'warning', '2025-05-04T10:00:00Z'),
      alert('new-error', 'error', '2025-05-02T10:00:00Z'),
      alert('critical', 'critical', '2025-04-01T10:00:00Z'),
    ])
    expect(sorted.map((item) => item.id)).toEqual(['critical', 'new-error', 'old-error', 'warning', 'resolved-critical'])
  })
})

describe('auditSummary', () => {
  it('shows the message, or the action without its prefix', () => {
    expect(auditSummary({ action: 'logger_error', new_values: { message: 'Error de conexión' } })).toBe('Error de conexión')
    expect(auditSummary({ action: 'logger_warn', new_values: null })).toBe('warn')
    expect(auditSummary({ action: 'logger_info', new_values: ['x'] })).toBe('info')
  })
})
