/**
 * /confirm-email: asks the user to open the confirmation mail, resends it, and moves on to
 * onboarding by itself once the session has a confirmed e-mail (the mailed link lands here,
 * or another tab confirms); a teacher already onboarded goes on from there to the dashboard.
 */
import { MailCheck } from 'lucide-react'
import { useState } from 'react'
import { Link, Navigate, useLocation } from 'react-router'
import { useSupabase } from '@/lib/supabase-provider'
import { Button, buttonClass } from '@/components/ui/button'
import { SkeletonBars } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { useAuth } from '@/lib/auth/auth-provider'
import { takeAuthRedirectError } from '@/lib/auth/redirect-error'
import { authErrorMessage } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { forgetPendingEmail, pendingEmail } from '@/features/auth/pending-email'
import { AuthLayout, FormError } from './auth-layout'

export function ConfirmEmailPage() {
  const supabase = useSupabase()
  const { loading, user, emailConfirmed, signOut } = useAuth()
  const location = useLocation()
  const stateEmail = (location.state as { email?: string } | null)?.email
  const email = user?.email || stateEmail || pendingEmail() || ''
  const [error, setError] = useState<string | null>(() => {
    const redirectError = takeAuthRedirectError()
    return redirectError ? authErrorMessage({ message: redirectError.description, code: redirectError.code }) : null
  })
  const [busy, setBusy] = useState(false)

  if (loading) return <SkeletonBars label="Verificando tu sesión…" />
  if (user && emailConfirmed) {
    forgetPendingEmail()
    return <Navigate to={paths.onboarding} replace />
  }

  const resend = async () => {
    setBusy(true)
    setError(null)
    const { error: resendError } = await supabase.auth.resend({
      type: 'signup',
      email,
      options: { emailRedirectTo: `${window.location.origin}${paths.confirmEmail}` },
    })
    setBusy(false)
    if (resendError) setError(authErrorMessage(resendError))
    else notify.success('Correo enviado', `Te enviamos un nuevo enlace de confirmación a ${email}.`)
  }

  return (
    <AuthLayout title="Confirma tu correo">
      <div className="flex flex-col gap-4">
        <MailCheck aria-hidden="true" className="size-10 text-brand" />
        {email ? (
          <p className="text-ink">
            Te enviamos un enlace de confirmación a <strong data-testid="confirm-email-address">{email}</strong>. Ábrelo
            para activar tu cuenta; esta página continuará sola.
          </p>
        ) : (
          <p className="text-ink">Abre el enlace de confirmación que te enviamos por correo para activar tu cuenta.</p>
        )}
        <p className="text-sm text-ink-muted">¿No lo encuentras? Revisa la carpeta de spam o pide uno nuevo.</p>
        <FormError id="confirm-email-error" message={error} />
        {email ? (
          <Button variant="secondary" onClick={() => void resend()} disabled={busy}>
            {busy ? 'Enviando…' : 'Reenviar correo'}
          </Button>
        ) : null}
        {user ? (
          <Button variant="ghost" onClick={() => void signOut()}>
            Cerrar sesión
          </Button>
        ) : (
          <Link to={paths.auth} className={buttonClass('ghost')}>
            Volver a iniciar sesión
          </Link>
        )}
      </div>
    </AuthLayout>
  )
}
