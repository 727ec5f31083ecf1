/**
 * The teacher's profile form, in onboarding and on /profile: names, how she found Cielo, her
 * school (the directory, by name, comuna or RBD) and her phone (optional, Chilean, stored
 * encrypted). Checked here first, then by the database; nothing is half-saved.
 */
import { Loader2 } from 'lucide-react'
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import type { Profile } from '@/features/profile/api/profile'
import { usePhone, useSaveProfile } from '@/features/profile/api/profile-save'
import {
  HOW_FOUND_US_OPTIONS,
  HOW_FOUND_US_OTHER,
  formatChileanPhone,
  profileProblems,
  type ProfileProblems,
} from '@/features/profile/profile-form'
import { SchoolPicker } from './school-picker'

export interface ProfileFormProps {
  profile: Profile | null
  submitLabel: string
  onSaved: () => void
}

const knownAnswer = (answer: string) => (HOW_FOUND_US_OPTIONS as readonly string[]).includes(answer)

export function ProfileForm({ profile, submitLabel, onSaved }: ProfileFormProps) {
  const save = useSaveProfile()
  const storedPhone = usePhone(profile?.encrypted_phone)
  const stored = profile?.how_found_us ?? ''
  const [firstName, setFirstName] = useState(profile?.first_name ?? '')
  const [lastName, setLastName] = useState(profile?.last_name ?? '')
  const [answer, setAnswer] = useState(stored === '' ? '' : knownAnswer(stored) ? stored : HOW_FOUND_US_OTHER)
  const [otherAnswer, setOtherAnswer] = useState(stored !== '' && !knownAnswer(stored) ? stored : '')
  const [school, setSchool] = useState<number | null>(profile?.school_rbd ?? null)
  // Undefined until she types: an untouched field leaves the stored phone as it is.
  const [phone, setPhone] = useState<string | undefined>(undefined)
  const [problems, setProblems] = useState<ProfileProblems>({})
  const [saveError, setSaveError] = useState<string | null>(null)
  const ids = { first: useId(), last: useId(), answer: useId(), other: useId(), phone: useId() }
  const shownPhone = phone ?? (storedPhone.data ? formatChileanPhone(storedPhone.data) : '')
  const howFoundUs = answer === HOW_FOUND_US_OTHER ? otherAnswer : answer
  // A field's problem goes away as soon as she changes the field.
  const fixing = (field: keyof ProfileProblems) =>
    setProblems((current) => {
      if (!current[field]) return current
      const rest = { ...current }
      delete rest[field]
      return rest
    })

  function submit(event: FormEvent) {
    event.preventDefault()
    const found = profileProblems({ first_name: firstName, last_name: lastName, how_found_us: howFoundUs, phone: shownPhone })
    if (answer === HOW_FOUND_US_OTHER && found.how_found_us) found.how_found_us = 'Cuéntanos brevemente cómo conociste Cielo.'
    setProblems(found)
    setSaveError(null)
    if (Object.keys(found).length > 0) return
    save.mutate(
      {
        first_name: firstName.trim(),
        last_name: lastName.trim(),
        how_found_us: howFoundUs.trim(),
        school_rbd: school,
        phone: phone === undefined ? undefined : phone.trim(),
      },
      {
        onSuccess: () => {
          setPhone(undefined)
          onSaved()
        },
        onError: (error) =>
          setSaveError(isDatabaseError(error) ? databaseErrorMessage(error) : 'No se pudo guardar tu perfil. Inténtalo de nuevo.'),
      },
    )
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4" data-testid="profile-form">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={ids.first} label="Nombre" problem={problems.first_name}>
          <input
            id={ids.first}
            className={fieldClass}
            value={firstName}
            autoComplete="given-name"
            maxLength={80}
            onChange={(event) => {
              setFirstName(event.target.value)
              fixing('first_name')
            }}
          />
        </Field>
        <Field id={ids.last} label="Apellido" problem={problems.last_name}>
          <input
            id={ids.last}
            className={fieldClass}
            value={lastName}
            autoComplete="family-name"
            maxLength={80}
            onChange={(event) => {
              setLastName(event.target.value)
              fixing('last_name')
            }}
          />
        </Field>
      </div>
      <Field id={ids.answer} label="¿Cómo conociste Cielo?" problem={answer === HOW_FOUND_US_OTHER ? undefined : problems.how_found_us}>
        <select id={ids.answer} className={fieldClass} value={answer} onChange={(event) => {
            setAnswer(event.target.value)
            fixing('how_found_us')
          }}>
          <option value="">Elige una opción</option>
          {HOW_FOUND_US_OPTIONS.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
          <option value={HOW_FOUND_US_OTHER}>Otro</option>
        </select>
      </Field>
      {answer === HOW_FOUND_US_OTHER ? (
        <Field id={ids.other} label="Cuéntanos cómo" problem={problems.how_found_us}>
          <input
            id={ids.other}
            className={fieldClass}
            value={otherAnswer}
            maxLength={200}
            onChange={(event) => {
              setOtherAnswer(event.target.value)
              fixing('how_found_us')
            }}
          />
        </Field>
      ) : null}
      <SchoolPicker value={school} onChange={setSchool} label="Establecimiento donde trabajas (opcional)" />
      <Field id={ids.phone} label="Teléfono (opcional)" problem={problems.phone}>
        <input
          id={ids.phone}
          className={fieldClass}
          type="tel"
          inputMode="tel"
          autoComplete="tel"
          placeholder={storedPhone.isLoading ? 'Cargando tu teléfono…' : '+56 9 1234 5678'}
          // Until her stored phone is decrypted, typing would race with it.
          disabled={storedPhone.isLoading}
          value={shownPhone}
          onChange={(event) => {
            setPhone(event.target.value)
            fixing('phone')
          }}
        />
      </Field>
      <p className="-mt-2 text-xs text-ink-muted">Tu teléfono se guarda cifrado y solo tú puedes verlo.</p>
      <FormError message={saveError} testId="profile-error" />
      <div className="flex justify-end">
        <Button type="submit" disabled={save.isPending} data-testid="save-profile">
          {save.isPending ? <Loader2 aria-hidden="true" className="size-4 animate-spin" /> : null}
          {save.isPending ? 'Guardando…' : submitLabel}
        </Button>
      </div>
    </form>
  )
}
