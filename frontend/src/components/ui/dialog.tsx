/**
 * The app's dialog: a sheet from the bottom on phones, centred on wider screens, with a
 * title, a description, a close button and focus kept inside (Radix). `size="small"` is for
 * confirmations.
 */
import * as Dialog from '@radix-ui/react-dialog'
import { X } from 'lucide-react'
import type { ReactNode } from 'react'
import { cn } from '@/lib/cn'
import { Button } from './button'

export interface AppDialogProps {
  title: string
  description?: string
  onClose: () => void
  children: ReactNode
  size?: 'form' | 'small'
  testId?: string
}

export function AppDialog({ title, description, onClose, children, size = 'form', testId }: AppDialogProps) {
  return (
    <Dialog.Root open onOpenChange={(open) => (open ? undefined : onClose())}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content
          {...(description ? {} : { 'aria-describedby': undefined })}
          className={cn(
            'fixed z-50 bg-surface p-5 shadow-card',
            size === 'form'
              ? 'inset-x-0 bottom-0 max-h-[92vh] overflow-y-auto rounded-t-card sm:inset-auto sm:top-1/2 sm:left-1/2 sm:w-[32rem] sm:-translate-x-1/2 sm:-translate-y-1/2 sm:rounded-card'
              : 'top-1/2 left-1/2 w-[min(28rem,92vw)] -translate-x-1/2 -translate-y-1/2 rounded-card',
          )}
          data-testid={testId}
        >
          <div className="mb-4 flex items-start justify-between gap-4">
            <div>
              <Dialog.Title className="text-xl font-semibold text-ink">{title}</Dialog.Title>
              {description ? (
                <Dialog.Description className="mt-1 text-sm text-ink-muted">{description}</Dialog.Description>
              ) : null}
            </div>
            <Dialog.Close
              aria-label="Cerrar"
              className="inline-flex size-10 shrink-0 items-center justify-center rounded-lg text-ink-muted hover:bg-surface-muted"
            >
              <X aria-hidden="true" className="size-5" />
            </Dialog.Close>
          </div>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}

/** "¿Eliminar …?": a question, what follows from it, Cancelar and the dangerous action. */
export function ConfirmDialog({
  title,
  description,
  confirmLabel,
  onConfirm,
  onClose,
  confirmTestId,
}: {
  title: string
  description: string
  confirmLabel: string
  onConfirm: () => void
  onClose: () => void
  confirmTestId?: string
}) {
  return (
    <AppDialog title={title} description={description} onClose={onClose} size="small">
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="secondary" onClick={onClose}>
          Cancelar
        </Button>
        <Button
          variant="danger"
          data-testid={confirmTestId}
          onClick={() => {
            onClose()
            onConfirm()
          }}
        >
          {confirmLabel}
        </Button>
      </div>
    </AppDialog>
  )
}
