/**
 * The interactive week: the school day's hours and breaks down the side, the weekdays across,
 * the teacher's blocks over them in their courses' colours. Empty hours are buttons (click,
 * tap or Enter creates a block there; dragging down over free hours makes it longer). Blocks
 * are buttons too: dragged with a mouse (or, on a touchscreen, after a long press) they move,
 * their bottom edge resizes them, and with the keyboard the arrows move them and Shift with
 * ↑/↓ changes their length. A place that would overlap another block is shown in red with the
 * reason, and nothing is saved; the caller saves what is dropped on a free place.
 */
import { useEffect, useRef, useState, type PointerEvent as ReactPointerEvent, type KeyboardEvent } from 'react'
import type { CourseLabel } from '@/features/courses'
import { cn } from '@/lib/cn'
import {
  PEDAGOGICAL_HOUR,
  WEEKDAY_NAMES,
  blockEnd,
  blockProblem,
  dayRows,
  findConflict,
  formatTime,
  hoursUntilBreak,
  isExample,
  moveBlock,
  visibleRange,
  type DayShape,
  type Move,
  type TimedBlock,
} from '@/features/schedule/grid'
import type { ScheduleBlock } from '@/features/schedule/api/schedule'

/** Pixels per minute: a 45-minute hour is 54 px tall. */
const PX_PER_MINUTE = 1.2
/** A touch held this long on a block picks it up. */
const LONG_PRESS_MS = 350
/** Pointer travel that turns a press into a drag (mouse) or cancels a long press (touch). */
const DRAG_THRESHOLD_PX = 6

export interface WeekGridProps {
  shape: DayShape
  blocks: ScheduleBlock[]
  labels: Map<string, CourseLabel>
  /** The weekdays shown (all five on wide screens, one on phones). */
  days: number[]
  /** An empty place was chosen: create a block there. */
  onCreate: (place: TimedBlock) => void
  /** A block was clicked or opened with Enter. */
  onOpen: (block: ScheduleBlock) => void
  /** A block was dropped or moved by keyboard to a free, valid place. */
  onMove: (block: ScheduleBlock, place: TimedBlock) => void
  /** Something for screen readers (and a visible status line) to say. */
  onAnnounce: (message: string) => void
}

type Gesture =
  | { kind: 'select'; weekday: number; start: number; hours: number; pointerId: number }
  | {
      kind: 'move' | 'resize'
      block: ScheduleBlock
      pointerId: number
      originX: number
      originY: number
      /** Minutes between the block's top and where it was grabbed. */
      grabOffset: number
      active: boolean
      target: TimedBlock
    }

/** Describes a place in Spanish: "lunes 08:00–09:30". */
export function describePlace(place: TimedBlock): string {
  return `${WEEKDAY_NAMES[place.weekday]?.toLowerCase() ?? ''} ${formatTime(place.start)}–${formatTime(blockEnd(place))}`
}

/** Why a block cannot go to `place`, in Spanish; `null` when it can. */
export function placeProblem(
  shape: DayShape,
  blocks: ScheduleBlock[],
  labels: Map<string, CourseLabel>,
  place: TimedBlock,
): string | null {
  const own = blockProblem(place)
  if (own) return own
  const conflict = findConflict(blocks, place)
  if (conflict) {
    const name = labels.get(conflict.courseId)?.name ?? 'otro bloque'
    return `Se cruza con ${name} (${describePlace(conflict)}).`
  }
  const fits = hoursUntilBreak(shape, place.start)
  if (fits > 0 && fits < place.hours) return 'El bloque no puede atravesar un recreo ni pasar del fin de la jornada.'
  return null
}

const KEY_MOVES: Record<string, Move> = {
  ArrowUp: 'up',
  ArrowDown: 'down',
  ArrowLeft: 'left',
  ArrowRight: 'right',
}

export function WeekGrid({ shape, blocks, labels, days, onCreate, onOpen, onMove, onAnnounce }: WeekGridProps) {
  const rows = dayRows(shape)
  const { from, to } = visibleRange(shape, blocks)
  const height = (to - from) * PX_PER_MINUTE
  const areaRef = useRef<HTMLDivElement>(null)
  const [gesture, setGesture] = useState<Gesture | null>(null)
  const gestureRef = useRef<Gesture | null>(null)
  const pressTimer = useRef<number | undefined>(undefined)
  const shown = blocks.filter((block) => days.includes(block.weekday))

  const update = (next: Gesture | null) => {
    gestureRef.current = next
    setGesture(next)
  }

  // While a block is carried by touch, the page must not scroll under the finger.
  useEffect(() => {
    const stopScroll = (event: TouchEvent) => {
      const current = gestureRef.current
      if (current && current.kind !== 'select' && current.active) event.preventDefault()
    }
    document.addEventListener('touchmove', stopScroll, { passive: false })
    return () => {
      document.removeEventListener('touchmove', stopScroll)
      window.clearTimeout(pressTimer.current)
    }
  }, [])

  /** The weekday column and the minute of the day under a pointer. */
  function pointAt(clientX: number, clientY: number): { weekday: number; minute: number } | null {
    const area = areaRef.current
    if (!area) return null
    const rect = area.getBoundingClientRect()
    const column = Math.min(days.length - 1, Math.max(0, Math.floor(((clientX - rect.left) / rect.width) * days.length)))
    const weekday = days[column]
    if (weekday === undefined) return null
    return { weekday, minute: from + (clientY - rect.top) / PX_PER_MINUTE }
  }

  /** The hour starts of the day, for snapping. */
  const hourStarts = rows.filter((row) => row.kind === 'hour').map((row) => row.start)
  const nearestHourStart = (minute: number) =>
    hourStarts.reduce((best, start) => (Math.abs(start - minute) < Math.abs(best - minute) ? start : best), hourStarts[0] ?? from)

  // Creating -------------------------------------------------------------------------------

  function startSelect(event: ReactPointerEvent<HTMLButtonElement>, weekday: number, start: number) {
    if (event.button !== 0) return
    update({ kind: 'select', weekday, start, hours: 1, pointerId: event.pointerId })
    if (event.pointerType !== 'touch') event.currentTarget.setPointerCapture(event.pointerId)
  }

  function extendSelect(event: ReactPointerEvent) {
    const current = gestureRef.current
    if (!current || current.kind !== 'select' || current.pointerId !== event.pointerId) return
    const point = pointAt(event.clientX, event.clientY)
    if (!point) return
    const limit = hoursUntilBreak(shape, current.start)
    let hours = 1
    for (const start of hourStarts) {
      if (start <= current.start || start > point.minute || hours >= limit) continue
      const longer = { weekday: current.weekday, start: current.start, hours: hours + 1 }
      if (findConflict(blocks, longer)) break
      hours += 1
    }
    if (hours !== current.hours) update({ ...current, hours })
  }

  function endSelect(event: ReactPointerEvent) {
    const current = gestureRef.current
    if (!current || current.kind !== 'select' || current.pointerId !== event.pointerId) return
    update(null)
    onCreate({ weekday: current.weekday, start: current.start, hours: current.hours })
  }

  // Moving and resizing ----------------------------------------------------------------------

  function startCarry(event: ReactPointerEvent<HTMLElement>, block: ScheduleBlock, kind: 'move' | 'resize') {
    if (event.button !== 0) return
    event.stopPropagation()
    const point = pointAt(event.clientX, event.clientY)
    const next: Gesture = {
      kind,
      block,
      pointerId: event.pointerId,
      originX: event.clientX,
      originY: event.clientY,
      grabOffset: point ? point.minute - block.start : 0,
      active: false,
      target: block,
    }
    update(next)
    const element = event.currentTarget
    if (event.pointerType === 'touch') {
      window.clearTimeout(pressTimer.current)
      pressTimer.current = window.setTimeout(() => {
        const current = gestureRef.current
        if (current && current.kind !== 'select' && current.pointerId === next.pointerId) {
          update({ ...current, active: true })
          element.setPointerCapture(current.pointerId)
          navigator.vibrate?.(20)
        }
      }, LONG_PRESS_MS)
    } else {
      element.setPointerCapture(event.pointerId)
    }
  }

  function carry(event: ReactPointerEvent) {
    const current = gestureRef.current
    if (!current || current.kind === 'select' || current.pointerId !== event.pointerId) return
    const travelled = Math.hypot(event.clientX - current.originX, event.clientY - current.originY)
    if (!current.active) {
      if (travelled < DRAG_THRESHOLD_PX) return
      if (event.pointerType === 'touch') {
        // Moved before the long press: the finger is scrolling, not carrying.
        window.clearTimeout(pressTimer.current)
        update(null)
        return
      }
    }
    const point = pointAt(event.clientX, event.clientY)
    if (!point) return
    const { block } = current
    let target: TimedBlock
    if (current.kind === 'move') {
      target = { id: block.id, weekday: point.weekday, start: nearestHourStart(point.minute - current.grabOffset), hours: block.hours }
    } else {
      const limit = Math.max(1, hoursUntilBreak(shape, block.start) || 4)
      const hours = Math.round((point.minute - block.start) / PEDAGOGICAL_HOUR)
      target = { id: block.id, weekday: block.weekday, start: block.start, hours: Math.min(limit, Math.max(1, hours)) }
    }
    update({ ...current, active: true, target })
  }

  function drop(event: ReactPointerEvent) {
    const current = gestureRef.current
    if (!current || current.kind === 'select' || current.pointerId !== event.pointerId) return
    window.clearTimeout(pressTimer.current)
    update(null)
    if (!current.active) {
      if (event.type === 'pointerup') onOpen(current.block)
      return
    }
    const { block, target } = current
    if (target.weekday === block.weekday && target.start === block.start && target.hours === block.hours) return
    const problem = placeProblem(shape, blocks, labels, target)
    if (problem) {
      onAnnounce(`No se movió el bloque. ${problem}`)
      return
    }
    onMove(block, target)
  }

  function cancel(event: ReactPointerEvent) {
    const current = gestureRef.current
    if (current && current.pointerId === event.pointerId) {
      window.clearTimeout(pressTimer.current)
      update(null)
    }
  }

  // Keyboard -------------------------------------------------------------------------------

  function onBlockKey(event: KeyboardEvent, block: ScheduleBlock) {
    const direction = KEY_MOVES[event.key]
    if (!direction) return
    event.preventDefault()
    const move: Move = event.shiftKey && direction === 'down' ? 'longer' : event.shiftKey && direction === 'up' ? 'shorter' : direction
    const target = moveBlock(shape, block, move)
    if (!target) {
      onAnnounce(
        move === 'longer' || move === 'shorter'
          ? 'El bloque ya no puede cambiar de duración en esa dirección.'
          : 'El bloque no puede ir más allá en esa dirección.',
      )
      return
    }
    const problem = placeProblem(shape, blocks, labels, { ...target, id: block.id })
    if (problem) {
      onAnnounce(`No se movió el bloque. ${problem}`)
      return
    }
    onMove(block, target)
  }

  // Drawing --------------------------------------------------------------------------------

  const top = (minute: number) => (minute - from) * PX_PER_MINUTE
  const columnStyle = (weekday: number) => {
    const index = days.indexOf(weekday)
    return { left: `calc(${index} * 100% / ${days.length})`, width: `calc(100% / ${days.length})` }
  }
  const carried = gesture && gesture.kind !== 'select' && gesture.active ? gesture : null
  const carriedProblem = carried ? placeProblem(shape, blocks, labels, carried.target) : null
  const selecting = gesture?.kind === 'select' ? gesture : null

  return (
    <div className="rounded-card border border-line bg-surface shadow-card" data-testid="week-grid" data-tour="week-grid">
      <div className="grid grid-cols-[4.25rem_1fr] border-b border-line">
        <div />
        <div className="grid" style={{ gridTemplateColumns: `repeat(${days.length}, minmax(0, 1fr))` }}>
          {days.map((weekday) => (
            <div key={weekday} className="border-l border-line px-2 py-2 text-center text-sm font-semibold text-ink">
              {WEEKDAY_NAMES[weekday]}
            </div>
          ))}
        </div>
      </div>
      <div className="grid grid-cols-[4.25rem_1fr]">
        <div className="relative" style={{ height }} aria-hidden="true">
          {rows.map((row) => (
            <div
              key={`${row.kind}-${row.start}`}
              className={cn(
                'absolute inset-x-0 flex flex-col justify-start px-1 pt-0.5 text-right text-[11px] leading-tight',
                row.kind === 'break' ? 'text-ink-muted' : 'text-ink',
              )}
              style={{ top: top(row.start), height: (row.end - row.start) * PX_PER_MINUTE }}
            >
              {row.kind === 'hour' ? (
                <>
                  <span className="font-semibold">{row.hour}ª</span>
                  <span className="text-ink-muted">{formatTime(row.start)}</span>
                </>
              ) : (
                <span className="truncate">{row.label}</span>
              )}
            </div>
          ))}
        </div>
        <div
          ref={areaRef}
          className="relative select-none"
          style={{ height }}
          onPointerMove={(event) => {
            extendSelect(event)
            carry(event)
          }}
          onPointerUp={(event) => {
            endSelect(event)
            drop(event)
          }}
          onPointerCancel={(event) => {
            cancel(event)
            if (gestureRef.current?.kind === 'select') update(null)
          }}
        >
          {days.map((weekday) => (
            <div key={weekday} className="absolute inset-y-0 border-l border-line" style={columnStyle(weekday)} data-weekday={weekday}>
              {rows.map((row) => {
                const style = { top: top(row.start), height: (row.end - row.start) * PX_PER_MINUTE }
                if (row.kind === 'break') {
                  return (
                    <div
                      key={`break-${row.start}`}
                      aria-hidden="true"
                      className="absolute inset-x-0 bg-[repeating-linear-gradient(135deg,var(--color-surface-muted)_0_6px,transparent_6px_12px)]"
                      style={style}
                    />
                  )
                }
                const place = { weekday, start: row.start, hours: 1 }
                if (findConflict(blocks, place)) return null
                return (
                  <button
                    key={`hour-${row.start}`}
                    type="button"
                    className="absolute inset-x-0 border-t border-line/60 hover:bg-brand-soft/60 focus-visible:z-10 focus-visible:bg-brand-soft focus-visible:outline-2 focus-visible:outline-brand"
                    style={style}
                    aria-label={`Crear bloque el ${WEEKDAY_NAMES[weekday]?.toLowerCase()} a las ${formatTime(row.start)} (${row.hour}ª hora)`}
                    data-testid={`slot-${weekday}-${formatTime(row.start)}`}
                    onPointerDown={(event) => startSelect(event, weekday, row.start)}
                    onClick={(event) => {
                      // Pointers create on release (see endSelect); the keyboard creates here.
                      if (event.detail === 0) onCreate(place)
                    }}
                  />
                )
              })}
            </div>
          ))}

          {selecting ? (
            <div
              aria-hidden="true"
              className="pointer-events-none absolute z-10 p-0.5"
              style={{ ...columnStyle(selecting.weekday), top: top(selecting.start), height: selecting.hours * PEDAGOGICAL_HOUR * PX_PER_MINUTE }}
            >
              <div className="h-full rounded-lg border-2 border-dashed border-brand bg-brand-soft/80 p-1 text-xs font-medium text-brand-strong">
                Nuevo bloque · {selecting.hours} {selecting.hours === 1 ? 'hora' : 'horas'}
              </div>
            </div>
          ) : null}

          {shown.map((block) => {
            const label = labels.get(block.courseId)
            const isCarried = carried?.block.id === block.id
            const name = label?.name ?? 'Curso'
            return (
              <div
                key={block.id}
                className={cn('absolute z-20 p-0.5', isCarried && 'opacity-40')}
                style={{ ...columnStyle(block.weekday), top: top(block.start), height: block.hours * PEDAGOGICAL_HOUR * PX_PER_MINUTE }}
              >
                <button
                  type="button"
                  className="relative flex h-full w-full touch-pan-y flex-col overflow-hidden rounded-lg border-l-4 px-2 py-1 text-left text-ink shadow-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand"
                  style={{
                    borderLeftColor: label?.color ?? '#2563eb',
                    backgroundColor: `color-mix(in srgb, ${label?.color ?? '#2563eb'} 18%, var(--color-surface))`,
                  }}
                  aria-label={`${name}, ${describePlace(block)}${block.room ? `, sala ${block.room}` : ''}. Flechas para mover; Mayúscula y flechas arriba o abajo para cambiar la duración; Enter para editar.`}
                  aria-keyshortcuts="ArrowUp ArrowDown ArrowLeft ArrowRight Shift+ArrowUp Shift+ArrowDown Enter"
                  data-testid="schedule-block"
                  data-tour="schedule-block"
                  data-example={isExample(block.id) ? true : undefined}
                  data-course={name}
                  data-place={describePlace(block)}
                  onPointerDown={(event) => startCarry(event, block, 'move')}
                  onKeyDown={(event) => onBlockKey(event, block)}
                  onClick={(event) => {
                    if (event.detail === 0) onOpen(block)
                  }}
                >
                  <span className="truncate text-sm font-semibold">{label?.subject ?? 'Curso'}</span>
                  <span className="truncate text-xs">{label?.group}</span>
                  {block.hours > 1 ? (
                    <span className="truncate text-xs text-ink-muted">
                      {formatTime(block.start)}–{formatTime(blockEnd(block))}
                      {block.room ? ` · ${block.room}` : ''}
                    </span>
                  ) : null}
                  <span
                    aria-hidden="true"
                    className="absolute inset-x-0 bottom-0 h-2.5 cursor-ns-resize bg-gradient-to-t from-black/10 to-transparent"
                    data-testid="resize-handle"
                    onPointerDown={(event) => startCarry(event, block, 'resize')}
                  />
                </button>
              </div>
            )
          })}

          {carried ? (
            <div
              aria-hidden="true"
              className="pointer-events-none absolute z-30 p-0.5"
              style={{
                ...columnStyle(carried.target.weekday),
                top: top(carried.target.start),
                height: carried.target.hours * PEDAGOGICAL_HOUR * PX_PER_MINUTE,
              }}
            >
              <div
                className={cn(
                  'h-full rounded-lg border-2 p-1 text-xs font-medium',
                  carriedProblem ? 'border-bad bg-bad-soft text-bad' : 'border-brand bg-brand-soft text-brand-strong',
                )}
                data-testid="drop-preview"
              >
                {carriedProblem ?? describePlace(carried.target)}
              </div>
            </div>
          ) : null}
        </div>
      </div>
    </div>
  )
}
