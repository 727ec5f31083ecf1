import { describe, expect, it } from 'vitest'
import { deriveDemoStars, usageLevel } from './demo-stars'
import { consumeStars, generationBlock } from './star-use'

const row = { user_id: 'u', total_stars: 100, used_stars: 40, demo_end_date: '2025-12-31', max_courses: 3, is_active: true }

describe('deriveDemoStars', () => {
  it('derives the demo state, used stars capped at the total, expiry by day', () => {
    expect(deriveDemoStars(row, '2025-12-31')).toMatchObject({ isDemoUser: true, isExpired: false, remainingStars: 60, usagePercentage: 40 })
    expect(deriveDemoStars({ ...row, used_stars: 130 }, '2026-01-01')).toMatchObject({ isExpired: true, usedStars: 100, remainingStars: 0, usagePercentage: 100 })
    expect(deriveDemoStars(null).isDemoUser).toBe(false)
  })
  it('colours usage as the spec says', () => {
    expect(usageLevel(79)).toEqual({ tone: 'yellow', message: null })
    expect(usageLevel(80).message).toBe('Estás llegando al límite')
    expect(usageLevel(95).message).toBe('¡Pocas estrellas!')
  })
})

describe('generationBlock', () => {
  it('stops a demo user without stars or with the demo over, never anyone else', () => {
    expect(generationBlock(deriveDemoStars(row, '2025-06-01'))).toBeNull()
    expect(generationBlock(deriveDemoStars({ ...row, used_stars: 100 }, '2025-06-01'))).toMatch(/^❌ Estrellas Cielo agotadas/)
    expect(generationBlock(deriveDemoStars(row, '2026-01-01'))).toMatch(/Tu demo terminó/)
    expect(generationBlock(deriveDemoStars({ ...row, is_active: false }, '2025-06-01'))).toMatch(/Tu demo terminó/)
    expect(generationBlock(deriveDemoStars(null))).toBeNull()
    expect(generationBlock(undefined)).toBeNull()
  })
})

describe('consumeStars', () => {
  it('adds what a call charged, never above the total', () => {
    expect(consumeStars(row, 12)?.used_stars).toBe(52)
    expect(consumeStars({ ...row, used_stars: 95 }, 12)?.used_stars).toBe(100)
    expect(consumeStars(row, -3)?.used_stars).toBe(40)
    expect(consumeStars(null, 5)).toBeNull()
  })
})
