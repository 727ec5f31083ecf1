/** The signed-in user's roles (admin, content creator). */
export { useIsAdmin, useIsContentCreator } from './api/roles'
