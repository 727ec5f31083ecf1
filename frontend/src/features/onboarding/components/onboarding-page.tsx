/**
 * /onboarding: the steps of the spec, one screen each. A visitor who brings a plan she tried
 * (`?draft_session=`) creates her account there and keeps it (step 0); a teacher completes her
 * profile (1) and creates her first course (3); then she is ready (4) and goes to Inicio, where
 * its guided tour starts. A teacher already onboarded never sees it again.
 */
import { BookOpen, Check, PartyPopper, Sparkles } from 'lucide-react'
import { Suspense, useState, type ReactNode } from 'react'
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router'
import { CieloLogo } from '@/components/cielo-logo'
import { Button, buttonClass } from '@/components/ui/button'
import { Skeleton, SkeletonBars } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { CourseDialog } from '@/features/course-editor'
import { useCurriculum } from '@/features/courses'
import { KeepIt } from '@/features/plan-trial'
import { ProfileForm, displayFirstName, type Profile } from '@/features/profile'
import { useAuth } from '@/lib/auth/auth-provider'
import { cn } from '@/lib/cn'
import { useOnboardingStatus } from '@/features/onboarding/api/onboarding'
import { onboardingStep, visibleSteps, type OnboardingStep } from '@/features/onboarding/steps'

export function OnboardingPage() {
  const { user, loading, emailConfirmed } = useAuth()
  const [params] = useSearchParams()
  const draftSession = params.get('draft_session')
  const visitor = !user || user.is_anonymous === true

  if (loading) return <SkeletonBars />
  if (visitor) {
    if (!draftSession) return <Navigate to={paths.auth} replace state={{ from: paths.onboarding }} />
    return (
      <OnboardingFrame step={0}>
        <AccountStep draftSession={draftSession} signedIn={Boolean(user)} />
      </OnboardingFrame>
    )
  }
  if (!emailConfirmed) return <Navigate to={paths.confirmEmail} replace />
  return <TeacherOnboarding />
}

function TeacherOnboarding() {
  const { user } = useAuth()
  const status = useOnboardingStatus()
  // Set once she creates her first course here, so she sees "¡Listo!" instead of leaving at once.
  const [finishedHere, setFinishedHere] = useState(false)

  if (status.loading && !finishedHere) return <SkeletonBars />
  const step: OnboardingStep = finishedHere
    ? 4
    : (onboardingStep({ visitor: false, draftSession: null, profile: status.profile, courseCount: status.courseCount }) ?? 1)
  if (step === 4 && !finishedHere) return <Navigate to={paths.dashboard} replace />

  const firstName = displayFirstName(status.profile, user?.email)
  return (
    <OnboardingFrame step={step}>
      {step === 1 ? <ProfileStep profile={status.profile} /> : null}
      {step === 3 ? <FirstCourseStep firstName={firstName} onCreated={() => setFinishedHere(true)} /> : null}
      {step === 4 ? <ReadyStep firstName={firstName} /> : null}
    </OnboardingFrame>
  )
}

function OnboardingFrame({ step, children }: { step: OnboardingStep; children: ReactNode }) {
  const steps = visibleSteps(step)
  const current = steps.findIndex((s) => s.step === step)
  return (
    <div className="flex min-h-dvh flex-col bg-canvas">
      <header className="border-b border-line bg-surface">
        <div className="mx-auto flex max-w-3xl items-center justify-between gap-3 px-4 py-3">
          <CieloLogo />
          <span className="text-sm text-ink-muted">Configura tu cuenta</span>
        </div>
      </header>
      <main id="contenido" className="mx-auto w-full max-w-3xl flex-1 px-4 py-6 sm:py-10" data-testid="onboarding" data-step={step}>
        <ol className="mb-6 flex items-center gap-2 text-sm" aria-label={`Paso ${current + 1} de ${steps.length}`}>
          {steps.map((s, index) => (
            <li key={s.step} className="flex min-w-0 flex-1 items-center gap-2" aria-current={index === current ? 'step' : undefined}>
              <span
                className={cn(
                  'inline-flex size-7 shrink-0 items-center justify-center rounded-full border text-xs font-semibold',
                  index < current && 'border-ok-line bg-ok-soft text-ok',
                  index === current && 'border-brand bg-brand text-white',
                  index > current && 'border-line bg-surface text-ink-muted',
                )}
              >
                {index < current ? <Check aria-hidden="true" className="size-4" /> : index + 1}
              </span>
              <span className={cn('truncate', index === current ? 'font-medium text-ink' : 'text-ink-muted', index !== current && 'hidden sm:inline')}>
                {s.label}
              </span>
            </li>
          ))}
        </ol>
        <section className="rounded-card border border-line bg-surface p-5 shadow-card sm:p-8">{children}</section>
      </main>
    </div>
  )
}

function StepHeading({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="mb-6">
      <h1 className="text-2xl font-semibold text-ink">{title}</h1>
      <p className="mt-1 text-ink-muted">{children}</p>
    </div>
  )
}

function AccountStep({ draftSession, signedIn }: { draftSession: string; signedIn: boolean }) {
  return (
    <>
      <StepHeading title="Guarda tu planificación">
        Crea tu cuenta gratis: la planificación que probaste queda en tus Borradores y seguimos con tu perfil y tu primer curso.
      </StepHeading>
      {signedIn ? (
        <KeepIt draftId={draftSession} after={paths.onboarding} />
      ) : (
        <div className="flex flex-col items-start gap-3">
          <p className="text-ink">
            Tu prueba se hizo en otra sesión de este navegador. Vuelve a la prueba para guardarla, o crea tu cuenta desde cero.
          </p>
          <div className="flex flex-wrap gap-2">
            <Link to={`${paths.createPlanMarketing}?draft_session=${encodeURIComponent(draftSession)}`} className={buttonClass('secondary')}>
              Volver a la prueba
            </Link>
            <Link to={paths.auth} className={buttonClass('primary')}>
              Crear mi cuenta
            </Link>
          </div>
        </div>
      )}
    </>
  )
}

function ProfileStep({ profile }: { profile: Profile | null }) {
  return (
    <>
      <StepHeading title="Cuéntanos de ti">
        Así te saludamos por tu nombre y mostramos tu establecimiento en Cielo. Solo nombre, apellido y cómo nos conociste son
        obligatorios.
      </StepHeading>
      <Suspense fallback={<Skeleton className="h-96 w-full" />}>
        <ProfileForm profile={profile} submitLabel="Guardar y continuar" onSaved={() => undefined} />
      </Suspense>
    </>
  )
}

function FirstCourseStep({ firstName, onCreated }: { firstName: string; onCreated: () => void }) {
  const curriculum = useCurriculum()
  const [open, setOpen] = useState(false)
  return (
    <>
      <StepHeading title={`¡Hola, ${firstName}! Crea tu primer curso`}>
        Un curso es un grupo y una asignatura que haces en 2025, por ejemplo «Matemática · 7° Básico A». Con él armas tu horario y
        planificas tus clases con los objetivos del currículum nacional.
      </StepHeading>
      <div className="flex flex-col items-start gap-4 rounded-lg border border-dashed border-line p-5">
        <BookOpen aria-hidden="true" className="size-8 text-brand" />
        <p className="text-ink">Elige el nivel, la letra y la asignatura. Luego podrás agregar todos los cursos que hagas.</p>
        <Button onClick={() => setOpen(true)} disabled={!curriculum.data} data-testid="onboarding-new-course">
          Crear mi primer curso
        </Button>
      </div>
      <Suspense fallback={null}>
        {open && curriculum.data ? (
          <CourseDialog editing={{ mode: 'create' }} curriculum={curriculum.data} onClose={() => setOpen(false)} onSaved={onCreated} />
        ) : null}
      </Suspense>
    </>
  )
}

function ReadyStep({ firstName }: { firstName: string }) {
  const navigate = useNavigate()
  return (
    <div className="flex flex-col items-start gap-4" data-testid="onboarding-ready">
      <PartyPopper aria-hidden="true" className="size-10 text-brand" />
      <StepHeading title={`¡Todo listo, ${firstName}!`}>
        Tu cuenta está configurada. En Inicio te mostramos en un recorrido corto dónde está cada cosa.
      </StepHeading>
      <ul className="flex flex-col gap-2 text-ink">
        <li className="flex items-center gap-2">
          <Sparkles aria-hidden="true" className="size-4 text-brand" /> Arma tu horario semanal en Horario.
        </li>
        <li className="flex items-center gap-2">
          <Sparkles aria-hidden="true" className="size-4 text-brand" /> Tu calendario 2025 ya trae los feriados y vacaciones.
        </li>
        <li className="flex items-center gap-2">
          <Sparkles aria-hidden="true" className="size-4 text-brand" /> Planifica una clase con ayuda de la IA en Plan. Simple.
        </li>
      </ul>
      <Button onClick={() => navigate(paths.dashboard)} data-testid="onboarding-done">
        Ir a Inicio
      </Button>
    </div>
  )
}
