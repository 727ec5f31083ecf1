import { describe, expect, it } from 'vitest'
import { isOnboarded, onboardingStep, visibleSteps } from './steps'

const complete = { first_name: 'Ana', last_name: 'Pérez', how_found_us: 'YouTube' }
const facts = (over: Partial<Parameters<typeof onboardingStep>[0]>) =>
  onboardingStep({ visitor: false, draftSession: null, profile: null, courseCount: 0, ...over })

describe('onboardingStep', () => {
  it('starts a visitor with a plan she tried at step 0, and sends one without to sign in', () => {
    expect(facts({ visitor: true, draftSession: 'd1' })).toBe(0)
    expect(facts({ visitor: true })).toBeNull()
  })
  it('is 1 while any of the three profile fields is missing (no profile, or data that failed to load)', () => {
    expect(facts({})).toBe(1)
    expect(facts({ profile: { ...complete, how_found_us: null } })).toBe(1)
    expect(facts({ profile: { ...complete, first_name: '' } })).toBe(1)
    expect(facts({ profile: { ...complete, last_name: null }, courseCount: 2 })).toBe(1)
  })
  it('skips the school step: a complete profile goes to 3, whatever the school', () => {
    expect(facts({ profile: complete })).toBe(3)
  })
  it('is 4 with a course, and a signed-in teacher ignores a draft_session', () => {
    expect(facts({ profile: complete, courseCount: 1 })).toBe(4)
    expect(facts({ profile: complete, courseCount: 1, draftSession: 'd1' })).toBe(4)
  })
})

describe('isOnboarded', () => {
  it('needs a complete profile and a course', () => {
    expect(isOnboarded(complete, 1)).toBe(true)
    expect(isOnboarded(complete, 0)).toBe(false)
    expect(isOnboarded(null, 3)).toBe(false)
  })
})

describe('visibleSteps', () => {
  it('shows the account step only to a visitor', () => {
    expect(visibleSteps(1).map((s) => s.step)).toEqual([1, 3, 4])
    expect(visibleSteps(0).map((s) => s.step)).toEqual([0, 1, 3, 4])
  })
})
