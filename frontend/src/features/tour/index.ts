/** The guided tour of each page: progress per user and page, the restart button. */
export { TourRestartButton } from './tour-restart-button'
