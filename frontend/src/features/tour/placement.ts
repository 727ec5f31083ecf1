/**
 * Where a tour step's card goes: on the preferred side of its element when it fits, else on
 * the opposite side, else below or above, else in the middle of the screen; always inside
 * the viewport with a margin (a 375 px phone included).
 */
import type { TourPosition } from './tours'

export interface Box {
  top: number
  left: number
  width: number
  height: number
}

export interface Placement {
  top: number
  left: number
  side: TourPosition
}

const GAP = 12
const MARGIN = 12

const opposite: Record<TourPosition, TourPosition> = { top: 'bottom', bottom: 'top', left: 'right', right: 'left', center: 'center' }

function fits(side: TourPosition, target: Box, card: { width: number; height: number }, viewport: { width: number; height: number }): boolean {
  switch (side) {
    case 'top':
      return target.top - GAP - card.height >= MARGIN
    case 'bottom':
      return target.top + target.height + GAP + card.height <= viewport.height - MARGIN
    case 'left':
      return target.left - GAP - card.width >= MARGIN
    case 'right':
      return target.left + target.width + GAP + card.width <= viewport.width - MARGIN
    default:
      return true
  }
}

const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), Math.max(low, high))

export function placeCard(
  target: Box | null,
  preferred: TourPosition,
  card: { width: number; height: number },
  viewport: { width: number; height: number },
): Placement {
  const centred = {
    top: clamp((viewport.height - card.height) / 2, MARGIN, viewport.height - card.height - MARGIN),
    left: clamp((viewport.width - card.width) / 2, MARGIN, viewport.width - card.width - MARGIN),
    side: 'center' as const,
  }
  if (!target || preferred === 'center') return centred
  const side = [preferred, opposite[preferred], 'bottom', 'top'].find((candidate) =>
    fits(candidate as TourPosition, target, card, viewport),
  ) as TourPosition | undefined
  if (!side) return centred
  const horizontalCentre = clamp(target.left + target.width / 2 - card.width / 2, MARGIN, viewport.width - card.width - MARGIN)
  const verticalCentre = clamp(target.top + target.height / 2 - card.height / 2, MARGIN, viewport.height - card.height - MARGIN)
  switch (side) {
    case 'top':
      return { top: target.top - GAP - card.height, left: horizontalCentre, side }
    case 'bottom':
      return { top: target.top + target.height + GAP, left: horizontalCentre, side }
    case 'left':
      return { top: verticalCentre, left: target.left - GAP - card.width, side }
    default:
      return { top: verticalCentre, left: target.left + target.width + GAP, side }
  }
}
