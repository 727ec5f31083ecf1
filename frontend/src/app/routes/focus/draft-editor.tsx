/**
 * `/editor/draft/:id`, without the sidebar: one draft in the rich-text editor, saved as the
 * teacher writes (with the same conflict and offline handling as a plan's zones), its title
 * and course, and "Convertir en planificación" — a course, a class and OAs, and the draft
 * becomes a simple plan whose first zone is its text.
 */
import type { Editor } from '@tiptap/react'
import { ArrowLeft, FileOutput } from 'lucide-react'
import { lazy, Suspense, useCallback, useId, useRef, useState } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import { SaveIndicator } from '@/components/editor/save-indicator'
import { Button } from '@/components/ui/button'
import { AppDialog } from '@/components/ui/dialog'
import { fieldClass } from '@/components/ui/field'
import { Skeleton } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { useCourseLabels, useCourses, type Course, type CourseLabel } from '@/features/courses'
import { useDraft, useDraftAutosave, usePromoteDraft, useUpdateDraftDetails, type Draft } from '@/features/drafts'
import { NewPlanForm } from '@/features/planner'
import { overallStatus } from '@/lib/autosave-machine'
import type { Json } from '@/lib/database.types'
import { notify } from '@/lib/notify'

const RichTextEditor = lazy(() => import('@/components/editor/rich-text-editor'))

export default function DraftEditorRoute() {
  const { id } = useParams()
  const draft = useDraft(id)
  const courses = useCourses()
  const labels = useCourseLabels()
  return (
    <div className="flex min-h-dvh flex-col bg-canvas">
      <header className="flex min-h-16 items-center border-b border-line bg-surface px-4">
        <Link to={paths.drafts} className="inline-flex min-h-11 items-center gap-2 rounded-lg px-2 text-sm font-medium text-ink hover:bg-surface-muted">
          <ArrowLeft aria-hidden="true" className="size-4" />
          Volver a Borradores
        </Link>
      </header>
      <main id="contenido" className="mx-auto w-full max-w-4xl flex-1 px-4 py-6" data-testid="page-draftEditor">
        {draft.isPending || courses.isPending || labels.isPending ? (
          <Skeleton className="h-96 w-full" />
        ) : draft.isError || courses.isError || !labels.labels ? (
          <p role="alert" className="text-bad">
            No se pudo cargar el borrador.
          </p>
        ) : !draft.data ? (
          <p role="alert" className="text-bad" data-testid="draft-not-found">
            Este borrador no existe o no es tuyo.
          </p>
        ) : (
          <DraftEditor key={draft.data.id} draft={draft.data} courses={courses.data ?? []} labels={labels.labels} />
        )}
      </main>
    </div>
  )
}

function DraftEditor({ draft, courses, labels }: { draft: Draft; courses: Course[]; labels: Map<string, CourseLabel> }) {
  const editorRef = useRef<Editor | null>(null)
  const replace = useCallback((content: Json) => editorRef.current?.commands.setContent(content as object, { emitUpdate: false }), [])
  const autosave = useDraftAutosave(draft, replace)
  const details = useUpdateDraftDetails(draft.id)
  const [title, setTitle] = useState(draft.title)
  const [promoting, setPromoting] = useState(false)
  const ids = { title: useId(), course: useId() }
  const status = overallStatus([autosave.state])

  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-col gap-3 rounded-card border border-line bg-surface p-4 shadow-card">
        <label htmlFor={ids.title} className="sr-only">
          Título del borrador
        </label>
        <input
          id={ids.title}
          value={title}
          maxLength={200}
          onChange={(event) => setTitle(event.target.value)}
          onBlur={() => {
            const next = title.trim()
            if (next && next !== draft.title) details.mutate({ title: next }, { onError: () => notify.error('No se pudo cambiar el título') })
          }}
          className="w-full rounded-md border border-transparent bg-transparent px-1 text-xl font-bold sm:text-2xl text-ink hover:border-line focus:border-brand focus:outline-none"
          data-testid="draft-title"
        />
        <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
          <label htmlFor={ids.course} className="flex items-center gap-2 text-sm text-ink">
            Curso
            <select
              id={ids.course}
              className={`${fieldClass} min-h-9 w-auto`}
              defaultValue={draft.course_id ?? ''}
              onChange={(event) => details.mutate({ course_id: event.target.value || null })}
            >
              <option value="">Sin curso</option>
              {[...labels.values()].map((label) => (
                <option key={label.id} value={label.id}>
                  {label.name}
                </option>
              ))}
            </select>
          </label>
          <div className="flex flex-wrap items-center gap-3">
            <SaveIndicator status={status} />
            <Button onClick={() => setPromoting(true)} disabled={courses.length === 0 || status !== 'saved'} data-testid="promote-draft">
              <FileOutput aria-hidden="true" className="size-4" /> Convertir en planificación
            </Button>
          </div>
        </div>
      </div>
      {autosave.state.status === 'conflict' ? (
        <div role="alert" className="flex flex-col gap-2 rounded-card bg-bad-soft p-3 text-sm text-bad" data-testid="draft-conflict">
          <p>Este borrador se guardó en otra pestaña o dispositivo mientras escribías. Tu texto sigue aquí; elige cuál queda.</p>
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" className="min-h-9" onClick={() => void autosave.keepMine()}>
              Guardar mi versión
            </Button>
            <Button variant="ghost" className="min-h-9" onClick={() => void autosave.takeTheirs()}>
              Usar la otra versión
            </Button>
          </div>
        </div>
      ) : null}
      <Suspense fallback={<Skeleton className="h-64 w-full" />}>
        <RichTextEditor
          initialContent={autosave.initialContent}
          placeholder="Escribe tu idea de clase, una guía o una prueba. Se guarda sola."
          label={title || 'Borrador'}
          onChange={autosave.change}
          onReady={(editor) => {
            editorRef.current = editor
          }}
        />
      </Suspense>
      {promoting ? <PromoteDialog draft={draft} courses={courses} labels={labels} onClose={() => setPromoting(false)} /> : null}
    </div>
  )
}

function PromoteDialog({ draft, courses, labels, onClose }: { draft: Draft; courses: Course[]; labels: Map<string, CourseLabel>; onClose: () => void }) {
  const promote = usePromoteDraft()
  const navigate = useNavigate()
  return (
    <AppDialog title="Convertir en planificación" description="Elige el curso, la clase y los OA. El texto del borrador será la primera zona de la planificación, y el borrador dejará la lista." onClose={onClose} testId="promote-dialog">
      <NewPlanForm
        courses={courses}
        labels={labels}
        initialCourseId={draft.course_id}
        initialClassId={null}
        submitLabel="Convertir en planificación"
        make={(choice) => promote.mutateAsync({ draftId: draft.id, courseId: choice.courseId, objectiveIds: choice.objectiveIds, classSessionId: choice.classSessionId, classBlocks: choice.classBlocks })}
        onCreated={(planId) => {
          notify.success('Borrador convertido en planificación')
          navigate(paths.plan(planId), { replace: true })
        }}
      />
    </AppDialog>
  )
}
