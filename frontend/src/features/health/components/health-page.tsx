import { useAppConfig, useSupabase } from '@/lib/supabase-provider'
import { CieloLogo } from '@/components/cielo-logo'
import { serviceStatus } from '@/features/health/api/overall'
import { SERVICES, type ServiceName } from '@/features/health/api/types'
import { useHealthChecks } from '@/features/health/api/use-health-checks'
import { HealthCard } from './health-card'
import { OverallBanner } from './overall-banner'

const SERVICE_INFO: Record<ServiceName, { title: string; description: string }> = {
  gateway: { title: 'Gateway y base de datos', description: 'Punto de entrada de la API y conexión a PostgreSQL.' },
  auth: { title: 'Autenticación', description: 'Servicio de cuentas compatible con GoTrue.' },
  rest: { title: 'API REST', description: 'Acceso a los datos compatible con PostgREST.' },
  session: { title: 'Sesión del cliente', description: 'Sesión guardada en este navegador.' },
}

/** "Estado de Cielo": health of the stack, checked through supabase-js. */
export function HealthPage() {
  const client = useSupabase()
  const { supabaseUrl } = useAppConfig()
  const { results, overall, running, checkedAt, recheck } = useHealthChecks(client, supabaseUrl)

  return (
    <div className="flex min-h-dvh flex-col">
      <header className="border-b border-line bg-surface">
        <div className="mx-auto flex max-w-5xl items-center justify-between gap-3 px-4 py-3">
          <CieloLogo />
          <span className="text-sm text-ink-muted">Planificación docente</span>
        </div>
      </header>

      <main className="mx-auto flex w-full max-w-5xl flex-1 flex-col gap-6 px-4 py-8">
        <div className="flex flex-col gap-3">
          <h1 className="text-2xl font-bold tracking-tight text-ink sm:text-3xl">Estado de Cielo</h1>
          <p className="max-w-prose text-ink-muted">
            Revisamos el gateway, la base de datos, la autenticación y la API REST usando el mismo cliente
            de Supabase que usa la aplicación.
          </p>
          <dl className="flex flex-wrap items-baseline gap-x-2 gap-y-1 text-sm">
            <dt className="text-ink-muted">API en uso:</dt>
            <dd>
              <code className="rounded bg-surface-muted px-1.5 py-0.5 font-mono break-all text-ink" data-testid="health-api-url">
                {supabaseUrl}
              </code>
            </dd>
          </dl>
        </div>

        <OverallBanner status={overall} running={running} checkedAt={checkedAt} onRecheck={recheck} />

        <section aria-labelledby="health-services-title">
          <h2 id="health-services-title" className="sr-only">
            Servicios
          </h2>
          <ul className="grid gap-4 sm:grid-cols-2" role="list">
            {SERVICES.map((service) => (
              <li key={service} className="grid">
                <HealthCard
                  service={service}
                  title={SERVICE_INFO[service].title}
                  description={SERVICE_INFO[service].description}
                  status={serviceStatus(results, service)}
                  result={results[service]}
                />
              </li>
            ))}
          </ul>
        </section>
      </main>

      <footer className="border-t border-line">
        <div className="mx-auto flex max-w-5xl flex-col gap-1 px-4 py-5 text-sm text-ink-muted sm:flex-row sm:justify-between">
          <p>Cielo · backend autoalojable compatible con Supabase.</p>
          <p>Hecho para docentes de Chile.</p>
        </div>
      </footer>
    </div>
  )
}
