/**
 * A resource's form: title, description, kind, level and subject (only subjects taught at the
 * level), editorial state, the text in the rich-text editor and the OAs it supports (from
 * the level and subject's curriculum). Saved with its OAs in one call.
 */
import { lazy, Suspense, useId, useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { AppDialog } from '@/components/ui/dialog'
import { Field, FormError, fieldClass } from '@/components/ui/field'
import { Skeleton } from '@/components/ui/skeleton'
import type { Json } from '@/lib/database.types'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { ObjectivePicker, useObjectives } from '@/features/planner'
import { LevelSubjectFields } from './level-subject-fields'
import {
  EMPTY_DOC,
  KIND_LABELS,
  STATUS_LABELS,
  resourceProblem,
  useSaveResource,
  type Resource,
  type ResourceKind,
  type ResourceStatus,
} from '@/features/content-creation/api/resources'

const RichTextEditor = lazy(() => import('@/components/editor/rich-text-editor'))

const MAX_RESOURCE_OBJECTIVES = 10
const KINDS = Object.keys(KIND_LABELS) as ResourceKind[]
const STATUSES = Object.keys(STATUS_LABELS) as ResourceStatus[]

export function ResourceDialog({ resource, onClose }: { resource: Resource | null; onClose: () => void }) {
  const save = useSaveResource()
  const ids = { title: useId(), description: useId(), kind: useId(), status: useId() }
  const [form, setForm] = useState({
    title: resource?.title ?? '',
    description: resource?.description ?? '',
    kind: resource?.kind ?? ('guia' as ResourceKind),
    level: resource?.level_code ?? '',
    subject: resource?.subject_code ?? '',
    status: resource?.status ?? ('borrador' as ResourceStatus),
    objectives: resource?.objectives.map((objective) => objective.id) ?? [],
  })
  const [content, setContent] = useState<Json>(resource?.content ?? EMPTY_DOC)
  const [refusal, setRefusal] = useState<string | null>(null)
  const objectives = useObjectives(form.level || undefined, form.subject || undefined)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const values = {
      title: form.title,
      description: form.description,
      kind: form.kind,
      level_code: form.level || null,
      subject_code: form.subject || null,
      content,
      status: form.status,
      objective_ids: form.objectives,
    }
    const problem = resourceProblem(values)
    if (problem) {
      setRefusal(problem)
      return
    }
    save.mutate(
      { id: resource?.id ?? null, values },
      {
        onSuccess: () => {
          notify.success(resource ? 'Recurso guardado' : 'Recurso creado', values.title.trim())
          onClose()
        },
        onError: (error) => setRefusal(isDatabaseError(error) ? databaseErrorMessage(error) : 'No se pudo guardar. Inténtalo de nuevo.'),
      },
    )
  }

  const toggleObjective = (id: string) =>
    setForm((current) => ({
      ...current,
      objectives: current.objectives.includes(id) ? current.objectives.filter((item) => item !== id) : [...current.objectives, id],
    }))

  return (
    <AppDialog title={resource ? 'Editar recurso' : 'Nuevo recurso'} onClose={onClose} testId="resource-dialog">
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <Field id={ids.title} label="Título">
          <input id={ids.title} className={fieldClass} maxLength={200} value={form.title} onChange={(event) => setForm({ ...form, title: event.target.value })} />
        </Field>
        <Field id={ids.description} label="Descripción breve">
          <textarea id={ids.description} rows={2} maxLength={4000} className={`${fieldClass} py-2`} value={form.description} onChange={(event) => setForm({ ...form, description: event.target.value })} />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id={ids.kind} label="Tipo">
            <select id={ids.kind} className={fieldClass} value={form.kind} onChange={(event) => setForm({ ...form, kind: event.target.value as ResourceKind })}>
              {KINDS.map((kind) => (
                <option key={kind} value={kind}>
                  {KIND_LABELS[kind]}
                </option>
              ))}
            </select>
          </Field>
          <Field id={ids.status} label="Estado">
            <select id={ids.status} className={fieldClass} value={form.status} onChange={(event) => setForm({ ...form, status: event.target.value as ResourceStatus })}>
              {STATUSES.map((status) => (
                <option key={status} value={status}>
                  {STATUS_LABELS[status]}
                </option>
              ))}
            </select>
          </Field>
          <LevelSubjectFields
            level={form.level}
            subject={form.subject}
            noLevel="Sin nivel"
            onLevel={(level) => setForm({ ...form, level, subject: '', objectives: [] })}
            onSubject={(subject) => setForm({ ...form, subject, objectives: [] })}
          />
        </div>
        <div className="flex flex-col gap-1">
          <span className="text-sm font-medium text-ink">Contenido</span>
          <div className="rounded-lg border border-line">
            <Suspense fallback={<Skeleton className="h-40 w-full" />}>
              <RichTextEditor initialContent={content} placeholder="Escribe la guía, la actividad o la rúbrica." label="Contenido del recurso" onChange={setContent} />
            </Suspense>
          </div>
        </div>
        {form.level && form.subject ? (
          <ObjectivePicker
            objectives={objectives}
            chosen={form.objectives}
            max={MAX_RESOURCE_OBJECTIVES}
            onToggle={toggleObjective}
            legend={`OA que trabaja (hasta ${MAX_RESOURCE_OBJECTIVES})`}
          />
        ) : null}
        <FormError message={refusal} testId="resource-refusal" />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose}>
            Cancelar
          </Button>
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? 'Guardando…' : 'Guardar recurso'}
          </Button>
        </div>
      </form>
    </AppDialog>
  )
}
