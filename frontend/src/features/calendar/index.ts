/** The school year's calendar: classes and their states, holidays, breaks and events. */
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
export { ClassDialog } from './components/class-dialog'
export { EventDialog, type EventEditing } from './components/event-dialog'
export { FillDialog } from './components/fill-dialog'
