/**
 * Plan. Simple: the teacher's plans, newest first, by course and with the date of the class
 * each is for; searched by title and filtered by course; each opens in the editor or is
 * deleted. "Nueva planificación" starts one.
 */
import { FilePlus2, FileText, Search, Trash2 } from 'lucide-react'
import { useState } from 'react'
import { Link } from 'react-router'
import { Button, buttonClass } from '@/components/ui/button'
import { ConfirmDialog } from '@/components/ui/dialog'
import { EmptyState } from '@/components/ui/empty-state'
import { fieldClass } from '@/components/ui/field'
import { PageHeader } from '@/components/ui/page-header'
import { Skeleton } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import { useCourseLabels } from '@/features/courses'
import { useDeletePlan, usePlans, type PlanSummary } from '@/features/planner'
import { formatDate } from '@/lib/dates'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'

export default function PlannerRoute() {
  const plans = usePlans()
  const courses = useCourseLabels()
  const remove = useDeletePlan()
  const [courseId, setCourseId] = useState('')
  const [words, setWords] = useState('')
  const [deleting, setDeleting] = useState<PlanSummary | null>(null)

  const needle = words.trim().toLocaleLowerCase('es')
  const shown = (plans.data ?? []).filter(
    (plan) => plan.kind === 'simple' && (!courseId || plan.course_id === courseId) && (!needle || plan.title.toLocaleLowerCase('es').includes(needle)),
  )

  return (
    <div data-testid="planner-page">
      <PageHeader title="Plan. Simple" description="Tus planificaciones de clase: inicio, desarrollo y cierre, con los OA de tu curso.">
        <div>
          <Link to={paths.plannerCreate} className={buttonClass('primary')} data-testid="new-plan" data-tour="new-plan">
            <FilePlus2 aria-hidden="true" className="size-4" /> Nueva planificación
          </Link>
        </div>
      </PageHeader>
      <div data-tour="plan-list">
      {plans.isPending || courses.isPending ? (
        <Skeleton className="h-64 w-full" />
      ) : plans.isError || courses.isError ? (
        <p role="alert" className="text-bad">
          No se pudieron cargar tus planificaciones.
        </p>
      ) : (plans.data ?? []).filter((plan) => plan.kind === 'simple').length === 0 ? (
        <EmptyState icon={FileText} title="Aún no tienes planificaciones" description="Planifica una clase con los OA de tu curso: escribe cada zona o genérala con IA y ajústala a tu estilo.">
          <Link to={paths.plannerCreate} className={buttonClass('primary')}>
            Planificar una clase
          </Link>
        </EmptyState>
      ) : (
        <>
          <div className="mb-4 grid gap-2 sm:grid-cols-[1fr_18rem]">
            <label className="relative">
              <span className="sr-only">Buscar por título</span>
              <Search aria-hidden="true" className="absolute top-3 left-3 size-5 text-ink-muted" />
              <input className={`${fieldClass} pl-10`} value={words} onChange={(event) => setWords(event.target.value)} placeholder="Buscar por título" />
            </label>
            <label>
              <span className="sr-only">Curso</span>
              <select className={fieldClass} value={courseId} onChange={(event) => setCourseId(event.target.value)}>
                <option value="">Todos los cursos</option>
                {[...(courses.labels?.values() ?? [])].map((label) => (
                  <option key={label.id} value={label.id}>
                    {label.name}
                  </option>
                ))}
              </select>
            </label>
          </div>
          {shown.length === 0 ? <p className="text-sm text-ink-muted">Ninguna planificación coincide con la búsqueda.</p> : null}
          <ul className="flex flex-col gap-2" data-testid="plan-list">
            {shown.map((plan) => {
              const label = courses.labels?.get(plan.course_id)
              return (
                <li key={plan.id} className="flex items-center gap-3 rounded-card border border-line bg-surface p-3 shadow-card" data-testid="plan-row">
                  <span aria-hidden="true" className="h-10 w-1.5 shrink-0 rounded-full" style={{ backgroundColor: label?.color }} />
                  <Link to={paths.plan(plan.id)} className="min-w-0 flex-1">
                    <span className="block truncate font-semibold text-ink">{plan.title}</span>
                    <span className="block truncate text-sm text-ink-muted">
                      {label?.name ?? 'Curso'}
                      {plan.session ? ` · clase del ${formatDate(plan.session.session_date)}` : ''} · editada el {formatDate(plan.updated_at)}
                    </span>
                  </Link>
                  <Button variant="ghost" className="shrink-0 px-2 text-bad" aria-label={`Eliminar ${plan.title}`} onClick={() => setDeleting(plan)}>
                    <Trash2 aria-hidden="true" className="size-4" />
                  </Button>
                </li>
              )
            })}
          </ul>
        </>
      )}
      </div>
      {deleting ? (
        <ConfirmDialog
          title={`¿Eliminar «${deleting.title}»?`}
          description="Se eliminan sus zonas y su texto. La clase del calendario queda sin planificación."
          confirmLabel="Eliminar planificación"
          confirmTestId="confirm-delete-plan"
          onClose={() => setDeleting(null)}
          onConfirm={() =>
            remove.mutate(deleting.id, {
              onSuccess: () => notify.success('Planificación eliminada'),
              onError: (error) => notify.error('No se pudo eliminar', isDatabaseError(error) ? databaseErrorMessage(error) : undefined),
            })
          }
        />
      ) : null}
    </div>
  )
}
