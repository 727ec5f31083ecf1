/**
 * Creación Contenido (content creators; the route's guard checks the right): resources —
 * guides, activities, assessments, rubrics — tied to the curriculum's OAs, and the OAs'
 * suggested assessment indicators, as two tabs.
 */
import { useState } from 'react'
import { PageHeader } from '@/components/ui/page-header'
import { Tabs } from '@/components/ui/tabs'
import { IndicatorsPanel, ResourcesPanel } from '@/features/content-creation'

const TABS = [
  { id: 'resources', label: 'Recursos' },
  { id: 'indicators', label: 'Indicadores de evaluación' },
] as const

type Tab = (typeof TABS)[number]['id']

export default function ContentCreationRoute() {
  const [tab, setTab] = useState<Tab>('resources')
  return (
    <div data-testid="page-contentCreation">
      <PageHeader title="Creación Contenido" description="Recursos para los docentes e indicadores de evaluación de los OA del currículum nacional." />
      <Tabs label="Secciones" tabs={TABS} value={tab} onChange={setTab}>
        {tab === 'resources' ? <ResourcesPanel /> : <IndicatorsPanel />}
      </Tabs>
    </div>
  )
}
