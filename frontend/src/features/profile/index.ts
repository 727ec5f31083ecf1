/** The signed-in teacher's profile and school. */
export {
  displayFirstName,
  displayFullName,
  FALLBACK_SCHOOL_NAME,
  initialsOf,
  useProfile,
  useSchool,
  useSchoolName,
} from './api/profile'
