/** The address a sign-up just used, so /confirm-email can resend to it (this tab only). */
const KEY = 'cielo_pending_email'

export function rememberPendingEmail(email: string): void {
  try {
    sessionStorage.setItem(KEY, email)
  } catch {
    // Private mode without storage: the page asks again.
  }
}

export function pendingEmail(): string | null {
  try {
    return sessionStorage.getItem(KEY)
  } catch {
    return null
  }
}

export function forgetPendingEmail(): void {
  try {
    sessionStorage.removeItem(KEY)
  } catch {
    // Nothing to forget.
  }
}
