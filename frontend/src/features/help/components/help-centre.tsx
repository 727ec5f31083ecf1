/**
 * The help centre: a search over every question (accents ignored) and the topics as
 * expandable questions. Used by the in-app Ayuda page and the public Centro de ayuda.
 */
import { Search } from 'lucide-react'
import { useId, useState } from 'react'
import { fieldClass } from '@/components/ui/field'
import { MarkdownText } from '@/components/ui/markdown-text'
import { searchHelp } from '@/features/help/help-topics'

export function HelpCentre() {
  const [words, setWords] = useState('')
  const searchId = useId()
  const topics = searchHelp(words)
  const searching = words.trim() !== ''

  return (
    <div className="flex max-w-3xl flex-col gap-6" data-testid="help-centre">
      <div className="relative">
        <label htmlFor={searchId} className="sr-only">
          Buscar en la ayuda
        </label>
        <Search aria-hidden="true" className="absolute top-3 left-3 size-5 text-ink-muted" />
        <input
          id={searchId}
          type="search"
          className={`${fieldClass} pl-10`}
          value={words}
          onChange={(event) => setWords(event.target.value)}
          placeholder="Busca tu duda: horario, estrellas, contraseña…"
        />
      </div>
      {topics.length === 0 ? (
        <p className="text-sm text-ink-muted" role="status">
          Ninguna pregunta coincide con «{words.trim()}». Prueba con otras palabras.
        </p>
      ) : (
        topics.map((topic) => (
          <section key={topic.id} aria-labelledby={`help-${topic.id}`}>
            <h2 id={`help-${topic.id}`} className="mb-2 text-lg font-semibold text-ink">
              {topic.title}
            </h2>
            <div className="flex flex-col gap-2">
              {topic.questions.map((item) => (
                // Open while searching, so the match is in view.
                <details key={`${item.id}-${searching}`} open={searching} className="rounded-card border border-line bg-surface shadow-card" data-testid="help-question">
                  <summary className="cursor-pointer rounded-card px-4 py-3 font-medium text-ink hover:bg-surface-muted focus-visible:outline-2 focus-visible:outline-brand">
                    {item.question}
                  </summary>
                  <MarkdownText text={item.answer} className="px-4 py-2 text-sm" />
                </details>
              ))}
            </div>
          </section>
        ))
      )}
    </div>
  )
}
