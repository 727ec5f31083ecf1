/**
 * Security events: logged (and audited outside development, see `logger.ts`) and, when the
 * user must know, shown as a security alert toast (10 s, 7 s or 5 s by severity).
 */
import { logger, type SecuritySeverity } from './logger'
import { notify } from './notify'

export interface SecurityAlert {
  title: string
  description?: string
}

export function reportSecurityEvent(
  event: string,
  severity: SecuritySeverity,
  context: Record<string, unknown> = {},
  alert?: SecurityAlert,
): void {
  logger.security(event, context, severity)
  if (alert) notify.security(severity, alert.title, alert.description)
}
