import { describe, expect, it } from 'vitest'
import { initialSave, overallStatus, reduceSave, retryDelay, wantsSave, type SaveEvent, type DocumentSave } from './autosave-machine'

const run = (events: SaveEvent[], start: DocumentSave = initialSave(1)) => events.reduce(reduceSave, start)

describe('autosave of a document', () => {
  it('edit → save → saved with the new version', () => {
    const dirty = run([{ type: 'edit' }])
    expect(dirty.status).toBe('dirty')
    expect(wantsSave(dirty)).toBe(true)
    const saving = reduceSave(dirty, { type: 'start' })
    expect(saving.status).toBe('saving')
    expect(wantsSave(saving)).toBe(false)
    expect(reduceSave(saving, { type: 'saved', version: 2 })).toEqual(initialSave(2))
  })

  it('saves again when the teacher typed during a save', () => {
    const state = run([{ type: 'edit' }, { type: 'start' }, { type: 'edit' }, { type: 'saved', version: 2 }])
    expect(state.status).toBe('dirty')
    expect(state.baseVersion).toBe(2)
  })

  it('retries a network failure with growing pauses, keeping the edits', () => {
    const state = run([{ type: 'edit' }, { type: 'start' }, { type: 'failed', reason: 'network' }])
    expect(state.status).toBe('retrying')
    expect(wantsSave(state)).toBe(true)
    const again = run([{ type: 'edit' }, { type: 'start' }, { type: 'failed', reason: 'network' }], state)
    expect(again.attempts).toBe(2)
    expect(retryDelay(1)).toBe(1000)
    expect(retryDelay(3)).toBe(4000)
    expect(retryDelay(20)).toBe(30_000)
    expect(reduceSave(reduceSave(again, { type: 'start' }), { type: 'saved', version: 5 }).attempts).toBe(0)
  })

  it('stops on a version conflict until the teacher chooses, and edits do not resume saving', () => {
    const conflict = run([{ type: 'edit' }, { type: 'start' }, { type: 'failed', reason: 'conflict' }])
    expect(conflict.status).toBe('conflict')
    expect(wantsSave(run([{ type: 'edit' }], conflict))).toBe(false)
    const mine = reduceSave(conflict, { type: 'keep-mine', version: 4 })
    expect(mine).toMatchObject({ status: 'dirty', baseVersion: 4 })
    expect(reduceSave(conflict, { type: 'take-theirs', version: 4 })).toEqual(initialSave(4))
  })

  it('shows a refusal with its message', () => {
    const refused = run([{ type: 'edit' }, { type: 'start' }, { type: 'failed', reason: 'refused', message: 'Demasiado largo' }])
    expect(refused).toMatchObject({ status: 'refused', message: 'Demasiado largo' })
    expect(wantsSave(refused)).toBe(false)
    expect(run([{ type: 'edit' }], refused).status).toBe('dirty')
  })

  it('sums up the page: the most urgent state wins', () => {
    const saved = initialSave(1)
    expect(overallStatus([saved, saved])).toBe('saved')
    expect(overallStatus([saved, run([{ type: 'edit' }])])).toBe('saving')
    expect(overallStatus([run([{ type: 'edit' }]), run([{ type: 'edit' }, { type: 'start' }, { type: 'failed', reason: 'network' }])])).toBe('offline')
    expect(overallStatus([run([{ type: 'edit' }, { type: 'start' }, { type: 'failed', reason: 'conflict' }]), saved])).toBe('conflict')
  })
})
