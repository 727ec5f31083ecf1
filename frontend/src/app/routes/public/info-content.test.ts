import { describe, expect, it } from 'vitest'
import { paths } from '@/config/paths'
import { INFO_CONTENT } from './info-content'

describe('INFO_CONTENT', () => {
  const known = new Set<unknown>(Object.values(paths).filter((value) => typeof value === 'string'))

  it('links only to routes of the app or to https sites', () => {
    for (const [name, page] of Object.entries(INFO_CONTENT)) {
      for (const section of page.sections) {
        for (const [, href] of section.text.matchAll(/\]\(([^)]+)\)/g)) {
          expect(href?.startsWith('https://') || known.has(href ?? ''), `${name}: ${href}`).toBe(true)
        }
      }
    }
  })

  it('gives every page at least three sections with text', () => {
    for (const page of Object.values(INFO_CONTENT)) {
      expect(page.sections.length).toBeGreaterThanOrEqual(3)
      for (const section of page.sections) expect(section.text.trim()).not.toBe('')
    }
  })
})
