/** The sign-in / sign-up page and the e-mail confirmation page. */
export { AuthPage } from './components/auth-page'
export { ConfirmEmailPage } from './components/confirm-email-page'
export type { RedirectState } from './redirect-state'
