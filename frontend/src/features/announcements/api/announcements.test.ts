import { describe, expect, it } from 'vitest'
import { arrangeAnnouncements, type Announcement } from './announcements'

const row = (id: string, published_at: string, is_pinned = false): Announcement => ({
  id,
  title: id,
  body: '',
  audience: 'docentes',
  is_pinned,
  published_at,
})

describe('arrangeAnnouncements', () => {
  it('puts pinned ones first, then the newest, and marks the unread', () => {
    const shown = arrangeAnnouncements(
      [row('old', '2025-03-01T12:00:00Z'), row('pinned', '2025-01-01T12:00:00Z', true), row('new', '2025-05-01T12:00:00Z')],
      new Set(['old']),
    )
    expect(shown.map((item) => [item.id, item.unread])).toEqual([
      ['pinned', true],
      ['new', true],
      ['old', false],
    ])
  })
})
