import type { ReactNode } from 'react'

/** The title block of a page (one h1 per page). */
export function PageHeader({ title, description, children }: { title: string; description?: string; children?: ReactNode }) {
  return (
    <header className="mb-6 flex flex-col gap-2">
      <h1 className="text-2xl font-bold tracking-tight text-ink sm:text-3xl">{title}</h1>
      {description ? <p className="max-w-prose text-ink-muted">{description}</p> : null}
      {children}
    </header>
  )
}
