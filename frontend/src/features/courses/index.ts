/** The teacher's courses. */
export { useCourseCount } from './api/course-count'
