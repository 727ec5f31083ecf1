/** Admins' count of unresolved error and critical alerts. */
export { useUnresolvedAlertCount } from './api/unresolved-count'
