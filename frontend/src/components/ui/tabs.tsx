/**
 * Page sections as tabs: a segmented row of tab buttons and the panel of the chosen one
 * (ARIA tabs: each tab controls its panel, the panel is labelled by its tab).
 */
import type { ReactNode } from 'react'
import { cn } from '@/lib/cn'

export interface TabsProps<T extends string> {
  label: string
  tabs: ReadonlyArray<{ id: T; label: string }>
  value: T
  onChange: (id: T) => void
  children: ReactNode
}

export function Tabs<T extends string>({ label, tabs, value, onChange, children }: TabsProps<T>) {
  return (
    <>
      <div role="tablist" aria-label={label} className="mb-4 inline-flex rounded-lg border border-line bg-surface p-1">
        {tabs.map((tab) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            aria-selected={value === tab.id}
            aria-controls={`panel-${tab.id}`}
            onClick={() => onChange(tab.id)}
            className={cn('min-h-9 rounded-md px-3 text-sm font-medium', value === tab.id ? 'bg-brand text-brand-ink' : 'text-ink hover:bg-surface-muted')}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${value}`} aria-labelledby={`tab-${value}`}>
        {children}
      </div>
    </>
  )
}
