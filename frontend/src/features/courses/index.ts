/** The teacher's courses. */
export { useCourseCount } from './api/course-count'
export {
  courseLabels,
  useCourseLabels,
  useCourses,
  useCoveredObjectives,
  useCreateCourse,
  useCurriculum,
  useDeleteCourse,
  useObjectiveCount,
  useSchoolSearch,
  useUpdateCourse,
  type Course,
  type CourseLabel,
  type SchoolOption,
  type Curriculum,
} from './api/courses'
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
