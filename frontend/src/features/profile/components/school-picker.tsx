/**
 * Choosing a school of the directory: a combobox that searches as the teacher types (name,
 * comuna or RBD), with the arrow keys, Enter and Escape, and a clear choice once made.
 */
import { School, X } from 'lucide-react'
import { useId, useState, type KeyboardEvent } from 'react'
import { Button } from '@/components/ui/button'
import { fieldClass } from '@/components/ui/field'
import { cn } from '@/lib/cn'
import { useSchool } from '@/features/profile/api/profile'
import { describeSchool, searchable, useSchoolSearch, type SchoolOption } from '@/features/profile/api/school-search'

export interface SchoolPickerProps {
  value: number | null
  onChange: (rbd: number | null) => void
  label?: string
  hint?: string
  testId?: string
}

export function SchoolPicker({ value, onChange, label = 'Establecimiento', hint, testId = 'school-picker' }: SchoolPickerProps) {
  const chosen = useSchool(value)
  const [editing, setEditing] = useState(value === null)
  const [term, setTerm] = useState('')
  const [active, setActive] = useState(0)
  const results = useSchoolSearch(term)
  const ids = { input: useId(), list: useId(), hint: useId() }
  const options = searchable(term) ? (results.data ?? []) : []
  const open = searchable(term)

  function choose(school: SchoolOption) {
    onChange(school.RBD)
    setEditing(false)
    setTerm('')
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    const picked = options[active]
    if (event.key === 'ArrowDown' && options.length > 0) {
      event.preventDefault()
      setActive((index) => (index + 1) % options.length)
    } else if (event.key === 'ArrowUp' && options.length > 0) {
      event.preventDefault()
      setActive((index) => (index - 1 + options.length) % options.length)
    } else if (event.key === 'Enter' && open && picked) {
      event.preventDefault()
      choose(picked)
    } else if (event.key === 'Escape' && term) {
      event.preventDefault()
      setTerm('')
    }
  }

  if (!editing && value !== null) {
    return (
      <div className="flex flex-col gap-1" data-testid={testId}>
        <span className="text-sm font-medium text-ink">{label}</span>
        <div className="flex items-center justify-between gap-2 rounded-lg border border-line px-3 py-2">
          <span className="flex min-w-0 items-center gap-2 text-sm text-ink" data-testid={`${testId}-chosen`}>
            <School aria-hidden="true" className="size-4 shrink-0 text-brand" />
            <span className="break-words">
              {chosen.data ? describeSchool(chosen.data) : `RBD ${value}`}
            </span>
          </span>
          <span className="flex shrink-0 gap-1">
            <Button variant="ghost" className="min-h-9 px-2" onClick={() => setEditing(true)}>
              Cambiar
            </Button>
            <Button
              variant="ghost"
              className="min-h-9 px-2"
              aria-label="Quitar establecimiento"
              onClick={() => {
                onChange(null)
                setEditing(true)
              }}
            >
              <X aria-hidden="true" className="size-4" />
            </Button>
          </span>
        </div>
      </div>
    )
  }

  return (
    <div className="flex flex-col gap-1" data-testid={testId}>
      <label htmlFor={ids.input} className="text-sm font-medium text-ink">
        {label}
      </label>
      <input
        id={ids.input}
        role="combobox"
        aria-expanded={open}
        aria-controls={ids.list}
        aria-autocomplete="list"
        aria-describedby={ids.hint}
        aria-activedescendant={open && options[active] ? `${ids.list}-${options[active].RBD}` : undefined}
        className={fieldClass}
        value={term}
        onChange={(event) => {
          setTerm(event.target.value)
          setActive(0)
        }}
        onKeyDown={onKeyDown}
        placeholder="Nombre, comuna o RBD"
        autoComplete="off"
        spellCheck={false}
      />
      <p id={ids.hint} className="text-xs text-ink-muted">
        {hint ?? 'Escribe el nombre de tu colegio, su comuna o su RBD.'}
      </p>
      {open ? (
        <ul
          id={ids.list}
          role="listbox"
          aria-label="Establecimientos encontrados"
          className="mt-1 max-h-72 overflow-y-auto rounded-lg border border-line bg-surface shadow-card"
        >
          {options.length === 0 ? (
            <li className="p-3 text-sm text-ink-muted" role="presentation">
              {results.isFetching ? 'Buscando…' : 'No encontramos establecimientos con esa búsqueda.'}
            </li>
          ) : (
            options.map((school, index) => (
              <li
                key={school.RBD}
                id={`${ids.list}-${school.RBD}`}
                role="option"
                aria-selected={index === active}
                data-testid="school-option"
                // The input keeps the focus: a click chooses without blurring it first.
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => choose(school)}
                onMouseEnter={() => setActive(index)}
                className={cn('min-h-11 cursor-pointer px-3 py-2 text-sm text-ink', index === active && 'bg-brand-soft')}
              >
                {describeSchool(school)}
              </li>
            ))
          )}
        </ul>
      ) : null}
      {value !== null ? (
        <button type="button" className="self-start text-sm font-medium text-brand underline" onClick={() => setEditing(false)}>
          Mantener el establecimiento elegido
        </button>
      ) : null}
    </div>
  )
}
