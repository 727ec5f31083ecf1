/**
 * Gestión Plataforma (admins): the accounts — roles and Demo 2025 — and the announcements
 * teachers read, as two tabs. Anyone else is told the page is for admins.
 */
import { useState } from 'react'
import { Link } from 'react-router'
import { PageHeader } from '@/components/ui/page-header'
import { Tabs } from '@/components/ui/tabs'
import { paths } from '@/config/paths'
import { AnnouncementsAdmin } from '@/features/announcements'
import { UsersPanel } from '@/features/platform-admin'
import { AdminOnly } from '@/features/roles'

const TABS = [
  { id: 'users', label: 'Cuentas y roles' },
  { id: 'announcements', label: 'Anuncios' },
] as const

type Tab = (typeof TABS)[number]['id']

export default function AdminPlatformRoute() {
  const [tab, setTab] = useState<Tab>('users')

  return (
    <div data-testid="page-admin-platform">
      <PageHeader title="Gestión Plataforma" description="Cuentas, roles, Demo 2025 y anuncios de Cielo." />
      <AdminOnly>
        <p className="mb-4 text-sm text-ink-muted">
          Las alertas y el registro de seguridad están en{' '}
          <Link to={paths.adminMonitoring} className="font-medium text-brand underline">
            Monitoreo Cielo
          </Link>
          .
        </p>
        <Tabs label="Secciones" tabs={TABS} value={tab} onChange={setTab}>
          {tab === 'users' ? <UsersPanel /> : <AnnouncementsAdmin />}
        </Tabs>
      </AdminOnly>
    </div>
  )
}
