import { describe, expect, it } from 'vitest'
import { draftDocument, draftTitle, forgetTrial, keepTrial, keptTrial } from './trial'

const paragraph = (text: string) => ({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] })

describe('draftDocument', () => {
  it('puts each zone under its heading, in order', () => {
    expect(draftDocument([{ title: 'Inicio', content: paragraph('a') }, { title: 'Cierre', content: paragraph('b') }])).toEqual({
      type: 'doc',
      content: [
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Inicio' }] },
        { type: 'paragraph', content: [{ type: 'text', text: 'a' }] },
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Cierre' }] },
        { type: 'paragraph', content: [{ type: 'text', text: 'b' }] },
      ],
    })
  })
})

describe('draftTitle', () => {
  it('names the subject, level and OAs, within 200 characters', () => {
    expect(draftTitle('Matemática', '7° Básico', ['MA07 OA 03'])).toBe('Matemática 7° Básico · MA07 OA 03')
    expect(draftTitle('x'.repeat(300), '1° Básico', [])).toHaveLength(200)
  })
})

describe('the kept copy', () => {
  it('is read back, and nothing malformed is', () => {
    keepTrial({ visitorId: 'v', title: 't', content: paragraph('a') })
    expect(keptTrial()?.title).toBe('t')
    forgetTrial()
    expect(keptTrial()).toBeNull()
    localStorage.setItem('cielo:trial-draft', '{"title": 3}')
    expect(keptTrial()).toBeNull()
    localStorage.setItem('cielo:trial-draft', 'nope')
    expect(keptTrial()).toBeNull()
  })
})
