/** Nivel and Asignatura as two selects: the subjects offered are the ones taught at the level. */
import { useId } from 'react'
import { Field, fieldClass } from '@/components/ui/field'
import { useCurriculum } from '@/features/courses'

export interface LevelSubjectFieldsProps {
  level: string
  subject: string
  /** A new level clears the subject. */
  onLevel: (level: string) => void
  onSubject: (subject: string) => void
  /** The empty level's label ("Sin nivel" where a level is optional). */
  noLevel: string
}

export function LevelSubjectFields({ level, subject, onLevel, onSubject, noLevel }: LevelSubjectFieldsProps) {
  const curriculum = useCurriculum()
  const ids = { level: useId(), subject: useId() }
  const subjects = level ? (curriculum.data?.subjectsByLevel.get(level) ?? []) : []
  return (
    <>
      <Field id={ids.level} label="Nivel">
        <select id={ids.level} className={fieldClass} value={level} onChange={(event) => onLevel(event.target.value)}>
          <option value="">{noLevel}</option>
          {curriculum.data?.levels.map((item) => (
            <option key={item.code} value={item.code}>
              {item.name}
            </option>
          ))}
        </select>
      </Field>
      <Field id={ids.subject} label="Asignatura">
        <select id={ids.subject} className={fieldClass} value={subject} disabled={!level} onChange={(event) => onSubject(event.target.value)}>
          <option value="">{level ? 'Elige una asignatura' : 'Elige primero el nivel'}</option>
          {subjects.map((code) => (
            <option key={code} value={code}>
              {curriculum.data?.subjects.get(code) ?? code}
            </option>
          ))}
        </select>
      </Field>
    </>
  )
}
