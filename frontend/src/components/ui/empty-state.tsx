import type { LucideIcon } from 'lucide-react'
import type { ReactNode } from 'react'

export interface EmptyStateProps {
  icon: LucideIcon
  title: string
  description: string
  children?: ReactNode
}

/** An honest "nothing here yet" panel: no sample data, just what is coming and what to do. */
export function EmptyState({ icon: Icon, title, description, children }: EmptyStateProps) {
  return (
    <section
      data-testid="empty-state"
      className="flex flex-col items-center gap-3 rounded-card border border-dashed border-line bg-surface px-6 py-12 text-center"
    >
      <Icon aria-hidden="true" className="size-10 text-brand" />
      <h2 className="text-lg font-semibold text-ink">{title}</h2>
      <p className="max-w-prose text-sm text-ink-muted">{description}</p>
      {children}
    </section>
  )
}
