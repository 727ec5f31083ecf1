/** Monitoreo Cielo: the platform's alerts (and the admins' badge count) and the audit log. */
export { useUnresolvedAlertCount } from './api/unresolved-count'
export {
  AUDIT_LIMIT,
  SEVERITY_LABELS,
  auditSummary,
  sortAlerts,
  useAlerts,
  useAuditLog,
  useSetAlertResolved,
  type AdminAlert,
  type AlertFilter,
  type AuditEntry,
} from './api/alerts'
