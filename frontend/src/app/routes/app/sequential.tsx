/**
 * Plan. Secuencial: the teacher's units (a course's classes planned as one progression),
 * newest first, each with its dates and how many of its classes are planned, taught or
 * cancelled; searched and filtered by course; "Nueva unidad" opens the form that starts one.
 */
import { BookOpen, Layers, Plus, Search, Trash2 } from 'lucide-react'
import { useState } from 'react'
import { Link, useNavigate } from 'react-router'
import { Button, buttonClass } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { EmptyState } from '@/components/ui/empty-state'
import { fieldClass } from '@/components/ui/field'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { useCourseLabels, useCourses } from '@/features/courses'
import { NewUnitForm, unitProgress, useDeletePlan, useUnits, type UnitSummary } from '@/features/planner'
import { formatDate } from '@/lib/dates'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'

export default function SequentialRoute() {
  const units = useUnits()
  const courses = useCourses()
  const labels = useCourseLabels()
  const remove = useDeletePlan()
  const navigate = useNavigate()
  const [creating, setCreating] = useState(false)
  const [courseId, setCourseId] = useState('')
  const [words, setWords] = useState('')
  const [deleting, setDeleting] = useState<UnitSummary | null>(null)

  const needle = words.trim().toLocaleLowerCase('es')
  const shown = (units.data ?? []).filter(
    (unit) =>
      (!courseId || unit.course_id === courseId) &&
      (!needle || `${unit.title} ${unit.unit_name ?? ''}`.toLocaleLowerCase('es').includes(needle)),
  )
  const loading = units.isPending || courses.isPending || labels.isPending

  return (
    <div data-testid="sequential-page">
      <PageHeader title="Plan. Secuencial" description="Unidades de varias clases: los OA repartidos en una progresión, con las fechas de tu calendario.">
        {creating ? null : (
          <div>
            <Button onClick={() => setCreating(true)} disabled={loading || (courses.data ?? []).length === 0} data-testid="new-unit">
              <Plus aria-hidden="true" className="size-4" /> Nueva unidad
            </Button>
          </div>
        )}
      </PageHeader>
      {loading ? (
        <Skeleton className="h-64 w-full" />
      ) : units.isError || courses.isError || !labels.labels ? (
        <p role="alert" className="text-bad">
          No se pudieron cargar tus unidades.
        </p>
      ) : (courses.data ?? []).length === 0 ? (
        <EmptyState icon={BookOpen} title="Primero crea un curso" description="Una unidad es para uno de tus cursos y sus OA.">
          <Link to={paths.courses} className={buttonClass('primary')}>
            Ir a Mis Cursos
          </Link>
        </EmptyState>
      ) : (
        <>
          {creating ? (
            <section className="mb-6 rounded-card border border-line bg-surface p-4 shadow-card" aria-labelledby="nueva-unidad">
              <div className="mb-4 flex items-center justify-between gap-2">
                <h2 id="nueva-unidad" className="text-lg font-semibold text-ink">
                  Nueva unidad
                </h2>
                <Button variant="ghost" onClick={() => setCreating(false)}>
                  Cancelar
                </Button>
              </div>
              <NewUnitForm courses={courses.data ?? []} labels={labels.labels} onCreated={(id) => navigate(paths.sequentialSession(id))} />
            </section>
          ) : null}
          {(units.data ?? []).length === 0 ? (
            creating ? null : (
              <EmptyState icon={Layers} title="Aún no tienes unidades" description="Planifica varias clases seguidas de un curso: elige los OA y las fechas, y genera la secuencia con IA o escríbela clase a clase.">
                <Button onClick={() => setCreating(true)}>Crear una unidad</Button>
              </EmptyState>
            )
          ) : (
            <>
              <div className="mb-4 grid gap-2 sm:grid-cols-[1fr_18rem]">
                <label className="relative">
                  <span className="sr-only">Buscar por título</span>
                  <Search aria-hidden="true" className="absolute top-3 left-3 size-5 text-ink-muted" />
                  <input className={`${fieldClass} pl-10`} value={words} onChange={(event) => setWords(event.target.value)} placeholder="Buscar por título o unidad" />
                </label>
                <label>
                  <span className="sr-only">Curso</span>
                  <select className={fieldClass} value={courseId} onChange={(event) => setCourseId(event.target.value)}>
                    <option value="">Todos los cursos</option>
                    {[...labels.labels.values()].map((label) => (
                      <option key={label.id} value={label.id}>
                        {label.name}
                      </option>
                    ))}
                  </select>
                </label>
              </div>
              {shown.length === 0 ? <p className="text-sm text-ink-muted">Ninguna unidad coincide con la búsqueda.</p> : null}
              <ul className="flex flex-col gap-2" data-testid="unit-list">
                {shown.map((unit) => {
                  const label = labels.labels?.get(unit.course_id)
                  const progress = unitProgress(unit.classes.map((c) => ({ status: c.status, written: c.written })))
                  const dated = unit.classes.filter((c) => c.session_date).map((c) => c.session_date as string)
                  return (
                    <li key={unit.id} className="flex items-center gap-3 rounded-card border border-line bg-surface p-3 shadow-card" data-testid="unit-row">
                      <span aria-hidden="true" className="h-12 w-1.5 shrink-0 rounded-full" style={{ backgroundColor: label?.color }} />
                      <Link to={paths.sequentialSession(unit.id)} className="min-w-0 flex-1">
                        <span className="block truncate font-semibold text-ink">{unit.title}</span>
                        <span className="block truncate text-sm text-ink-muted">
                          {label?.name ?? 'Curso'} · {unit.classes.length} clases
                          {dated.length > 0 ? ` · ${formatDate(dated[0] as string)} al ${formatDate(dated[dated.length - 1] as string)}` : ''}
                        </span>
                        <span className="block text-sm text-ink-muted">
                          {progress.planned} planificadas · {progress.taught} realizadas{progress.cancelled ? ` · ${progress.cancelled} canceladas` : ''}
                        </span>
                      </Link>
                      <Button variant="ghost" className="shrink-0 px-2 text-bad" aria-label={`Eliminar ${unit.title}`} onClick={() => setDeleting(unit)}>
                        <Trash2 aria-hidden="true" className="size-4" />
                      </Button>
                    </li>
                  )
                })}
              </ul>
            </>
          )}
        </>
      )}
      {deleting ? (
        <ConfirmDialog
          title={`¿Eliminar «${deleting.title}»?`}
          description="Se eliminan sus clases con sus zonas. Las clases del calendario quedan sin planificación."
          confirmLabel="Eliminar unidad"
          confirmTestId="confirm-delete-unit"
          onClose={() => setDeleting(null)}
          onConfirm={() =>
            remove.mutate(deleting.id, {
              onSuccess: () => notify.success('Unidad eliminada'),
              onError: (error) => notify.error('No se pudo eliminar', isDatabaseError(error) ? databaseErrorMessage(error) : undefined),
            })
          }
        />
      ) : null}
    </div>
  )
}
