import { describe, expect, it } from 'vitest'
import { HELP_TOPICS, searchHelp } from './help-topics'

describe('searchHelp', () => {
  it('keeps every topic for an empty search', () => {
    expect(searchHelp('  ')).toBe(HELP_TOPICS)
  })

  it('matches every word, ignoring accents and case', () => {
    const found = searchHelp('CONTRASENA olvide')
    expect(found.flatMap((topic) => topic.questions.map((item) => item.id))).toEqual(['contrasena'])
  })

  it('drops topics with no match', () => {
    expect(searchHelp('xilófono')).toEqual([])
  })

  it('gives every question a unique id', () => {
    const ids = HELP_TOPICS.flatMap((topic) => topic.questions.map((item) => item.id))
    expect(new Set(ids).size).toBe(ids.length)
  })
})
