/**
 * The public trial (/crear-planificacion, /planificacion-ia): a visitor starts without an
 * account (Supabase's anonymous sign-in), picks a level, subject and OAs, and watches the plan
 * being written zone by zone; it is kept as her draft (`?draft_session=<id>` in the address,
 * so a reload shows it again). Creating an account there turns the same user into a permanent
 * one (`updateUser` with e-mail and password), so the draft is hers after confirming; one who
 * signs into an existing account gets a copy kept in this browser. The server limits visitors'
 * generations per visitor and per address.
 */
import { Loader2, Sparkles } from 'lucide-react'
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react'
import { Link, useSearchParams } from 'react-router'
import { Button } from '@/components/ui/button'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import { DocView } from '@/components/editor/doc-view'
import { paths } from '@/config/paths'
import { useCurriculum } from '@/features/courses'
import { useCreateDraft } from '@/features/drafts'
import { fillPlaceholder, generatePlan, GenerationError, ObjectivePicker, useObjectives, type GeneratedZone } from '@/features/planner'
import { useAuth } from '@/lib/auth/auth-provider'
import type { Json } from '@/lib/database.types'
import { authErrorMessage } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { useSupabase } from '@/lib/supabase-provider'
import { draftDocument, draftTitle, forgetTrial, keepTrial, keptTrial } from '@/features/plan-trial/trial'

const MAX_TRIAL_OBJECTIVES = 3

export function PlanTrial() {
  const supabase = useSupabase()
  const { user, loading } = useAuth()
  const [starting, setStarting] = useState(false)
  const [startError, setStartError] = useState<string | null>(null)
  const [params, setParams] = useSearchParams()
  const draftId = params.get('draft_session')
  const saved = useSavedTrial(draftId)
  useClaimKeptTrial()

  async function start() {
    setStarting(true)
    setStartError(null)
    const { error } = await supabase.auth.signInAnonymously()
    setStarting(false)
    if (error)
      setStartError(
        error.code === 'anonymous_provider_disabled'
          ? 'Este servidor no ofrece la prueba sin cuenta. Crea tu cuenta gratis para planificar con Cielo.'
          : authErrorMessage(error),
      )
  }

  if (loading) return <Loader2 aria-label="Cargando" className="size-6 animate-spin text-brand" />
  if (!user)
    return (
      <div className="flex flex-col items-start gap-3" data-testid="trial-start">
        <Button onClick={() => void start()} disabled={starting} data-testid="trial-begin">
          {starting ? <Loader2 aria-hidden="true" className="size-4 animate-spin" /> : <Sparkles aria-hidden="true" className="size-4" />}
          Probar sin crear cuenta
        </Button>
        <p className="text-sm text-ink-muted">
          Sin correo ni contraseña: pruebas con un acceso temporal. ¿Ya usas Cielo?{' '}
          <Link to={paths.auth} className="font-medium text-brand underline">
            Ingresa
          </Link>
          .
        </p>
        <FormError message={startError} testId="trial-start-error" />
      </div>
    )
  return (
    <div className="flex flex-col gap-6">
      <TrialForm
        onSaved={(id) => setParams({ draft_session: id }, { replace: true })}
        initial={saved}
        keep={user.is_anonymous && draftId && saved ? <KeepIt draftId={draftId} /> : null}
      />
    </div>
  )
}

interface SavedTrial {
  title: string
  content: Json
}

/** The draft named in the address, when it is the visitor's (a reload after generating). */
function useSavedTrial(draftId: string | null): SavedTrial | null {
  const supabase = useSupabase()
  const { user } = useAuth()
  const [saved, setSaved] = useState<SavedTrial | null>(null)
  useEffect(() => {
    if (!draftId || !user) return
    let active = true
    void supabase
      .from('drafts')
      .select('title, content')
      .eq('id', draftId)
      .maybeSingle()
      .then(({ data }) => {
        if (active) setSaved(data ?? null)
      })
    return () => {
      active = false
    }
  }, [supabase, draftId, user])
  return saved
}

/** A teacher who signed into her existing account after trying: the kept plan becomes her draft. */
function useClaimKeptTrial() {
  const { user } = useAuth()
  const create = useCreateDraft()
  const claimed = useRef(false)
  useEffect(() => {
    const kept = keptTrial()
    if (!user || user.is_anonymous || !kept || kept.visitorId === user.id || claimed.current) return
    claimed.current = true
    create.mutate(
      { title: kept.title, content: kept.content },
      {
        onSuccess: () => {
          forgetTrial()
          notify.success('Tu planificación de prueba quedó en Borradores')
        },
      },
    )
  }, [user, create])
}

interface TrialFormProps {
  onSaved: (draftId: string) => void
  initial: SavedTrial | null
  /** Shown between the form and the plan once it is saved: how to keep it. */
  keep: ReactNode
}

function TrialForm({ onSaved, initial, keep }: TrialFormProps) {
  const supabase = useSupabase()
  const { user } = useAuth()
  const curriculum = useCurriculum()
  const create = useCreateDraft()
  const [level, setLevel] = useState('')
  const [subject, setSubject] = useState('')
  const [blocks, setBlocks] = useState(2)
  const [chosen, setChosen] = useState<string[]>([])
  const [problem, setProblem] = useState<string | null>(null)
  const [zones, setZones] = useState<GeneratedZone[] | null>(null)
  const [generating, setGenerating] = useState(false)
  const objectives = useObjectives(level || undefined, subject || undefined)
  const ids = { level: useId(), subject: useId(), blocks: useId() }
  const subjects = level ? (curriculum.data?.subjectsByLevel.get(level) ?? []) : []
  const levelName = curriculum.data?.levels.find((l) => l.code === level)?.name ?? level
  const subjectName = curriculum.data?.subjects.get(subject) ?? subject

  async function generate(event: FormEvent) {
    event.preventDefault()
    if (!level || !subject || chosen.length === 0) {
      setProblem('Elige el nivel, la asignatura y al menos un OA.')
      return
    }
    const codes = (objectives.data ?? []).filter((o) => chosen.includes(o.id)).map((o) => o.code)
    setProblem(null)
    setGenerating(true)
    const written = new Map<number, string>()
    let skeleton: GeneratedZone[] = []
    try {
      const answer = await generatePlan(
        supabase,
        { level_code: level, subject_code: subject, objective_codes: codes, blocks },
        {
          onSkeleton: (generated) => {
            skeleton = generated
            setZones(generated)
          },
          onDelta: (index, text) => {
            written.set(index, (written.get(index) ?? '') + text)
            setZones(skeleton.map((zone, i) => (written.has(i) ? { ...zone, content: fillPlaceholder(zone.content, written.get(i) ?? '') } : zone)))
          },
        },
      )
      setZones(answer.zones)
      const title = draftTitle(subjectName, levelName, codes)
      const content = draftDocument(answer.zones)
      const id = await create.mutateAsync({ title, content })
      if (user?.is_anonymous) keepTrial({ visitorId: user.id, title, content })
      onSaved(id)
      notify.success('Planificación generada', 'Quedó guardada como borrador. Revísala y ajústala a tu curso.')
    } catch (error) {
      setZones(null)
      setProblem(error instanceof GenerationError ? error.message : 'No se pudo generar la planificación. Revisa tu conexión e inténtalo de nuevo.')
    } finally {
      setGenerating(false)
    }
  }

  const shown = zones ?? null
  return (
    <>
      <form onSubmit={(event) => void generate(event)} noValidate className="flex flex-col gap-4 rounded-card border border-line bg-surface p-4 shadow-card" data-testid="trial-form">
        <div className="grid gap-4 sm:grid-cols-3">
          <Field id={ids.level} label="Nivel">
            <select
              id={ids.level}
              className={fieldClass}
              value={level}
              onChange={(event) => {
                setLevel(event.target.value)
                setSubject('')
                setChosen([])
              }}
            >
              <option value="">Elige el nivel</option>
              {(curriculum.data?.levels ?? []).map((option) => (
                <option key={option.code} value={option.code}>
                  {option.name}
                </option>
              ))}
            </select>
          </Field>
          <Field id={ids.subject} label="Asignatura">
            <select
              id={ids.subject}
              className={fieldClass}
              value={subject}
              disabled={!level}
              onChange={(event) => {
                setSubject(event.target.value)
                setChosen([])
              }}
            >
              <option value="">Elige la asignatura</option>
              {subjects.map((code) => (
                <option key={code} value={code}>
                  {curriculum.data?.subjects.get(code) ?? code}
                </option>
              ))}
            </select>
          </Field>
          <Field id={ids.blocks} label="Duración">
            <select id={ids.blocks} className={fieldClass} value={blocks} onChange={(event) => setBlocks(Number(event.target.value))}>
              {[1, 2, 3, 4].map((n) => (
                <option key={n} value={n}>
                  {n} {n === 1 ? 'bloque' : 'bloques'} de 45 min
                </option>
              ))}
            </select>
          </Field>
        </div>
        <ObjectivePicker
          objectives={level && subject ? objectives : null}
          chosen={chosen}
          max={MAX_TRIAL_OBJECTIVES}
          onToggle={(id) => setChosen((current) => (current.includes(id) ? current.filter((x) => x !== id) : current.length >= MAX_TRIAL_OBJECTIVES ? current : [...current, id]))}
          legend={`Objetivos de aprendizaje (hasta ${MAX_TRIAL_OBJECTIVES})`}
        />
        <FormError message={problem} testId="trial-error" />
        <div className="flex justify-end">
          <Button type="submit" disabled={generating} data-testid="trial-generate">
            {generating ? <Loader2 aria-hidden="true" className="size-4 animate-spin" /> : <Sparkles aria-hidden="true" className="size-4" />}
            {generating ? 'Generando…' : 'Generar planificación'}
          </Button>
        </div>
      </form>
      {keep}

      {shown ? (
        <section aria-label="Planificación generada" className="flex flex-col gap-3" data-testid="trial-plan">
          {shown.map((zone, index) => (
            <article key={`${zone.zone_type}-${index}`} className="rounded-card border border-line bg-surface p-4 shadow-card" data-testid="trial-zone">
              <h2 className="mb-2 text-lg font-semibold text-ink">{zone.title}</h2>
              <DocView doc={zone.content} />
            </article>
          ))}
        </section>
      ) : initial ? (
        <section aria-label="Planificación guardada" className="rounded-card border border-line bg-surface p-4 shadow-card" data-testid="trial-plan">
          <h2 className="mb-2 text-lg font-semibold text-ink">{initial.title}</h2>
          <DocView doc={initial.content} />
        </section>
      ) : null}
    </>
  )
}

/** Turning the visitor into a teacher with an account: same user, so the draft stays hers. */
/**
 * Keeping the tried plan: the anonymous visitor becomes a permanent user (`updateUser` with
 * e-mail and password), so the draft stays hers. `after` is where she goes once she has an
 * account (the mailed link too).
 */
export function KeepIt({ draftId, after = paths.drafts }: { draftId: string; after?: string }) {
  const supabase = useSupabase()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [sentTo, setSentTo] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const ids = { email: useId(), password: useId() }

  async function submit(event: FormEvent) {
    event.preventDefault()
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) return setError('Escribe un correo válido.')
    if (password.length < 8) return setError('La contraseña debe tener al menos 8 caracteres.')
    setSaving(true)
    setError(null)
    const { data, error: refused } = await supabase.auth.updateUser(
      { email: email.trim(), password },
      { emailRedirectTo: `${window.location.origin}${after}` },
    )
    setSaving(false)
    if (refused) return setError(authErrorMessage(refused))
    // Same user: the draft is already in her account; the browser copy is not needed.
    forgetTrial()
    if (data.user && !data.user.is_anonymous) window.location.assign(after)
    else setSentTo(email.trim())
  }

  if (sentTo)
    return (
      <p role="status" className="rounded-card border border-ok-line bg-ok-soft p-4 text-ok" data-testid="trial-sent">
        Te enviamos un correo a <strong>{sentTo}</strong>. Ábrelo para confirmar tu cuenta: esta planificación te espera en Borradores.
      </p>
    )
  return (
    <form onSubmit={(event) => void submit(event)} noValidate className="flex flex-col gap-3 rounded-card border border-brand bg-brand-soft p-4" data-testid="trial-keep" data-draft={draftId}>
      <h2 className="text-lg font-semibold text-ink">Guárdala en tu cuenta</h2>
      <p className="text-sm text-ink">Crea tu cuenta gratis y encontrarás esta planificación en Borradores, lista para asignarla a tu curso.</p>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field id={ids.email} label="Correo">
          <input id={ids.email} type="email" autoComplete="email" className={fieldClass} value={email} onChange={(event) => setEmail(event.target.value)} />
        </Field>
        <Field id={ids.password} label="Contraseña (mínimo 8 caracteres)">
          <input id={ids.password} type="password" autoComplete="new-password" className={fieldClass} value={password} onChange={(event) => setPassword(event.target.value)} />
        </Field>
      </div>
      <FormError message={error} testId="trial-keep-error" />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <Link to={paths.auth} state={{ from: `${window.location.pathname}${window.location.search}` }} className="text-sm font-medium text-brand underline">
          Ya tengo cuenta
        </Link>
        <Button type="submit" disabled={saving} data-testid="trial-create-account">
          {saving ? 'Creando…' : 'Crear cuenta y guardar'}
        </Button>
      </div>
    </form>
  )
}
