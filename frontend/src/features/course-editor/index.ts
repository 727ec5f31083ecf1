/**
 * Creating and editing a course (its dialog), apart from the courses feature so that pages
 * that only read courses (Inicio, Horario, Calendario) do not load the form.
 */
export { CourseDialog, type CourseEditing } from './course-dialog'
