import { describe, expect, it } from 'vitest'
import { deriveDemoStars } from './api/demo-stars'
import { nextNotice, noticeFor, readShownNotices, writeShownNotices, type StarNotice } from './notices'
import { usageLevel } from './api/demo-stars'

const at = (used: number, total = 1000) =>
  deriveDemoStars({ user_id: 'u', total_stars: total, used_stars: used, demo_end_date: '2025-12-31', max_courses: 3, is_active: true }, '2025-06-01')

describe('thresholds', () => {
  it('colours and notices at 79.9, 80, 94.9, 95 and 100 %', () => {
    expect([799, 800, 949, 950, 1000].map((used) => [usageLevel(at(used).usagePercentage).tone, noticeFor(at(used))])).toEqual([
      ['yellow', null],
      ['orange', 'descending'],
      ['orange', 'descending'],
      ['red', 'almostOut'],
      ['red', 'exhausted'],
    ])
    expect(usageLevel(at(949).usagePercentage).message).toBe('Estás llegando al límite')
    expect(usageLevel(at(950).usagePercentage).message).toBe('¡Pocas estrellas!')
    expect(noticeFor(deriveDemoStars(null))).toBeNull()
  })
})

describe('nextNotice', () => {
  const run = (steps: number[]) => {
    let shown: StarNotice[] = []
    return steps.map((used) => {
      const next = nextNotice(shown, at(used))
      shown = next.shown
      return next.show
    })
  }
  it('shows each notice once while usage stays in its band or climbs', () => {
    expect(run([100, 800, 850, 900, 950, 990, 1000, 1000])).toEqual([null, 'descending', null, null, 'almostOut', null, 'exhausted', null])
  })
  it('shows a notice again after usage dropped back below it', () => {
    expect(run([850, 850, 100, 850])).toEqual(['descending', null, null, 'descending'])
    expect(run([1000, 960, 1000])).toEqual(['exhausted', 'almostOut', 'exhausted'])
  })
  it('keeps what was shown in the session storage, per user', () => {
    const storage = new Map<string, string>()
    const fake = {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
    } as unknown as Storage
    writeShownNotices('u', ['descending'], fake)
    expect(readShownNotices('u', fake)).toEqual(['descending'])
    expect(readShownNotices('other', fake)).toEqual([])
    storage.set('cielo_star_notices:u', '{bad')
    expect(readShownNotices('u', fake)).toEqual([])
  })
})
