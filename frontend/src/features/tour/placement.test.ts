import { describe, expect, it } from 'vitest'
import { placeCard } from './placement'

const card = { width: 320, height: 180 }
const desktop = { width: 1280, height: 800 }
const phone = { width: 375, height: 700 }

describe('placeCard', () => {
  it('puts the card on the preferred side when it fits', () => {
    expect(placeCard({ top: 100, left: 20, width: 200, height: 40 }, 'right', card, desktop)).toEqual({ top: 30, left: 232, side: 'right' })
    expect(placeCard({ top: 100, left: 500, width: 200, height: 40 }, 'bottom', card, desktop)).toMatchObject({ top: 152, side: 'bottom' })
  })
  it('falls back to the other sides on a phone, staying on screen', () => {
    const placed = placeCard({ top: 80, left: 300, width: 60, height: 44 }, 'right', card, phone)
    expect(placed.side).toBe('bottom')
    expect(placed.left).toBeGreaterThanOrEqual(12)
    expect(placed.left + card.width).toBeLessThanOrEqual(phone.width - 12)
  })
  it('centres steps without an element, or when nothing fits', () => {
    expect(placeCard(null, 'bottom', card, desktop)).toEqual({ top: 310, left: 480, side: 'center' })
    expect(placeCard({ top: 0, left: 0, width: 375, height: 700 }, 'top', card, phone).side).toBe('center')
  })
})
