/**
 * The states of a class on the calendar, as the database allows them: a class is born
 * Programada; Programada → Realizada (not before its day) or Cancelada (with a reason);
 * Cancelada → Programada (re-scheduled, the reason cleared); Realizada is final.
 */

import type { IsoDay } from '@/lib/dates'

export type ClassStatus = 'Programada' | 'Realizada' | 'Cancelada'

export const STATUS_LABELS: Record<ClassStatus, string> = {
  Programada: 'Programada',
  Realizada: 'Realizada',
  Cancelada: 'Cancelada',
}

/** The states a class can move to now. */
export function nextStatuses(status: ClassStatus, sessionDate: IsoDay, today: IsoDay): ClassStatus[] {
  switch (status) {
    case 'Programada':
      return sessionDate <= today ? ['Realizada', 'Cancelada'] : ['Cancelada']
    case 'Cancelada':
      return ['Programada']
    case 'Realizada':
      return []
  }
}

/** Why a change of state would be refused, in Spanish; `null` when it is allowed. */
export function transitionProblem(
  from: ClassStatus,
  to: ClassStatus,
  sessionDate: IsoDay,
  today: IsoDay,
  reason?: string,
): string | null {
  if (from === to) return null
  if (from === 'Realizada') return 'Una clase realizada ya no cambia de estado.'
  if (!nextStatuses(from, sessionDate, today).includes(to)) {
    return from === 'Programada' && to === 'Realizada'
      ? 'Una clase futura no se puede marcar como realizada.'
      : `Una clase ${from.toLowerCase()} no puede pasar a ${to.toLowerCase()}.`
  }
  if (to === 'Cancelada' && !reason?.trim()) return 'Indica por qué se canceló la clase.'
  if (to === 'Cancelada' && reason && reason.trim().length > 500) return 'El motivo puede tener hasta 500 caracteres.'
  return null
}
