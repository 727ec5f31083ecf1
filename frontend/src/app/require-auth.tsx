/**
 * The one route guard (spec section 2):
 *
 * * while the session (or the content-creator check) loads: skeleton bars;
 * * no user, or an anonymous visitor of the public trial: `/auth` (the page asked for is kept
 *   to come back to);
 * * e-mail not confirmed: `/confirm-email`;
 * * `contentCreator` routes, without that right: `/dashboard`.
 */
import { useEffect, type ReactNode } from 'react'
import { Navigate, useLocation } from 'react-router'
import { SkeletonBars } from '@/components/ui/skeleton'
import { paths } from '@/config/paths'
import type { RedirectState } from '@/features/auth'
import { useIsContentCreator } from '@/features/roles'
import { reportSecurityEvent } from '@/lib/security'
import { useAuth } from '@/lib/auth/auth-provider'

export interface RequireAuthProps {
  children: ReactNode
  /** Also require the content-creator right. */
  contentCreator?: boolean
}

export function RequireAuth({ children, contentCreator = false }: RequireAuthProps) {
  const { loading, user, emailConfirmed } = useAuth()
  const location = useLocation()

  if (loading) return <SkeletonBars label="Verificando tu sesión…" />
  if (!user || user.is_anonymous) {
    const state: RedirectState = { from: `${location.pathname}${location.search}${location.hash}` }
    return <Navigate to={paths.auth} replace state={state} />
  }
  if (!emailConfirmed) return <Navigate to={paths.confirmEmail} replace />
  if (contentCreator) return <RequireContentCreator>{children}</RequireContentCreator>
  return <>{children}</>
}

function RequireContentCreator({ children }: { children: ReactNode }) {
  const { data: isContentCreator, isPending } = useIsContentCreator()
  const { pathname } = useLocation()
  useEffect(() => {
    if (isContentCreator === false) {
      reportSecurityEvent('access_denied', 'low', { route: pathname, required: 'content_creator' }, {
        title: 'Acceso restringido',
        description: 'Creación Contenido es solo para el equipo de creación de contenido.',
      })
    }
  }, [isContentCreator, pathname])
  if (isPending) return <SkeletonBars label="Verificando tus permisos…" />
  if (!isContentCreator) return <Navigate to={paths.dashboard} replace />
  return <>{children}</>
}
