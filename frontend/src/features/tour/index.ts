/** The guided tour of each page: the tours, progress per user and page, the runner and the restart button. */
export { TourRestartButton } from './tour-restart-button'
export { TourProvider, useTourRunning } from './components/tour-provider'
export { hasTour } from './tour-pages'
