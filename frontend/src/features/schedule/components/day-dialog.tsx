/**
 * The teacher's school day: when the first hour starts, how many 45-minute hours there are,
 * and the breaks after some of them. Checked with the rules the database applies; the end of
 * the day is shown as it changes.
 */
import { Plus, Trash2 } from 'lucide-react'
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { AppDialog } from '@/components/ui/dialog'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import { DEFAULT_DAY, MAX_DAY_HOURS, dayEnd, dayShapeProblem, formatTime, parseTime, type Break, type DayShape } from '@/features/schedule/grid'

export interface DayDialogProps {
  shape: DayShape
  saving: boolean
  saveError: string | null
  onSave: (shape: DayShape) => void
  onClose: () => void
}

export function DayDialog({ shape, saving, saveError, onSave, onClose }: DayDialogProps) {
  const [start, setStart] = useState(formatTime(shape.start))
  const [hours, setHours] = useState(String(shape.hours))
  const [breaks, setBreaks] = useState<Break[]>(shape.breaks)
  const ids = { start: useId(), hours: useId() }

  let draft: DayShape | null = null
  let problem: string | null
  try {
    draft = { start: parseTime(start), hours: Number(hours), breaks }
    problem = dayShapeProblem(draft)
  } catch {
    problem = 'Escribe la hora de inicio como 08:00.'
  }

  function submit(event: FormEvent) {
    event.preventDefault()
    if (draft && !problem) onSave(draft)
  }

  const setBreak = (index: number, change: Partial<Break>) =>
    setBreaks((current) => current.map((pause, at) => (at === index ? { ...pause, ...change } : pause)))
  const freeHour = () => {
    const used = new Set(breaks.map((b) => b.afterHour))
    for (let hour = 1; hour < Number(hours); hour += 1) if (!used.has(hour)) return hour
    return 1
  }

  return (
    <AppDialog
      title="Tu jornada"
      description="Las horas pedagógicas duran 45 minutos. Ajusta el inicio, cuántas horas tiene tu día y los recreos."
      onClose={onClose}
      testId="day-dialog"
    >
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <div className="grid grid-cols-2 gap-3">
          <Field id={ids.start} label="Primera hora a las">
            <input id={ids.start} type="time" step={300} min="07:00" className={fieldClass} value={start} onChange={(event) => setStart(event.target.value)} />
          </Field>
          <Field id={ids.hours} label="Horas pedagógicas">
            <input
              id={ids.hours}
              type="number"
              min={1}
              max={MAX_DAY_HOURS}
              inputMode="numeric"
              className={fieldClass}
              value={hours}
              onChange={(event) => setHours(event.target.value)}
            />
          </Field>
        </div>
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium text-ink">Recreos y almuerzo</legend>
          {breaks.length === 0 ? <p className="text-sm text-ink-muted">Sin recreos.</p> : null}
          {breaks.map((pause, index) => (
            <div key={index} className="grid grid-cols-[1fr_5.5rem_2.75rem] items-end gap-2 sm:grid-cols-[9rem_1fr_5.5rem_2.75rem]">
              <label className="col-span-3 flex flex-col gap-1 text-xs text-ink-muted sm:col-span-1">
                Después de la hora
                <select className={fieldClass} value={pause.afterHour} onChange={(event) => setBreak(index, { afterHour: Number(event.target.value) })}>
                  {Array.from({ length: Math.max(1, Number(hours) - 1) }, (_, at) => at + 1).map((hour) => (
                    <option key={hour} value={hour}>
                      {hour}ª
                    </option>
                  ))}
                </select>
              </label>
              <label className="flex flex-col gap-1 text-xs text-ink-muted">
                Nombre
                <input className={fieldClass} value={pause.label} maxLength={30} onChange={(event) => setBreak(index, { label: event.target.value })} />
              </label>
              <label className="flex flex-col gap-1 text-xs text-ink-muted">
                Minutos
                <input
                  className={fieldClass}
                  type="number"
                  min={5}
                  max={90}
                  inputMode="numeric"
                  value={pause.minutes}
                  onChange={(event) => setBreak(index, { minutes: Number(event.target.value) })}
                />
              </label>
              <Button variant="ghost" className="px-0" aria-label={`Quitar ${pause.label || 'recreo'}`} onClick={() => setBreaks((current) => current.filter((_, at) => at !== index))}>
                <Trash2 aria-hidden="true" className="size-4" />
              </Button>
            </div>
          ))}
          <Button variant="secondary" className="self-start" onClick={() => setBreaks((current) => [...current, { afterHour: freeHour(), minutes: 15, label: 'Recreo' }])}>
            <Plus aria-hidden="true" className="size-4" /> Agregar recreo
          </Button>
        </fieldset>
        {problem ? (
          <p role="alert" className="rounded-lg bg-wait-soft p-3 text-sm text-wait" data-testid="day-problem">
            {problem}
          </p>
        ) : draft ? (
          <p className="text-sm text-ink-muted">
            Tu jornada va de {formatTime(draft.start)} a {formatTime(dayEnd(draft))}.
          </p>
        ) : null}
        <FormError message={saveError} />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:items-center">
          <Button
            variant="ghost"
            className="sm:mr-auto"
            onClick={() => {
              setStart(formatTime(DEFAULT_DAY.start))
              setHours(String(DEFAULT_DAY.hours))
              setBreaks(DEFAULT_DAY.breaks)
            }}
          >
            Jornada habitual
          </Button>
          <Button variant="secondary" onClick={onClose}>
            Cancelar
          </Button>
          <Button type="submit" disabled={saving || problem !== null} data-testid="save-day">
            {saving ? 'Guardando…' : 'Guardar jornada'}
          </Button>
        </div>
      </form>
    </AppDialog>
  )
}
