import { describe, expect, it } from 'vitest'
import { announcementState } from './manage'

const now = new Date('2025-05-10T12:00:00Z')

describe('announcementState', () => {
  it('tells drafts, scheduled, published and expired announcements apart', () => {
    expect(announcementState({ published_at: null, expires_at: null }, now)).toBe('draft')
    expect(announcementState({ published_at: '2025-05-11T00:00:00Z', expires_at: null }, now)).toBe('scheduled')
    expect(announcementState({ published_at: '2025-05-01T00:00:00Z', expires_at: null }, now)).toBe('published')
    expect(announcementState({ published_at: '2025-05-01T00:00:00Z', expires_at: '2025-05-20T00:00:00Z' }, now)).toBe('published')
    expect(announcementState({ published_at: '2025-05-01T00:00:00Z', expires_at: '2025-05-10T12:00:00Z' }, now)).toBe('expired')
  })
})
