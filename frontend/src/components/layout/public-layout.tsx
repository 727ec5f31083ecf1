import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { paths } from '@/config/paths'
import { useAuth } from '@/lib/auth/auth-provider'
import { CieloLogo } from '@/components/cielo-logo'
import { buttonClass } from '@/components/ui/button'

/** Header and footer of the public pages; the footer carries the data attributions. */
export function PublicLayout({ children }: { children: ReactNode }) {
  const { user, emailConfirmed } = useAuth()
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="border-b border-line bg-surface">
        <div className="mx-auto flex max-w-5xl items-center justify-between gap-3 px-4 py-3">
          <Link to={paths.landing} className="rounded-lg focus-visible:outline-2 focus-visible:outline-brand">
            <CieloLogo />
            <span className="sr-only">Inicio</span>
          </Link>
          {user && emailConfirmed ? (
            <Link to={paths.dashboard} className={buttonClass('primary')}>
              Ir al Dashboard
            </Link>
          ) : (
            <Link to={paths.auth} className={buttonClass('primary')}>
              Ingresar
            </Link>
          )}
        </div>
      </header>
      <main id="contenido" className="mx-auto w-full max-w-5xl flex-1 px-4 py-8">
        {children}
      </main>
      <footer className="border-t border-line">
        <div className="mx-auto flex max-w-5xl flex-col gap-3 px-4 py-6 text-sm text-ink-muted">
          <nav aria-label="Enlaces" className="flex flex-wrap gap-x-4 gap-y-2">
            <Link className="hover:text-ink hover:underline" to={paths.helpCentre}>Centro de ayuda</Link>
            <Link className="hover:text-ink hover:underline" to={paths.contact}>Contacto</Link>
            <Link className="hover:text-ink hover:underline" to={paths.terms}>Términos</Link>
            <Link className="hover:text-ink hover:underline" to={paths.privacy}>Privacidad</Link>
            <Link className="hover:text-ink hover:underline" to={paths.status}>Estado del servicio</Link>
          </nav>
          <DataAttributions />
        </div>
      </footer>
    </div>
  )
}

/** Sources of the reference data the app shows (see the READMEs under sql/data). */
export function DataAttributions() {
  return (
    <div className="flex flex-col gap-1 text-xs text-ink-muted" data-testid="data-attributions">
      <p>Establecimientos: Fuente: Directorio Oficial de Establecimientos, Centro de Estudios MINEDUC (CC BY 3.0 CL).</p>
      <p>Currículum: Currículum Nacional, Ministerio de Educación de Chile – curriculumnacional.cl.</p>
      <p>Calendario escolar 2025: elaborado a partir del anuncio del Mineduc y la ley de feriados.</p>
    </div>
  )
}
