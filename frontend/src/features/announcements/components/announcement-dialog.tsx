/**
 * Writing an announcement: title, text (with a preview of how it will look), audience,
 * pinned, and whether it is published now, kept as a draft, or shown until a last day.
 */
import { useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { AppDialog } from '@/components/ui/dialog'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import { MarkdownText } from '@/components/ui/markdown-text'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { AUDIENCE_LABELS, announcementState, useSaveAnnouncement, type AnnouncementRow } from '@/features/announcements/api/manage'

const AUDIENCES = Object.keys(AUDIENCE_LABELS) as AnnouncementRow['audience'][]
const TITLE_MAX = 200

/** The end of `day` where the admin is (the last day it is shown, whole). */
const endOfDay = (day: string) => new Date(`${day}T23:59:59`).toISOString()

export function AnnouncementDialog({ announcement, onClose }: { announcement: AnnouncementRow | null; onClose: () => void }) {
  const save = useSaveAnnouncement()
  const ids = { title: useId(), body: useId(), audience: useId(), pinned: useId(), expires: useId() }
  const [form, setForm] = useState({
    title: announcement?.title ?? '',
    body: announcement?.body ?? '',
    audience: announcement?.audience ?? 'docentes',
    pinned: announcement?.is_pinned ?? false,
    expires: announcement?.expires_at ? announcement.expires_at.slice(0, 10) : '',
  })
  const [problem, setProblem] = useState<string | null>(null)
  const [refusal, setRefusal] = useState<string | null>(null)
  const live = announcement !== null && announcementState(announcement) !== 'draft'

  const send = (publish: boolean) => {
    const title = form.title.trim()
    if (!title) {
      setProblem('Escribe un título.')
      return
    }
    if (publish && form.expires && new Date(endOfDay(form.expires)) <= new Date()) {
      setRefusal('El último día ya pasó: elige una fecha desde hoy o deja el campo vacío.')
      return
    }
    const publishedAt = publish ? (live && announcement?.published_at ? announcement.published_at : new Date().toISOString()) : null
    const values = {
      title,
      body: form.body,
      audience: form.audience,
      is_pinned: form.pinned,
      published_at: publishedAt,
      expires_at: publish && form.expires ? endOfDay(form.expires) : null,
    }
    save.mutate(
      { ...(announcement ? { id: announcement.id } : {}), values },
      {
        onSuccess: () => {
          notify.success(publish ? 'Anuncio publicado' : 'Borrador guardado', title)
          onClose()
        },
        onError: (error) => setRefusal(isDatabaseError(error) ? databaseErrorMessage(error) : 'No se pudo guardar. Inténtalo de nuevo.'),
      },
    )
  }

  const submit = (event: FormEvent) => {
    event.preventDefault()
    send(true)
  }

  return (
    <AppDialog title={announcement ? 'Editar anuncio' : 'Nuevo anuncio'} onClose={onClose} testId="announcement-dialog">
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <Field id={ids.title} label="Título" problem={problem ?? undefined}>
          <input
            id={ids.title}
            className={fieldClass}
            maxLength={TITLE_MAX}
            value={form.title}
            onChange={(event) => {
              setProblem(null)
              setForm({ ...form, title: event.target.value })
            }}
          />
        </Field>
        <Field id={ids.body} label="Texto">
          <textarea
            id={ids.body}
            rows={5}
            className={`${fieldClass} py-2`}
            value={form.body}
            onChange={(event) => setForm({ ...form, body: event.target.value })}
            aria-describedby={`${ids.body}-hint`}
          />
        </Field>
        <p id={`${ids.body}-hint`} className="text-xs text-ink-muted">
          Deja una línea en blanco entre párrafos; **negrita**, listas con «- » y enlaces [texto](https://…).
        </p>
        {form.body.trim() ? (
          <div className="rounded-lg border border-dashed border-line p-3" aria-label="Vista previa">
            <p className="mb-1 text-xs font-semibold text-ink-muted">Vista previa</p>
            <MarkdownText text={form.body} className="text-sm" />
          </div>
        ) : null}
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id={ids.audience} label="Para quién">
            <select id={ids.audience} className={fieldClass} value={form.audience} onChange={(event) => setForm({ ...form, audience: event.target.value as AnnouncementRow['audience'] })}>
              {AUDIENCES.map((audience) => (
                <option key={audience} value={audience}>
                  {AUDIENCE_LABELS[audience]}
                </option>
              ))}
            </select>
          </Field>
          <Field id={ids.expires} label="Mostrar hasta (opcional)">
            <input id={ids.expires} type="date" className={fieldClass} value={form.expires} onChange={(event) => setForm({ ...form, expires: event.target.value })} />
          </Field>
        </div>
        <label htmlFor={ids.pinned} className="flex min-h-11 items-center gap-3 text-sm text-ink">
          <input id={ids.pinned} type="checkbox" className="size-5" checked={form.pinned} onChange={(event) => setForm({ ...form, pinned: event.target.checked })} />
          Destacar (se muestra primero)
        </label>
        <FormError message={refusal} testId="announcement-refusal" />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={() => send(false)} disabled={save.isPending}>
            {live ? 'Retirar y guardar como borrador' : 'Guardar borrador'}
          </Button>
          <Button type="submit" disabled={save.isPending}>
            {live ? 'Guardar cambios' : 'Publicar'}
          </Button>
        </div>
      </form>
    </AppDialog>
  )
}
