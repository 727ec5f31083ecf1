import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { CieloLogo } from '@/components/cielo-logo'
import { paths } from '@/config/paths'

/** The frame of /auth and /confirm-email: logo, one card, a way back home. */
export function AuthLayout({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center gap-6 px-4 py-10">
      <Link to={paths.landing} className="rounded-lg focus-visible:outline-2 focus-visible:outline-brand">
        <CieloLogo />
        <span className="sr-only">Ir al inicio</span>
      </Link>
      <section
        aria-labelledby="auth-title"
        className="w-full max-w-md rounded-card border border-line bg-surface p-6 shadow-card sm:p-8"
      >
        <h1 id="auth-title" className="mb-5 text-2xl font-bold tracking-tight text-ink">
          {title}
        </h1>
        {children}
      </section>
    </main>
  )
}

export function FormError({ message, id }: { message: string | null; id: string }) {
  if (!message) return null
  return (
    <p id={id} role="alert" data-testid="auth-error" className="rounded-lg border border-bad-line bg-bad-soft px-3 py-2 text-sm text-bad">
      {message}
    </p>
  )
}

export interface FieldProps {
  id: string
  label: string
  type: string
  value: string
  onChange: (value: string) => void
  autoComplete: string
  minLength?: number
  describedBy?: string | undefined
}

export function Field({ id, label, type, value, onChange, autoComplete, minLength, describedBy }: FieldProps) {
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-ink">
        {label}
      </label>
      <input
        id={id}
        name={id}
        type={type}
        required
        value={value}
        minLength={minLength}
        autoComplete={autoComplete}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.value)}
        className="min-h-11 rounded-lg border border-line bg-surface px-3 text-ink placeholder:text-ink-muted focus-visible:border-brand focus-visible:outline-2 focus-visible:outline-brand"
      />
    </div>
  )
}
