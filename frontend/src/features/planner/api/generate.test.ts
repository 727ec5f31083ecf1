import { describe, expect, it } from 'vitest'
import { generationMessage, improvableKind, parseEvents } from './generate'

describe('the generation stream', () => {
  it('is read event by event, keeping an unfinished one for later', () => {
    const { events, rest } = parseEvents('event: skeleton\ndata: {"zones":[]}\n\nevent: zone_delta\ndata: {"zone":1,"text":"Hola\\n"}\n\nevent: do')
    expect(events).toEqual([
      { event: 'skeleton', data: '{"zones":[]}' },
      { event: 'zone_delta', data: '{"zone":1,"text":"Hola\\n"}' },
    ])
    expect(rest).toBe('event: do')
  })

  it('says refusals in Spanish', () => {
    expect(generationMessage('stars_exhausted')).toMatch(/sin Estrellas Cielo/)
    expect(generationMessage('demo_expired')).toMatch(/demo terminó/)
    expect(generationMessage('something_new')).toMatch(/No se pudo generar/)
  })
})

describe('improving one zone', () => {
  it('asks for the zone’s kind; indicators are their own; free zones cannot be improved', () => {
    expect(improvableKind('inicio', 'Inicio: activación')).toBe('inicio')
    expect(improvableKind('evaluacion', 'Evaluación formativa')).toBe('evaluacion')
    expect(improvableKind('evaluacion', 'Indicadores de evaluación')).toBe('indicadores')
    expect(improvableKind('notas', 'Notas')).toBeNull()
    expect(improvableKind('planificacion_base', null)).toBeNull()
  })
})
