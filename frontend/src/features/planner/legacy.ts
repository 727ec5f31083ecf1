/**
 * Plans written before zones existed: a class in the legacy content format is migrated into
 * zones by the database (`rpc('migrate_legacy_plan_class')`) the first time it is opened; this
 * says when that is needed and what the teacher is told afterwards.
 */

export interface PlanClassFormat {
  content_format: string
  legacy_migration: string | null
}

/** Whether the class still holds legacy content and must be migrated before editing. */
export function needsMigration(planClass: PlanClassFormat): boolean {
  return planClass.content_format === 'legacy'
}

/** What the teacher reads after a migration, by the database's outcome. */
export function migrationNotice(outcome: string | null): string | null {
  switch (outcome) {
    case 'migrated':
      return 'Esta planificación estaba en el formato anterior y la pasamos a zonas. Revisa que esté todo.'
    case 'fallback':
      return 'Esta planificación estaba en el formato anterior y no reconocimos sus secciones: quedó completa en la zona «Planificación».'
    default:
      return null
  }
}
