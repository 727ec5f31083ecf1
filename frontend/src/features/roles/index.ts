/** The signed-in user's roles (admin, content creator), and the admins' pages' gate. */
export { useIsAdmin, useIsContentCreator } from './api/roles'
export { AdminOnly } from './components/admin-only'
