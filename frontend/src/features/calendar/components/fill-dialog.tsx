/**
 * Filling the calendar from the weekly schedule: every block of the Horario becomes a class
 * on each of its weekdays between two dates — by default the school year's days of classes —
 * except on holidays, the winter break and days an event suspends; classes already there are
 * kept, never duplicated.
 */
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { AppDialog } from '@/components/ui/dialog'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import { formatDate, type IsoDay } from '@/lib/dates'
import { fillRangeProblem, type SchoolYear } from '@/features/calendar/year'

export interface FillDialogProps {
  year: SchoolYear | undefined
  regionName: string
  initial: { from: IsoDay; to: IsoDay }
  saving: boolean
  saveError: string | null
  onFill: (range: { from: IsoDay; to: IsoDay }) => void
  onClose: () => void
}

export function FillDialog({ year, regionName, initial, saving, saveError, onFill, onClose }: FillDialogProps) {
  const [from, setFrom] = useState(initial.from)
  const [to, setTo] = useState(initial.to)
  const [problem, setProblem] = useState<string | null>(null)
  const ids = { from: useId(), to: useId() }

  function submit(event: FormEvent) {
    event.preventDefault()
    const found = fillRangeProblem(from, to)
    setProblem(found)
    if (!found) onFill({ from, to })
  }

  return (
    <AppDialog
      title="Completar el calendario"
      description="Crea las clases de tu horario semanal en cada semana del rango. Se saltan los feriados, las vacaciones de invierno y los días sin clases; las clases que ya existen no se duplican."
      onClose={onClose}
      testId="fill-dialog"
    >
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <div className="grid grid-cols-2 gap-3">
          <Field id={ids.from} label="Desde">
            <input id={ids.from} type="date" className={fieldClass} value={from} onChange={(e) => setFrom(e.target.value)} />
          </Field>
          <Field id={ids.to} label="Hasta">
            <input id={ids.to} type="date" className={fieldClass} value={to} onChange={(e) => setTo(e.target.value)} />
          </Field>
        </div>
        {year ? (
          <p className="text-sm text-ink-muted">
            Año escolar {year.academicYear} en la región {regionName}: clases del {formatDate(year.studentsStart)} al {formatDate(year.classesEnd)},
            vacaciones de invierno del {formatDate(year.winterBreakStart)} al {formatDate(year.winterBreakEnd)}.
          </p>
        ) : null}
        {problem ? (
          <p role="alert" className="text-sm text-bad">
            {problem}
          </p>
        ) : null}
        <FormError message={saveError} testId="fill-error" />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose}>
            Cancelar
          </Button>
          <Button type="submit" disabled={saving} data-testid="confirm-fill">
            {saving ? 'Creando clases…' : 'Crear clases'}
          </Button>
        </div>
      </form>
    </AppDialog>
  )
}
