/** Panel directivo: the school a directivo leads and how its courses' planning goes. */
export {
  planCoverage,
  summarizeSchool,
  useLedSchool,
  useSchoolOverview,
  type CourseOverview,
  type LedSchool,
  type Progress,
  type TeacherOverview,
} from './api/school-overview'
