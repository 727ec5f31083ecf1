import type { ReactNode } from 'react'

/** The class of the app's text inputs and selects: 44 px tall, full width. */
export const fieldClass = 'min-h-11 w-full rounded-lg border border-line bg-surface px-3 text-ink disabled:opacity-60'

/** A labelled form control with the problem the validation found, if any. */
export function Field({ id, label, problem, children }: { id: string; label: string; problem?: string | undefined; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium text-ink">
        {label}
      </label>
      {children}
      {problem ? (
        <p className="text-sm text-bad" role="alert">
          {problem}
        </p>
      ) : null}
    </div>
  )
}

/** A refusal shown inside a form, above its buttons. */
export function FormError({ message, testId }: { message: string | null; testId?: string }) {
  return message ? (
    <p role="alert" className="rounded-lg bg-bad/10 p-3 text-sm text-bad" data-testid={testId}>
      {message}
    </p>
  ) : null
}
