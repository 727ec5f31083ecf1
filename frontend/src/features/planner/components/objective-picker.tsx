/**
 * The curriculum browser: the OAs of a course's level and subject, searched by code, words or
 * eje with their official text, chosen up to a limit. Used by every form that starts a plan.
 */
import type { UseQueryResult } from '@tanstack/react-query'
import { Search } from 'lucide-react'
import { useId, useMemo, useState } from 'react'
import { fieldClass } from '@/components/ui/field'
import { cn } from '@/lib/cn'
import type { Objective } from '@/features/planner/api/plans'

/** Objectives matching the browser's words (code, statement or eje) and eje. */
export function filterObjectives(objectives: readonly Objective[], words: string, eje: string): Objective[] {
  const needle = fold(words.trim())
  return objectives.filter((objective) => {
    if (eje && objective.eje !== eje) return false
    if (!needle) return true
    const haystack = fold(`${objective.code} ${objective.statement} ${objective.eje ?? ''}`)
    return needle.split(/\s+/).every((word) => haystack.includes(word))
  })
}

const fold = (text: string) =>
  text
    .toLocaleLowerCase('es')
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')

export interface ObjectivePickerProps {
  /** The course's OAs; null while no course is chosen. */
  objectives: Pick<UseQueryResult<Objective[]>, 'data' | 'isPending'> | null
  chosen: string[]
  max: number
  onToggle: (id: string) => void
  problem?: string | undefined
  legend?: string
}

export function ObjectivePicker({ objectives, chosen, max, onToggle, problem, legend }: ObjectivePickerProps) {
  const [words, setWords] = useState('')
  const [eje, setEje] = useState('')
  const ids = { search: useId(), eje: useId() }
  const all = objectives?.data
  const ejes = useMemo(() => [...new Set((all ?? []).map((o) => o.eje).filter((e): e is string => Boolean(e)))], [all])
  const shown = filterObjectives(all ?? [], words, eje)
  const codeOf = (id: string) => all?.find((o) => o.id === id)?.code ?? id

  return (
    <fieldset className="flex flex-col gap-3" disabled={!objectives}>
      <legend className="text-base font-semibold text-ink">{legend ?? `Objetivos de aprendizaje (hasta ${max})`}</legend>
      {chosen.length > 0 ? (
        <ul className="flex flex-wrap gap-2" aria-label="OA elegidos">
          {chosen.map((id) => (
            <li key={id}>
              <button type="button" onClick={() => onToggle(id)} className="rounded-full bg-brand-soft px-3 py-1 text-sm font-medium text-brand-strong" aria-label={`Quitar ${codeOf(id)}`}>
                {codeOf(id)} ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {problem ? (
        <p role="alert" className="text-sm text-bad">
          {problem}
        </p>
      ) : null}
      <div className="grid gap-2 sm:grid-cols-[1fr_14rem]">
        <label htmlFor={ids.search} className="relative">
          <span className="sr-only">Buscar OA por código o palabras</span>
          <Search aria-hidden="true" className="absolute top-3 left-3 size-5 text-ink-muted" />
          <input id={ids.search} className={cn(fieldClass, 'pl-10')} value={words} onChange={(event) => setWords(event.target.value)} placeholder="Buscar por código o palabras (ej.: fracciones)" />
        </label>
        <label htmlFor={ids.eje}>
          <span className="sr-only">Eje</span>
          <select id={ids.eje} className={fieldClass} value={eje} onChange={(event) => setEje(event.target.value)}>
            <option value="">Todos los ejes</option>
            {ejes.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!objectives ? (
        <p className="text-sm text-ink-muted">Elige el curso para ver sus OA.</p>
      ) : objectives.isPending ? (
        <p className="text-sm text-ink-muted">Cargando los OA…</p>
      ) : (
        <ul className="flex max-h-96 flex-col gap-1 overflow-y-auto rounded-lg border border-line p-1" aria-label="OA del currículum" data-testid="objective-list">
          {shown.length === 0 ? <li className="p-3 text-sm text-ink-muted">Ningún OA coincide con la búsqueda.</li> : null}
          {shown.map((objective) => {
            const selected = chosen.includes(objective.id)
            return (
              <li key={objective.id}>
                <label className={cn('flex cursor-pointer gap-3 rounded-md p-2 hover:bg-surface-muted', selected && 'bg-brand-soft')}>
                  <input type="checkbox" className="mt-1 size-4 shrink-0" checked={selected} disabled={!selected && chosen.length >= max} onChange={() => onToggle(objective.id)} />
                  <span className="text-sm">
                    <strong className="text-ink">{objective.code}</strong>
                    {objective.eje ? <span className="ml-2 text-xs text-ink-muted">{objective.eje}</span> : null}
                    <span className="block text-ink">{objective.statement}</span>
                  </span>
                </label>
              </li>
            )
          })}
        </ul>
      )}
    </fieldset>
  )
}
