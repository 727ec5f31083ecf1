/** Gestión Plataforma: the accounts, their roles and their Demo 2025 (admins). */
export { UsersPanel } from './components/users-panel'
export { ROLE_LABELS, demoProblem, type AdminUser, type AppRole, type DemoSettings } from './api/users'
