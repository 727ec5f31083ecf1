/** The teacher's courses. */
export { useCourseCount } from './api/course-count'
export {
  courseLabels,
  useCourseLabels,
  useCourses,
  useCoveredObjectives,
  useCurriculum,
  useObjectiveCount,
  type Course,
  type CourseLabel,
  type Curriculum,
} from './api/courses'
export { useCreateCourse, useDeleteCourse, useUpdateCourse } from './api/course-changes'
export {
  COURSE_COLORS,
  courseCapNotice,
  courseName,
  courseProblems,
  groupName,
  normalizeDraft,
  type CourseDraft,
  type CourseProblems,
} from './course-form'
