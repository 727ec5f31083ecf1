/**
 * `/crear-planificacion` and `/planificacion-ia`: what Cielo's planning gives a teacher, and
 * the trial itself — a plan generated for a level, subject and OA without an account.
 */
import { BookOpenCheck, Clock, ListChecks } from 'lucide-react'
import { PublicLayout } from '@/components/layout/public-layout'
import { PageHeader } from '@/components/ui/page-header'
import { PlanTrial } from '@/features/plan-trial'

const PAGES = {
  createPlan: {
    title: 'Crea una planificación de clase',
    description: 'Elige nivel, asignatura y OA del Currículum Nacional: Cielo arma la clase con inicio, desarrollo, cierre, evaluación formativa y adecuaciones PIE/DUA.',
  },
  aiPlanning: {
    title: 'Planificación con IA',
    description: 'La IA escribe cada momento de la clase a partir del texto oficial de los OA que eliges. Tú revisas y ajustas: la planificación es tuya.',
  },
} as const

const POINTS = [
  { icon: BookOpenCheck, text: 'Alineada a las Bases Curriculares: los OA con su texto oficial e indicadores de evaluación.' },
  { icon: Clock, text: 'Tiempos para inicio, desarrollo y cierre según la duración de tu clase en bloques de 45 minutos.' },
  { icon: ListChecks, text: 'Queda como borrador: la editas, la asignas a tu curso y la imprimes.' },
]

export default function PlanTrialRoute({ page }: { page: keyof typeof PAGES }) {
  const { title, description } = PAGES[page]
  return (
    <PublicLayout>
      <div data-testid={`page-${page}`}>
        <PageHeader title={title} description={description} />
        <ul className="mb-6 grid gap-3 sm:grid-cols-3">
          {POINTS.map(({ icon: Icon, text }) => (
            <li key={text} className="flex gap-2 rounded-card bg-surface-muted p-3 text-sm text-ink">
              <Icon aria-hidden="true" className="size-5 shrink-0 text-brand" />
              {text}
            </li>
          ))}
        </ul>
        <PlanTrial />
      </div>
    </PublicLayout>
  )
}
