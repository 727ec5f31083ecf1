import { describe, expect, it } from 'vitest'
import { fillPlaceholder, matchZones } from './generation'

describe('a generated plan in the teacher’s zones', () => {
  it('fills zones of the same kind in order, whatever their names or places', () => {
    const targets = matchZones([
      { id: 'des', zone_type: 'desarrollo', position: 1 },
      { id: 'ini', zone_type: 'inicio', position: 2 },
      { id: 'ev1', zone_type: 'evaluacion', position: 3 },
      { id: 'ev2', zone_type: 'evaluacion', position: 4 },
    ])
    expect(targets([{ zone_type: 'inicio' }, { zone_type: 'desarrollo' }, { zone_type: 'evaluacion' }, { zone_type: 'evaluacion' }, { zone_type: 'cierre' }])).toEqual([
      'ini',
      'des',
      'ev1',
      'ev2',
      undefined,
    ])
  })

  it('puts the streamed text where the placeholder was', () => {
    const skeleton = {
      type: 'doc',
      content: [
        { type: 'paragraph', content: [{ type: 'text', text: 'Tiempo: 10 minutos' }] },
        { type: 'paragraph', content: [{ type: 'text', text: '[Por completar: activación]' }] },
        { type: 'paragraph', content: [{ type: 'text', text: 'Fin' }] },
      ],
    }
    const filled = fillPlaceholder(skeleton, 'Primera idea.\n\nSegunda idea.\n') as { content: Array<{ content: Array<{ text: string }> }> }
    expect(filled.content.map((node) => node.content[0]?.text)).toEqual(['Tiempo: 10 minutos', 'Primera idea.', 'Segunda idea.', 'Fin'])
    const appended = fillPlaceholder({ type: 'doc', content: [] }, 'Texto') as { content: unknown[] }
    expect(appended.content).toHaveLength(1)
  })
})
