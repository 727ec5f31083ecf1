/** The Demo 2025 settings of one account: stars, last day, course cap and whether it is active. */
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { AppDialog } from '@/components/ui/dialog'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import { addDays, chileToday } from '@/lib/dates'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { demoProblem, useSaveDemo, type AdminUser, type DemoSettings } from '@/features/platform-admin/api/users'

/** A new demo lasts two months from today unless the admin says otherwise. */
const DEFAULT_DEMO_DAYS = 60
const STARS_PER_TOKEN_NOTE = '1 estrella ≈ 515 tokens'

export function DemoDialog({ user, who, onClose }: { user: AdminUser; who: string; onClose: () => void }) {
  const save = useSaveDemo()
  const ids = { stars: useId(), end: useId(), courses: useId(), active: useId() }
  const inDemo = user.demo_total_stars !== null
  const used = user.demo_used_stars ?? 0
  const [form, setForm] = useState({
    stars: String(user.demo_total_stars ?? 500),
    end: user.demo_end_date ?? addDays(chileToday(), DEFAULT_DEMO_DAYS),
    courses: String(user.demo_max_courses ?? 3),
    active: user.demo_is_active ?? true,
  })
  const [refusal, setRefusal] = useState<string | null>(null)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const settings: DemoSettings = {
      total_stars: Number(form.stars),
      demo_end_date: form.end,
      max_courses: Number(form.courses),
      is_active: form.active,
    }
    const problem = demoProblem(settings, used)
    if (problem) {
      setRefusal(problem)
      return
    }
    save.mutate(
      { userId: user.user_id, settings },
      {
        onSuccess: () => {
          notify.success(inDemo ? 'Demo actualizada' : 'Cuenta agregada a la Demo 2025', who)
          onClose()
        },
        onError: (error) => setRefusal(isDatabaseError(error) ? databaseErrorMessage(error) : 'No se pudo guardar. Inténtalo de nuevo.'),
      },
    )
  }

  return (
    <AppDialog
      title={inDemo ? 'Demo 2025' : 'Agregar a la Demo 2025'}
      description={`${who}${inDemo ? ` · ha usado ${used} estrellas` : ''}. ${STARS_PER_TOKEN_NOTE}.`}
      onClose={onClose}
      testId="demo-dialog"
    >
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id={ids.stars} label="Estrellas en total">
            <input id={ids.stars} className={fieldClass} inputMode="numeric" value={form.stars} onChange={(event) => setForm({ ...form, stars: event.target.value })} />
          </Field>
          <Field id={ids.courses} label="Máximo de cursos">
            <input id={ids.courses} className={fieldClass} inputMode="numeric" value={form.courses} onChange={(event) => setForm({ ...form, courses: event.target.value })} />
          </Field>
        </div>
        <Field id={ids.end} label="Último día de la demo">
          <input id={ids.end} type="date" className={fieldClass} value={form.end} onChange={(event) => setForm({ ...form, end: event.target.value })} />
        </Field>
        <label htmlFor={ids.active} className="flex min-h-11 items-center gap-3 text-sm text-ink">
          <input id={ids.active} type="checkbox" className="size-5" checked={form.active} onChange={(event) => setForm({ ...form, active: event.target.checked })} />
          Demo activa (si no, no puede generar con IA)
        </label>
        <FormError message={refusal} testId="demo-refusal" />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose}>
            Cancelar
          </Button>
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? 'Guardando…' : 'Guardar'}
          </Button>
        </div>
      </form>
    </AppDialog>
  )
}
