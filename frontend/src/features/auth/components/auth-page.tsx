/**
 * /auth: sign in, sign up, password recovery, and the new password after a recovery link
 * (PASSWORD_RECOVERY), against auth/v1. GoTrue's error codes are shown in Spanish.
 */
import { useState, type FormEvent } from 'react'
import { Navigate, useLocation, useNavigate } from 'react-router'
import { useSupabase } from '@/lib/supabase-provider'
import { Button } from '@/components/ui/button'
import { SkeletonBars } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { useAuth } from '@/lib/auth/auth-provider'
import { takeAuthRedirectError } from '@/lib/auth/redirect-error'
import { authErrorMessage } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { reportSecurityEvent } from '@/lib/security'
import { rememberPendingEmail } from '@/features/auth/pending-email'
import type { RedirectState } from '@/features/auth/redirect-state'
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
  // An anonymous visitor of the public trial signs in or up like anyone without an account.
  if (user && !user.is_anonymous) return <Navigate to={paths.confirmEmail} replace />

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
  const { error, busy, run } = useFormAction(initialError)
  const [unconfirmed, setUnconfirmed] = useState(false)

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    setUnconfirmed(false)
    void run(async () => {
      const { error: signInError } = await supabase.auth.signInWithPassword({ email: email.trim(), password })
      // On success SIGNED_IN reaches the session context and the page moves on.
      if (!signInError) return null
      setUnconfirmed(signInError.code === 'email_not_confirmed')
      if (signInError.code === 'invalid_credentials') {
        reportSecurityEvent('sign_in_failed', 'low', { code: signInError.code })
      }
      return authErrorMessage(signInError)
    })
  }

  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-4" aria-describedby={error ? 'sign-in-error' : undefined}>
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

/** Busy flag and error message of a form whose action answers an error message or nothing. */
function useFormAction(initialError: string | null = null) {
  const [error, setError] = useState<string | null>(initialError)
  const [busy, setBusy] = useState(false)
  const run = async (action: () => Promise<string | null>) => {
    setBusy(true)
    setError(null)
    try {
      setError(await action())
    } finally {
      setBusy(false)
    }
  }
  return { error, setError, busy, run }
}

/** A new password typed twice. */
function PasswordPair({ idPrefix, label, password, confirmation, onPassword, onConfirmation, hint }: {
  idPrefix: string
  label: string
  password: string
  confirmation: string
  onPassword: (value: string) => void
  onConfirmation: (value: string) => void
  hint?: string
}) {
  const hintId = `${idPrefix}-hint`
  return (
    <>
      <Field
        id={idPrefix}
        label={label}
        type="password"
        value={password}
        onChange={onPassword}
        autoComplete="new-password"
        minLength={6}
        describedBy={hint ? hintId : undefined}
      />
      {hint ? (
        <p id={hintId} className="-mt-2 text-xs text-ink-muted">
          {hint}
        </p>
      ) : null}
      <Field
        id={`${idPrefix}-confirmation`}
        label={`Repite la ${label.toLocaleLowerCase('es-CL')}`}
        type="password"
        value={confirmation}
        onChange={onConfirmation}
        autoComplete="new-password"
        minLength={6}
      />
    </>
  )
}

const PASSWORDS_DIFFER = 'Las contraseñas no coinciden.'

function SignUpForm() {
  const supabase = useSupabase()
  const navigate = useNavigate()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [confirmation, setConfirmation] = useState('')
  const { error, setError, busy, run } = useFormAction()

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (password !== confirmation) return setError(PASSWORDS_DIFFER)
    void run(async () => {
      const address = email.trim()
      const { data, error: signUpError } = await supabase.auth.signUp({
        email: address,
        password,
        options: { emailRedirectTo: `${window.location.origin}${paths.confirmEmail}` },
      })
      if (signUpError) return authErrorMessage(signUpError)
      if (!data.session) {
        rememberPendingEmail(address)
        navigate(paths.confirmEmail, { state: { email: address, justSignedUp: true } })
      }
      // With a session (auto-confirmed sign-ups) the session context moves on to /dashboard.
      return null
    })
  }

  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-4">
      <Field id="sign-up-email" label="Correo electrónico" type="email" value={email} onChange={setEmail} autoComplete="email" />
      <PasswordPair
        idPrefix="sign-up-password"
        label="Contraseña"
        password={password}
        confirmation={confirmation}
        onPassword={setPassword}
        onConfirmation={setConfirmation}
        hint="Al menos 6 caracteres."
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
  const [sent, setSent] = useState(false)
  const { error, busy, run } = useFormAction()

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    void run(async () => {
      const { error: recoverError } = await supabase.auth.resetPasswordForEmail(email.trim(), {
        redirectTo: `${window.location.origin}${paths.auth}`,
      })
      if (recoverError) return authErrorMessage(recoverError)
      setSent(true)
      return null
    })
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
  const { error, setError, busy, run } = useFormAction()

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (password !== confirmation) return setError(PASSWORDS_DIFFER)
    void run(async () => {
      const { error: updateError } = await supabase.auth.updateUser({ password })
      if (updateError) return authErrorMessage(updateError)
      reportSecurityEvent('password_changed', 'low', { via: 'recovery' })
      finishPasswordRecovery()
      notify.success('Contraseña actualizada', 'Ya puedes usar tu nueva contraseña.')
      navigate(paths.dashboard, { replace: true })
      return null
    })
  }

  return (
    <AuthLayout title="Crea una nueva contraseña">
      <form onSubmit={onSubmit} className="flex flex-col gap-4">
        <PasswordPair
          idPrefix="new-password"
          label="Nueva contraseña"
          password={password}
          confirmation={confirmation}
          onPassword={setPassword}
          onConfirmation={setConfirmation}
        />
        <FormError id="new-password-error" message={error} />
        <Button type="submit" disabled={busy}>
          {busy ? 'Guardando…' : 'Guardar contraseña'}
        </Button>
      </form>
    </AuthLayout>
  )
}
