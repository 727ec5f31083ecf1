/**
 * One step of a tour on screen: the element it explains lit up, the step's card beside it
 * (or in the middle when the element is not visible), kept in place on resize and scroll.
 * The card is a modal dialog: focus stays inside, Escape skips the tour.
 */
import * as Dialog from '@radix-ui/react-dialog'
import { X } from 'lucide-react'
import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import { Button } from '@/components/ui/button'
import { scheduleAutoAction, type TourProgress } from '@/features/tour/tour-progress'
import { TOURS } from '@/features/tour/tours'
import { placeCard, type Box } from '@/features/tour/placement'

export interface TourPopoverProps {
  page: string
  progress: TourProgress
  next: () => void
  previous: () => void
  skip: () => void
  finish: () => void
}

/** The visible box of the step's element, or null when it is missing or hidden. */
function targetBox(selector: string | null): Box | null {
  if (!selector) return null
  const element = document.querySelector(selector)
  if (!element) return null
  const rect = element.getBoundingClientRect()
  if (rect.width === 0 || rect.height === 0) return null
  return { top: rect.top, left: rect.left, width: rect.width, height: rect.height }
}

export function TourPopover({ page, progress, next, previous, skip, finish }: TourPopoverProps) {
  const steps = TOURS[page] ?? []
  const index = Math.min(steps.length, Math.max(1, progress.currentStep)) - 1
  const step = steps[index]
  const last = index === steps.length - 1
  const cardRef = useRef<HTMLDivElement>(null)
  const [target, setTarget] = useState<Box | null>(null)
  const [card, setCard] = useState<{ width: number; height: number }>({ width: 320, height: 200 })
  const [viewport, setViewport] = useState({ width: window.innerWidth, height: window.innerHeight })

  // Follow the element and the window: resize, scroll (of any container) and layout changes.
  useLayoutEffect(() => {
    if (!step) return
    let frame = 0
    const measure = () => {
      cancelAnimationFrame(frame)
      frame = requestAnimationFrame(() => {
        setTarget(targetBox(step.target))
        setViewport({ width: window.innerWidth, height: window.innerHeight })
        const rect = cardRef.current?.getBoundingClientRect()
        if (rect) setCard({ width: rect.width, height: rect.height })
      })
    }
    measure()
    window.addEventListener('resize', measure)
    window.addEventListener('scroll', measure, true)
    const observer = new ResizeObserver(measure)
    observer.observe(document.body)
    if (cardRef.current) observer.observe(cardRef.current)
    const element = step.target ? document.querySelector(step.target) : null
    if (element) {
      observer.observe(element)
      element.scrollIntoView({ block: 'nearest' })
    }
    return () => {
      cancelAnimationFrame(frame)
      window.removeEventListener('resize', measure)
      window.removeEventListener('scroll', measure, true)
      observer.disconnect()
    }
  }, [step])

  useEffect(() => scheduleAutoAction(step?.autoAction), [step])

  if (!step) return null
  const placement = placeCard(target, step.position, card, viewport)
  const counter = `${index + 1} de ${steps.length}`

  return (
    <Dialog.Root open onOpenChange={(open) => (open ? undefined : skip())}>
      <Dialog.Portal>
        {target ? (
          <div
            aria-hidden="true"
            data-testid="tour-spotlight"
            className="pointer-events-none fixed z-[60] rounded-lg ring-2 ring-brand transition-all duration-150"
            style={{
              top: target.top - 6,
              left: target.left - 6,
              width: target.width + 12,
              height: target.height + 12,
              boxShadow: '0 0 0 9999px rgb(0 0 0 / 0.45)',
            }}
          />
        ) : (
          <Dialog.Overlay className="fixed inset-0 z-[60] bg-black/45" />
        )}
        <Dialog.Content
          ref={cardRef}
          data-testid="tour-step"
          data-step={index + 1}
          data-step-id={step.id}
          data-placement={placement.side}
          // The way on, not the close button, has the focus first: Enter moves along.
          onOpenAutoFocus={(event) => {
            event.preventDefault()
            cardRef.current?.querySelector<HTMLElement>('[data-primary]')?.focus()
          }}
          onPointerDownOutside={(event) => event.preventDefault()}
          onInteractOutside={(event) => event.preventDefault()}
          className="fixed z-[61] w-[min(20rem,calc(100vw-1.5rem))] rounded-card border border-line bg-surface p-4 shadow-card focus:outline-none"
          style={{ top: placement.top, left: placement.left }}
        >
          <div className="flex items-start justify-between gap-3">
            <Dialog.Title className="text-base font-semibold text-ink">{step.title}</Dialog.Title>
            <Dialog.Close
              aria-label="Saltar recorrido"
              className="-mt-1 -mr-1 inline-flex size-9 shrink-0 items-center justify-center rounded-lg text-ink-muted hover:bg-surface-muted"
            >
              <X aria-hidden="true" className="size-4" />
            </Dialog.Close>
          </div>
          <Dialog.Description className="mt-1 text-sm text-ink">{step.content}</Dialog.Description>
          <div className="mt-4 flex flex-wrap items-center justify-between gap-2">
            <span className="text-xs text-ink-muted" data-testid="tour-counter">
              {counter}
            </span>
            <div className="flex flex-wrap gap-2">
              {step.showPrev && index > 0 ? (
                <Button variant="ghost" className="min-h-9 px-3" onClick={previous} data-testid="tour-previous">
                  Anterior
                </Button>
              ) : null}
              {last ? (
                <Button className="min-h-9 px-3" onClick={finish} data-testid="tour-finish" data-primary>
                  Terminar
                </Button>
              ) : step.showNext ? (
                <Button className="min-h-9 px-3" onClick={next} data-testid="tour-next" data-primary>
                  Siguiente
                </Button>
              ) : (
                <Button className="min-h-9 px-3" onClick={finish} data-testid="tour-finish" data-primary>
                  Terminar
                </Button>
              )}
            </div>
          </div>
          <button type="button" onClick={skip} className="mt-3 text-xs font-medium text-ink-muted underline" data-testid="tour-skip">
            Saltar recorrido
          </button>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
