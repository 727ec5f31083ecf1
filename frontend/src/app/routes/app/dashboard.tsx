/**
 * Inicio: what a teacher needs when she opens Cielo — her classes of today (or of the next
 * day she teaches; once the year is over, the last one), her week at a glance with each
 * class's state, the coming classes that still lack a plan, her latest drafts, quick actions
 * and, in the demo, her Estrellas Cielo. A new teacher gets the first steps instead, each
 * ticked off as she does it.
 */
import { BookOpen, CalendarDays, CheckCircle2, Circle, FilePlus2, FileText, Plus } from 'lucide-react'
import { Suspense, type ReactNode } from 'react'
import { Link } from 'react-router'
import { buttonClass } from '@/components/ui/button'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { StatusBadge, useClassSessions, useNearestClassDays, weekRange, type ClassSession } from '@/features/calendar'
import { useCourseLabels, type CourseLabel } from '@/features/courses'
import { StarsPanel, useDemoStars } from '@/features/demo-stars'
import { useRecentDrafts } from '@/features/drafts'
import { useOnboardingStatus } from '@/features/onboarding'
import { displayFirstName, isProfileComplete, useProfile } from '@/features/profile'
import { useScheduleBlocks } from '@/features/schedule'
import { useAuth } from '@/lib/auth/auth-provider'
import { cn } from '@/lib/cn'
import { addDays, chileToday, dayRange, formatDayRange, formatLongDate, formatShortDay, type IsoDay } from '@/lib/dates'

export default function DashboardRoute() {
  const { user } = useAuth()
  const profile = useProfile()
  const name = displayFirstName(profile.data, user?.email)
  const today = chileToday()
  const longToday = formatLongDate(today)
  const courses = useCourseLabels()
  const blocks = useScheduleBlocks()
  const nearest = useNearestClassDays(today)

  const loading = courses.isPending || blocks.isPending || nearest.isPending
  const failed = courses.isError || blocks.isError || nearest.isError
  const hasClasses = Boolean(nearest.data?.before || nearest.data?.after)
  const setUp = !loading && !failed && (courses.labels?.size ?? 0) > 0 && hasClasses

  return (
    <div data-testid="dashboard">
      <PageHeader title={`Hola, ${name}`} description={longToday.charAt(0).toLocaleUpperCase('es-CL') + longToday.slice(1)}>
        <div className="flex flex-wrap gap-2">
          <Link to={paths.plannerCreate} className={buttonClass('primary')} data-testid="quick-new-plan" data-tour="quick-new-plan">
            <FilePlus2 aria-hidden="true" className="size-4" /> Nueva planificación
          </Link>
          <Link to={paths.courses} className={buttonClass('secondary')} data-testid="quick-new-course" data-tour="quick-new-course">
            <Plus aria-hidden="true" className="size-4" /> Nuevo curso
          </Link>
        </div>
      </PageHeader>
      <OnboardingBanner />
      <div data-tour="dashboard-main">
      {loading ? (
        <Skeleton className="h-64 w-full" />
      ) : failed || !courses.labels || !nearest.data ? (
        <p role="alert" className="text-bad">
          No se pudo cargar tu inicio.
        </p>
      ) : setUp ? (
        <TeacherDay today={today} nearest={nearest.data} labels={courses.labels} />
      ) : (
        <div className="grid gap-4 lg:grid-cols-3">
          <div className="lg:col-span-2">
            <FirstSteps courses={courses.labels.size} blocks={blocks.data?.length ?? 0} classes={hasClasses} />
          </div>
          <DemoStars />
        </div>
      )}
      </div>
    </div>
  )
}

/** For a teacher not yet onboarded: where to finish setting up her account. */
function OnboardingBanner() {
  const status = useOnboardingStatus()
  if (status.loading || status.onboarded) return null
  const profileDone = isProfileComplete(status.profile)
  return (
    <section
      className="mb-6 flex flex-col gap-3 rounded-card border border-brand bg-brand-soft p-4 sm:flex-row sm:items-center sm:justify-between"
      data-testid="onboarding-banner"
    >
      <div>
        <h2 className="font-semibold text-ink">Termina de configurar tu cuenta</h2>
        <p className="text-sm text-ink">
          {profileDone
            ? 'Solo falta tu primer curso: con él armas tu horario y planificas tus clases.'
            : 'Completa tu perfil y crea tu primer curso: toma un par de minutos.'}
        </p>
      </div>
      <Link to={paths.onboarding} className={buttonClass('primary')}>
        {profileDone ? 'Crear mi primer curso' : 'Completar mi perfil'}
      </Link>
    </section>
  )
}

function Panel({ title, children, className, testId }: { title: string; children: ReactNode; className?: string; testId?: string }) {
  return (
    <section className={cn('rounded-card border border-line bg-surface p-4 shadow-card sm:p-5', className)} data-testid={testId}>
      <h2 className="mb-3 font-semibold text-ink">{title}</h2>
      {children}
    </section>
  )
}

/** The first steps of a new teacher, each ticked when done, the next one highlighted. */
function FirstSteps({ courses, blocks, classes }: { courses: number; blocks: number; classes: boolean }) {
  const steps = [
    { done: courses > 0, title: 'Crea tus cursos', text: 'Nivel, letra y asignatura de cada curso que haces en 2025.', to: paths.courses, action: 'Ir a Mis Cursos' },
    { done: blocks > 0, title: 'Arma tu horario', text: 'Ubica las horas de cada curso en tu semana.', to: paths.schedule, action: 'Ir a Horario' },
    { done: classes, title: 'Completa tu calendario', text: 'Cielo crea tus clases del año, saltando feriados y vacaciones.', to: paths.calendar, action: 'Ir a Calendario' },
    { done: false, title: 'Planifica tu primera clase', text: 'Con los OA de tu curso y la ayuda de la IA.', to: paths.plannerCreate, action: 'Planificar' },
  ]
  const next = steps.findIndex((step) => !step.done)
  return (
    <section className="rounded-card border border-line bg-surface p-5 shadow-card" data-testid="first-steps">
      <h2 className="text-lg font-semibold text-ink">{courses === 0 ? 'Aún no tienes cursos' : 'Sigue preparando tu año'}</h2>
      <p className="mt-1 text-sm text-ink-muted">Cuatro pasos y tendrás tu año escolar listo para planificar.</p>
      <ol className="mt-4 flex flex-col gap-3">
        {steps.map((step, index) => (
          <li key={step.title} className={cn('flex flex-col gap-3 rounded-lg border p-3 sm:flex-row sm:items-center', index === next ? 'border-brand bg-brand-soft' : 'border-line')} data-testid="first-step" data-done={step.done}>
            <div className="flex flex-1 items-start gap-3">
              {step.done ? <CheckCircle2 aria-label="Hecho" className="mt-0.5 size-5 shrink-0 text-ok" /> : <Circle aria-label="Pendiente" className="mt-0.5 size-5 shrink-0 text-ink-muted" />}
              <div>
                <p className={cn('font-medium text-ink', step.done && 'line-through opacity-70')}>
                  {index + 1}. {step.title}
                </p>
                <p className="text-sm text-ink-muted">{step.text}</p>
              </div>
            </div>
            {index === next ? (
              <Link to={step.to} className={buttonClass('primary', 'sm:shrink-0')}>
                {step.action}
              </Link>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  )
}

function TeacherDay({ today, nearest, labels }: { today: IsoDay; nearest: { before: IsoDay | null; after: IsoDay | null }; labels: Map<string, CourseLabel> }) {
  // The day to show: today or the next day with classes; once there are none ahead, the last one.
  const focus = (nearest.after ?? nearest.before) as IsoDay
  const upcoming = nearest.after !== null
  const week = weekRange(focus)
  const sessions = useClassSessions(week.from, addDays(focus, 13) > week.to ? addDays(focus, 13) : week.to)
  const drafts = useRecentDrafts(3)

  if (sessions.isPending) return <Skeleton className="h-64 w-full" />
  if (sessions.isError) return <p role="alert" className="text-bad">No se pudieron cargar tus clases.</p>
  const all = sessions.data
  const ofFocus = all.filter((session) => session.session_date === focus)
  const heading = focus === today ? 'Tus clases de hoy' : upcoming ? `Tus próximas clases: ${formatLongDate(focus)}` : `Tus últimas clases: ${formatLongDate(focus)}`
  const missing = upcoming ? all.filter((s) => s.session_date >= focus && s.status === 'Programada' && !s.planId).slice(0, 5) : []

  return (
    <div className="grid gap-4 lg:grid-cols-3">
      <Panel title={heading} className="lg:col-span-2" testId="focus-classes">
        {!upcoming ? (
          <p className="mb-3 text-sm text-ink-muted">No tienes clases próximas en tu calendario: el año escolar terminó o aún no completas el siguiente.</p>
        ) : null}
        <ul className="grid gap-2 sm:grid-cols-2">
          {ofFocus.map((session) => (
            <li key={session.id}>
              <Link to={`${paths.calendar}?vista=dia&fecha=${session.session_date}`} className="block">
                <ClassSummary session={session} label={labels.get(session.course_id)} />
              </Link>
            </li>
          ))}
        </ul>
      </Panel>

      <Panel title="Planificaciones pendientes" testId="missing-plans">
        {missing.length === 0 ? (
          <p className="text-sm text-ink-muted">{upcoming ? 'Tus próximas clases ya tienen planificación.' : 'No hay clases próximas por planificar.'}</p>
        ) : (
          <ul className="flex flex-col gap-2">
            {missing.map((session) => (
              <li key={session.id} className="flex items-center justify-between gap-2 text-sm">
                <span className="min-w-0">
                  <span className="block truncate font-medium text-ink">{labels.get(session.course_id)?.name}</span>
                  <span className="text-ink-muted">
                    {formatShortDay(session.session_date)} · {session.start_time.slice(0, 5)}
                  </span>
                </span>
                <Link to={paths.planForClass(session.id)} className={buttonClass('secondary', 'min-h-9 shrink-0 px-3')}>
                  Planificar
                </Link>
              </li>
            ))}
          </ul>
        )}
      </Panel>

      <Panel title={`Semana ${formatDayRange(week.from, addDays(week.from, 4))}`} className="lg:col-span-2" testId="week-glance">
        <div className="grid grid-cols-5 gap-1 sm:gap-2">
          {dayRange(week.from, 5).map((day) => {
            const classes = all.filter((session) => session.session_date === day)
            return (
              <div key={day} className={cn('flex min-w-0 flex-col gap-1 rounded-lg p-1.5 sm:p-2', day === focus ? 'bg-brand-soft' : 'bg-surface-muted')}>
                <span className="text-xs font-semibold text-ink capitalize">{formatShortDay(day)}</span>
                {classes.length === 0 ? <span className="text-xs text-ink-muted">—</span> : null}
                {classes.map((session) => (
                  <span
                    key={session.id}
                    className={cn('truncate rounded px-1 text-[11px] text-ink', session.status === 'Cancelada' && 'line-through opacity-70')}
                    style={{ backgroundColor: `color-mix(in srgb, ${labels.get(session.course_id)?.color ?? '#2563eb'} 22%, var(--color-surface))` }}
                    title={`${labels.get(session.course_id)?.name}, ${session.status}`}
                  >
                    {session.status === 'Realizada' ? '✓ ' : ''}
                    {labels.get(session.course_id)?.subject}
                  </span>
                ))}
              </div>
            )
          })}
        </div>
        <Link to={`${paths.calendar}?vista=semana&fecha=${week.from}`} className={buttonClass('ghost', 'mt-2 -ml-3')}>
          <CalendarDays aria-hidden="true" className="size-4" /> Ver en el calendario
        </Link>
      </Panel>

      <div className="flex flex-col gap-4">
        <Panel title="Borradores recientes" testId="recent-drafts">
          {drafts.isPending ? (
            <Skeleton className="h-12 w-full" />
          ) : (drafts.data ?? []).length === 0 ? (
            <p className="text-sm text-ink-muted">Aún no tienes borradores. Los que escribas aparecerán aquí.</p>
          ) : (
            <ul className="flex flex-col gap-1">
              {drafts.data?.map((draft) => (
                <li key={draft.id}>
                  <Link to={paths.draftEditor(draft.id)} className="flex items-center gap-2 rounded-md p-1 text-sm text-ink hover:bg-surface-muted">
                    <FileText aria-hidden="true" className="size-4 shrink-0 text-brand" />
                    <span className="truncate">{draft.title}</span>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </Panel>
        <DemoStars />
      </div>
    </div>
  )
}

/** The demo's Estrellas Cielo, for demo teachers only. */
function DemoStars() {
  const demo = useDemoStars()
  return demo.data?.isDemoUser ? (
    <div className="self-start" data-testid="dashboard-stars">
      <Suspense fallback={null}>
        <StarsPanel collapsed={false} />
      </Suspense>
    </div>
  ) : null
}

function ClassSummary({ session, label }: { session: ClassSession; label: CourseLabel | undefined }) {
  return (
    <div
      className="flex flex-col gap-1 rounded-lg border-l-4 p-3 hover:brightness-95"
      style={{ borderLeftColor: label?.color, backgroundColor: `color-mix(in srgb, ${label?.color ?? '#2563eb'} 12%, var(--color-surface))` }}
      data-testid="dashboard-class"
    >
      <span className="text-sm text-ink-muted">{session.start_time.slice(0, 5)} · {session.pedagogical_hours} h pedagógicas</span>
      <span className="font-semibold text-ink">{label?.subject}</span>
      <span className="text-sm text-ink">{label?.group}</span>
      <span className="flex items-center gap-2">
        <StatusBadge status={session.status} />
        {session.planId ? (
          <span className="inline-flex items-center gap-1 text-xs text-brand">
            <BookOpen aria-hidden="true" className="size-3" /> Planificada
          </span>
        ) : (
          <span className="text-xs text-ink-muted">Sin planificación</span>
        )}
      </span>
    </div>
  )
}
