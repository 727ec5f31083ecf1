/** The teacher's calendar: classes, holidays, breaks and school events. */
export { STATUS_LABELS, nextStatuses, transitionProblem, type ClassStatus } from './transitions'
