/** The signed-in teacher's profile, school and phone, and the form and picker that edit them. */
import { lazy } from 'react'

export {
  displayFirstName,
  displayFullName,
  FALLBACK_SCHOOL_NAME,
  initialsOf,
  isProfileComplete,
  useProfile,
  useSchool,
  useSchoolName,
  type Profile,
} from './api/profile'
export { describeSchool, useSchoolSearch, type SchoolOption } from './api/school-search'
export { SchoolPicker } from './components/school-picker'
export { formatChileanPhone } from './profile-form'
// The form loads with the pages that show it (profile, onboarding).
export const ProfileForm = lazy(() => import('./components/profile-form').then((module) => ({ default: module.ProfileForm })))
