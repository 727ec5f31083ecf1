/**
 * The admins' pages' gate: bars while the role is checked, a plain refusal for anyone else,
 * and the page (whose queries then run) for an admin.
 */
import type { ReactNode } from 'react'
import { Skeleton } from '@/components/ui/skeleton'
import { useIsAdmin } from '@/features/roles/api/roles'

export function AdminOnly({ children }: { children: ReactNode }) {
  const isAdmin = useIsAdmin()
  if (isAdmin.data === false) {
    return (
      <p role="alert" className="text-ink">
        Esta sección es solo para administradores.
      </p>
    )
  }
  return isAdmin.data === true ? children : <Skeleton className="h-40 w-full" />
}
