import { describe, expect, it } from 'vitest'
import { migrationNotice, needsMigration } from './legacy'

describe('legacy plans', () => {
  it('are detected by their content format', () => {
    expect(needsMigration({ content_format: 'legacy', legacy_migration: null })).toBe(true)
    expect(needsMigration({ content_format: 'zones', legacy_migration: 'migrated' })).toBe(false)
    expect(needsMigration({ content_format: 'zones', legacy_migration: null })).toBe(false)
  })

  it('tell the teacher what happened to them', () => {
    expect(migrationNotice('migrated')).toMatch(/pasamos a zonas/)
    expect(migrationNotice('fallback')).toMatch(/«Planificación»/)
    expect(migrationNotice('already_migrated')).toBeNull()
    expect(migrationNotice(null)).toBeNull()
  })
})
