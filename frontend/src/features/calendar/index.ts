/** The school year's calendar: classes and their states, holidays, breaks and events. */
import { lazy } from 'react'

export { nextStatuses, transitionProblem, STATUS_LABELS, type ClassStatus } from './transitions'
export * from './year'
export {
  calendarKeys,
  useClassSessions,
  useDeleteEvent,
  useFillCalendar,
  useNearestClassDays,
  useSaveEvent,
  useSchoolEvents,
  useSchoolYear,
  useSetClassStatus,
  type ClassSession,
  type SchoolEvent,
} from './api/calendar'
export { ClassCard, DayView, MonthView, StatusBadge, WeekView, noClassReason, type CalendarView } from './components/calendar-views'
export type { EventEditing } from './components/event-dialog'

// The dialogs load when first opened: a page's first download holds only what it draws.
export const ClassDialog = lazy(() => import('./components/class-dialog').then((module) => ({ default: module.ClassDialog })))
export const EventDialog = lazy(() => import('./components/event-dialog').then((module) => ({ default: module.EventDialog })))
export const FillDialog = lazy(() => import('./components/fill-dialog').then((module) => ({ default: module.FillDialog })))
