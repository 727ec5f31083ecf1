/**
 * Errors auth/v1 puts in the URL fragment when a mailed link fails (GoTrue redirects to
 * `…#error=…&error_code=otp_expired&error_description=…`). supabase-js consumes the fragment
 * while it starts, so the app reads it once, before creating the client.
 */

export interface AuthRedirectError {
  code: string
  description: string
}

let captured: AuthRedirectError | null = null
let recoveryLanding = false

export function parseAuthRedirectError(hash: string): AuthRedirectError | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''))
  const error = params.get('error')
  if (!error) return null
  return { code: params.get('error_code') ?? error, description: params.get('error_description') ?? '' }
}

/** Called once at start with `window.location.hash`. */
export function captureAuthRedirectError(hash: string): void {
  captured = parseAuthRedirectError(hash)
  recoveryLanding = new URLSearchParams(hash.replace(/^#/, '')).get('type') === 'recovery'
}

/**
 * Whether the app opened from a password-recovery link: supabase-js announces
 * PASSWORD_RECOVERY only after it has stored the session, so the session context starts in
 * recovery mode rather than sending the user on to the dashboard first.
 */
export function openedFromRecoveryLink(): boolean {
  return recoveryLanding
}

/** The captured error, handed out once. */
export function takeAuthRedirectError(): AuthRedirectError | null {
  const error = captured
  captured = null
  return error
}
