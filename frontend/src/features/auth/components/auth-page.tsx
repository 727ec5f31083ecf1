/**
 * /auth: sign in, sign up, password recovery, and the new password after a recovery link
 * (PASSWORD_RECOVERY), against auth/v1. GoTrue's error codes are shown in Spanish.
 */
import { useState, type FormEvent } from 'react'
import { Navigate, useLocation, useNavigate } from 'react-router'
import { useSupabase } from '../../../app/supabase-provider'
import { Button } from '../../../components/ui/button'
import { SkeletonBars } from '../../../components/ui/skeleton'
import { paths } from '../../../config/paths'
import { useAuth } from '../../../lib/auth/auth-provider'
import { takeAuthRedirectError } from '../../../lib/auth/redirect-error'
import type { RedirectState } from '../../../lib/auth/require-auth'
import { authErrorMessage } from '../../../lib/errors'
import { notify } from '../../../lib/notify'
import { reportSecurityEvent } from '../../../lib/security'
import { rememberPendingEmail } from '../pending-email'
import { AuthLayout, Field, FormError } from './auth-layout'

type Mode = 'sign-in' | 'sign-up' | 'recovery'

const TITLES: Record<Mode, string> = {
  'sign-in': 'Iniciar sesión',
  'sign-up': 'Crear cuenta',
  recovery: 'Recuperar contraseña',
}

export function AuthPage() {
  const { loading, user, emailConfirmed, passwordRecovery } = useAuth()
  const location = useLocation()
  const from = (location.state as RedirectState | null)?.from
  const [redirectError] = useState(() => {
    const error = takeAuthRedirectError()
    return error ? authErrorMessage({ message: error.description, code: error.code }) : null
  })
  const [mode, setMode] = useState<Mode>('sign-in')

  if (passwordRecovery && user) return <NewPasswordForm />
  if (loading || passwordRecovery) return <SkeletonBars label="Verificando tu sesión…" />
  if (user && emailConfirmed) return <Navigate to={from && from !== paths.auth ? from : paths.dashboard} replace />
  if (user) return <Navigate to={paths.confirmEmail} replace />

  return (
    <AuthLayout title={TITLES[mode]}>
      {mode === 'recovery' ? (
        <RecoveryForm onBack={() => setMode('sign-in')} />
      ) : (
        <>
          <div role="tablist" aria-label="Acceso" className="mb-5 grid grid-cols-2 gap-1 rounded-lg bg-surface-muted p-1">
            {(['sign-in', 'sign-up'] as const).map((tab) => (
              <button
                key={tab}
                type="button"
                role="tab"
                aria-selected={mode === tab}
                onClick={() => setMode(tab)}
                className={
                  'min-h-10 rounded-md text-sm font-medium focus-visible:outline-2 focus-visible:outline-brand ' +
                  (mode === tab ? 'bg-surface text-ink shadow-card' : 'text-ink-muted hover:text-ink')
                }
              >
                {TITLES[tab]}
              </button>
            ))}
          </div>
          {mode === 'sign-in' ? (
            <SignInForm initialError={redirectError} onForgot={() => setMode('recovery')} />
          ) : (
            <SignUpForm />
          )}
        </>
      )}
    </AuthLayout>
  )
}

function SignInForm({ initialError, onForgot }: { initialError: string | null; onForgot: () => void }) {
  const supabase = useSupabase()
  const navigate = useNavigate()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<string | null>(initialError)
  const [unconfirmed, setUnconfirmed] = useState(false)
  const [busy, setBusy] = useState(false)

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    setUnconfirmed(false)
    const { error: signInError } = await supabase.auth.signInWithPassword({ email: email.trim(), password })
    setBusy(false)
    if (signInError) {
      setError(authErrorMessage(signInError))
      setUnconfirmed(signInError.code === 'email_not_confirmed')
      if (signInError.code === 'invalid_credentials') {
        reportSecurityEvent('sign_in_failed', 'low', { code: signInError.code })
      }
    }
    // On success SIGNED_IN reaches the session context and the page moves on.
  }

  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-4" noValidate={false} aria-describedby={error ? 'sign-in-error' : undefined}>
      <Field id="sign-in-email" label="Correo electrónico" type="email" value={email} onChange={setEmail} autoComplete="email" />
      <Field id="sign-in-password" label="Contraseña" type="password" value={password} onChange={setPassword} autoComplete="current-password" />
      <FormError id="sign-in-error" message={error} />
      {unconfirmed ? (
        <Button
          variant="secondary"
          onClick={() => {
            rememberPendingEmail(email.trim())
            navigate(paths.confirmEmail, { state: { email: email.trim() } })
          }}
        >
          Reenviar correo de confirmación
        </Button>
      ) : null}
      <Button type="submit" disabled={busy}>
        {busy ? 'Ingresando…' : 'Iniciar sesión'}
      </Button>
      <button type="button" onClick={onForgot} className="self-center text-sm font-medium text-brand underline-offset-4 hover:underline">
        ¿Olvidaste tu contraseña?
      </button>
    </form>
  )
}

function SignUpForm() {
  const supabase = useSupabase()
  const navigate = useNavigate()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault()
    if (password !== confirmation) {
      setError('Las contraseñas no coinciden.')
      return
    }
    setBusy(true)
    setError(null)
    const address = email.trim()
    const { data, error: signUpError } = await supabase.auth.signUp({
      email: address,
      password,
      options: { emailRedirectTo: `${window.location.origin}${paths.confirmEmail}` },
    })
    setBusy(false)
    if (signUpError) {
      setError(authErrorMessage(signUpError))
      return
    }
    if (!data.session) {
      rememberPendingEmail(address)
      navigate(paths.confirmEmail, { state: { email: address, justSignedUp: true } })
    }
    // With a session (auto-confirmed sign-ups) the session context moves on to /dashboard.
  }

  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-4">
      <Field id="sign-up-email" label="Correo electrónico" type="email" value={email} onChange={setEmail} autoComplete="email" />
      <Field
        id="sign-up-password"
        label="Contraseña"
        type="password"
        value={password}
        onChange={setPassword}
        autoComplete="new-password"
        minLength={6}
        describedBy="sign-up-password-hint"
      />
      <p id="sign-up-password-hint" className="-mt-2 text-xs text-ink-muted">
        Al menos 6 caracteres.
      </p>
      <Field
        id="sign-up-confirmation"
        label="Repite la contraseña"
        type="password"
        value={confirmation}
        onChange={setConfirmation}
        autoComplete="new-password"
        minLength={6}
      />
      <FormError id="sign-up-error" message={error} />
      <Button type="submit" disabled={busy}>
        {busy ? 'Creando cuenta…' : 'Crear cuenta'}
      </Button>
    </form>
  )
}

function RecoveryForm({ onBack }: { onBack: () => void }) {
  const supabase = useSupabase()
  const [email, setEmail] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [sent, setSent] = useState(false)
  const [busy, setBusy] = useState(false)

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    const { error: recoverError } = await supabase.auth.resetPasswordForEmail(email.trim(), {
      redirectTo: `${window.location.origin}${paths.auth}`,
    })
    setBusy(false)
    if (recoverError) setError(authErrorMessage(recoverError))
    else setSent(true)
  }

  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-4">
      <p className="text-sm text-ink-muted">Te enviaremos un enlace para crear una nueva contraseña.</p>
      <Field id="recovery-email" label="Correo electrónico" type="email" value={email} onChange={setEmail} autoComplete="email" />
      <FormError id="recovery-error" message={error} />
      {sent ? (
        <p role="status" className="rounded-lg border border-ok-line bg-ok-soft px-3 py-2 text-sm text-ok">
          Si existe una cuenta con ese correo, te enviamos un enlace para recuperar tu contraseña.
        </p>
      ) : null}
      <Button type="submit" disabled={busy}>
        {busy ? 'Enviando…' : 'Enviar enlace'}
      </Button>
      <button type="button" onClick={onBack} className="self-center text-sm font-medium text-brand underline-offset-4 hover:underline">
        Volver a iniciar sesión
      </button>
    </form>
  )
}

function NewPasswordForm() {
  const supabase = useSupabase()
  const navigate = useNavigate()
  const { finishPasswordRecovery } = useAuth()
  const [password, setPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault()
    if (password !== confirmation) {
      setError('Las contraseñas no coinciden.')
      return
    }
    setBusy(true)
    setError(null)
    const { error: updateError } = await supabase.auth.updateUser({ password })
    setBusy(false)
    if (updateError) {
      setError(authErrorMessage(updateError))
      return
    }
    reportSecurityEvent('password_changed', 'low', { via: 'recovery' })
    finishPasswordRecovery()
    notify.success('Contraseña actualizada', 'Ya puedes usar tu nueva contraseña.')
    navigate(paths.dashboard, { replace: true })
  }

  return (
    <AuthLayout title="Crea una nueva contraseña">
      <form onSubmit={onSubmit} className="flex flex-col gap-4">
        <Field id="new-password" label="Nueva contraseña" type="password" value={password} onChange={setPassword} autoComplete="new-password" minLength={6} />
        <Field
          id="new-password-confirmation"
          label="Repite la nueva contraseña"
          type="password"
          value={confirmation}
          onChange={setConfirmation}
          autoComplete="new-password"
          minLength={6}
        />
        <FormError id="new-password-error" message={error} />
        <Button type="submit" disabled={busy}>
          {busy ? 'Guardando…' : 'Guardar contraseña'}
        </Button>
      </form>
    </AuthLayout>
  )
}
