/**
 * Indicadores de evaluación: pick a level, a subject and one of its OAs, then add, reword or
 * remove the OA's suggested indicators (teachers read them with the curriculum).
 */
import { Plus, Trash2 } from 'lucide-react'
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Field, fieldClass } from '@/components/ui/field'
import { Skeleton } from '@/components/ui/skeleton'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { useObjectives } from '@/features/planner'
import { LevelSubjectFields } from './level-subject-fields'
import { INDICATOR_MAX, nextPosition, useIndicatorChanges, useIndicators, type Indicator } from '@/features/content-creation/api/indicators'

const refusal = (error: unknown) => (isDatabaseError(error) ? databaseErrorMessage(error) : 'Inténtalo de nuevo.')

export function IndicatorsPanel() {
  const objectiveField = useId()
  const [level, setLevel] = useState('')
  const [subject, setSubject] = useState('')
  const [objectiveId, setObjectiveId] = useState('')
  const objectives = useObjectives(level || undefined, subject || undefined)
  const objective = objectives.data?.find((item) => item.id === objectiveId)

  return (
    <div className="flex flex-col gap-4" data-testid="indicators-panel">
      <div className="grid gap-4 sm:grid-cols-2">
        <LevelSubjectFields
          level={level}
          subject={subject}
          noLevel="Elige un nivel"
          onLevel={(value) => {
            setLevel(value)
            setSubject('')
            setObjectiveId('')
          }}
          onSubject={(value) => {
            setSubject(value)
            setObjectiveId('')
          }}
        />
      </div>
      {level && subject ? (
        <Field id={objectiveField} label="Objetivo de aprendizaje">
          <select id={objectiveField} className={fieldClass} value={objectiveId} disabled={objectives.isPending} onChange={(event) => setObjectiveId(event.target.value)}>
            <option value="">{objectives.isPending ? 'Cargando los OA…' : 'Elige un OA'}</option>
            {objectives.data?.map((item) => (
              <option key={item.id} value={item.id}>
                {item.code} — {item.statement.length > 90 ? `${item.statement.slice(0, 90)}…` : item.statement}
              </option>
            ))}
          </select>
        </Field>
      ) : (
        <p className="text-sm text-ink-muted">Elige el nivel y la asignatura para ver sus OA.</p>
      )}
      {objective ? (
        <section className="rounded-card border border-line bg-surface p-4 shadow-card" aria-labelledby="indicators-title">
          <h2 id="indicators-title" className="font-semibold text-ink">
            Indicadores de {objective.code}
          </h2>
          <p className="mt-1 text-sm text-ink-muted">{objective.statement}</p>
          <IndicatorList objectiveId={objective.id} />
        </section>
      ) : null}
    </div>
  )
}

function IndicatorList({ objectiveId }: { objectiveId: string }) {
  const indicators = useIndicators(objectiveId)
  const { add, update, remove } = useIndicatorChanges(objectiveId)
  const [text, setText] = useState('')
  const newId = useId()

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!text.trim()) return
    add.mutate(
      { text, position: nextPosition(indicators.data ?? []) },
      { onSuccess: () => setText(''), onError: (error) => notify.error('No se pudo agregar el indicador', refusal(error)) },
    )
  }

  if (indicators.isPending) return <Skeleton className="mt-3 h-24 w-full" />
  return (
    <div className="mt-3 flex flex-col gap-3">
      {indicators.data?.length ? (
        <ol className="flex flex-col gap-2" data-testid="indicator-list">
          {indicators.data.map((item, index) => (
            <IndicatorRow
              key={item.id}
              number={index + 1}
              indicator={item}
              onSave={(value) => update.mutate({ id: item.id, text: value }, { onError: (error) => notify.error('No se pudo guardar el indicador', refusal(error)) })}
              onRemove={() => remove.mutate(item.id, { onError: (error) => notify.error('No se pudo eliminar el indicador', refusal(error)) })}
            />
          ))}
        </ol>
      ) : (
        <p className="text-sm text-ink-muted">Este OA aún no tiene indicadores.</p>
      )}
      <form onSubmit={submit} className="flex flex-col gap-2 sm:flex-row">
        <label htmlFor={newId} className="sr-only">
          Nuevo indicador
        </label>
        <input id={newId} className={fieldClass} maxLength={INDICATOR_MAX} value={text} onChange={(event) => setText(event.target.value)} placeholder="Ej.: Representan fracciones en la recta numérica." />
        <Button type="submit" disabled={add.isPending || !text.trim()} className="shrink-0">
          <Plus aria-hidden="true" className="size-4" /> Agregar indicador
        </Button>
      </form>
    </div>
  )
}

function IndicatorRow({ number, indicator, onSave, onRemove }: { number: number; indicator: Indicator; onSave: (text: string) => void; onRemove: () => void }) {
  const [text, setText] = useState(indicator.text)
  const changed = text.trim() !== indicator.text && text.trim() !== ''
  return (
    <li className="flex items-center gap-2" data-testid="indicator">
      <span className="shrink-0 text-sm text-ink-muted tabular-nums">{number}.</span>
      <input
        className={fieldClass}
        aria-label={`Indicador ${number}`}
        maxLength={INDICATOR_MAX}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onBlur={() => (changed ? onSave(text) : undefined)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && changed) onSave(text)
        }}
      />
      <Button variant="ghost" className="min-h-11 shrink-0" onClick={onRemove} aria-label={`Eliminar el indicador ${number}`}>
        <Trash2 aria-hidden="true" className="size-4" />
      </Button>
    </li>
  )
}
