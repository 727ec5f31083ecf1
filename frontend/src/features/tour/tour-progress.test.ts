import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  AUTO_ACTION_DELAY_MS,
  FRESH_PROGRESS,
  TOUR_RESTART_EVENT,
  readTourProgress,
  restartTour,
  scheduleAutoAction,
  shouldAutoStart,
  tourMachine,
  tourStorageKey,
  writeTourProgress,
} from './tour-progress'
import { TOURS } from './tours'
import { TOUR_LENGTHS, hasTour } from './tour-pages'

describe('the tours', () => {
  it('has the spec step counts, each step pointing at a page element or the page', () => {
    const lengths = { '/dashboard': 7, '/courses': 5, '/schedule': 7, '/planner': 7 }
    expect(Object.fromEntries(Object.entries(TOURS).map(([page, steps]) => [page, steps?.length]))).toEqual(lengths)
    expect(TOUR_LENGTHS).toEqual(lengths)
    for (const steps of Object.values(TOURS)) {
      expect(new Set(steps?.map((s) => s.id)).size).toBe(steps?.length)
      expect(steps?.[0]?.showPrev).toBe(false)
      for (const step of steps ?? []) expect(step.target === null || /^\[data-tour="[a-z-]+"\]$/.test(step.target)).toBe(true)
    }
    expect(hasTour('/calendar')).toBe(false)
  })
})

describe('tourMachine', () => {
  it('keeps next and previous within 1..N', () => {
    let progress = { ...FRESH_PROGRESS }
    for (let i = 0; i < 10; i += 1) progress = tourMachine.next(progress, 7)
    expect(progress.currentStep).toBe(7)
    for (let i = 0; i < 10; i += 1) progress = tourMachine.previous(progress, 7)
    expect(progress.currentStep).toBe(1)
  })
  it('skip sets skipped, finish sets tourCompleted, restart clears both at step 1', () => {
    const at3 = { ...FRESH_PROGRESS, currentStep: 3 }
    expect(tourMachine.skip(at3)).toEqual({ tourCompleted: false, currentStep: 3, skipped: true })
    expect(tourMachine.finish(at3)).toEqual({ tourCompleted: true, currentStep: 3, skipped: false })
    expect(tourMachine.restart()).toEqual({ tourCompleted: false, currentStep: 1, skipped: false })
  })
  it('starts by itself only for an onboarded teacher on a page with a tour not finished nor skipped', () => {
    expect(shouldAutoStart(true, 7, FRESH_PROGRESS)).toBe(true)
    expect(shouldAutoStart(false, 7, FRESH_PROGRESS)).toBe(false)
    expect(shouldAutoStart(true, 0, FRESH_PROGRESS)).toBe(false)
    expect(shouldAutoStart(true, 7, { ...FRESH_PROGRESS, skipped: true })).toBe(false)
    expect(shouldAutoStart(true, 7, { ...FRESH_PROGRESS, tourCompleted: true })).toBe(false)
  })
})

describe('stored progress', () => {
  afterEach(() => localStorage.clear())
  it('is kept per user and page, bounded to the tour, unreadable starting over', () => {
    writeTourProgress('ana', '/dashboard', { tourCompleted: false, currentStep: 4, skipped: false })
    expect(readTourProgress('ana', '/dashboard', 7).currentStep).toBe(4)
    expect(readTourProgress('beto', '/dashboard', 7)).toEqual(FRESH_PROGRESS)
    expect(readTourProgress('ana', '/courses', 5)).toEqual(FRESH_PROGRESS)
    localStorage.setItem(tourStorageKey('ana', '/courses'), JSON.stringify({ currentStep: 40, skipped: true }))
    expect(readTourProgress('ana', '/courses', 5)).toEqual({ tourCompleted: false, currentStep: 5, skipped: true })
    localStorage.setItem(tourStorageKey('ana', '/courses'), '{nope')
    expect(readTourProgress('ana', '/courses', 5)).toEqual(FRESH_PROGRESS)
  })
  it('restart resets it and tells this tab and the others', () => {
    writeTourProgress('ana', '/schedule', { tourCompleted: true, currentStep: 7, skipped: true })
    const heard = vi.fn()
    window.addEventListener(TOUR_RESTART_EVENT, heard)
    const other = new BroadcastChannel('cielo-tour')
    const message = new Promise((resolve) => (other.onmessage = (event) => resolve(event.data)))
    restartTour('ana', '/schedule')
    expect(readTourProgress('ana', '/schedule', 7)).toEqual(FRESH_PROGRESS)
    expect(heard).toHaveBeenCalledOnce()
    return message.then((data) => {
      expect(data).toEqual({ userId: 'ana', page: '/schedule' })
      other.close()
      window.removeEventListener(TOUR_RESTART_EVENT, heard)
    })
  })
})

describe('scheduleAutoAction', () => {
  it('runs a step action 150 ms after it shows, unless the step changed first', () => {
    vi.useFakeTimers()
    const action = vi.fn()
    scheduleAutoAction(action)
    vi.advanceTimersByTime(AUTO_ACTION_DELAY_MS - 1)
    expect(action).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(action).toHaveBeenCalledOnce()
    const later = vi.fn()
    const cancel = scheduleAutoAction(later)
    cancel()
    vi.advanceTimersByTime(500)
    expect(later).not.toHaveBeenCalled()
    vi.useRealTimers()
  })
})
