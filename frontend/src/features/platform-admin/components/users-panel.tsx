/**
 * The accounts of the platform for an admin: searched by e-mail, name or school, each with
 * its school, courses, last sign-in, roles (granted and revoked here) and Demo 2025 stars.
 */
import { Search, Sparkles, Users } from 'lucide-react'
import { useEffect, useState } from 'react'
import { Button } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/empty-state'
import { fieldClass } from '@/components/ui/field'
import { Skeleton } from '@/components/ui/skeleton'
import { cn } from '@/lib/cn'
import { formatDate } from '@/lib/dates'
import { databaseErrorMessage, isDatabaseError } from '@/lib/errors'
import { notify } from '@/lib/notify'
import { ROLE_LABELS, USER_PAGE, useAdminUsers, useSetRole, type AdminUser, type AppRole } from '@/features/platform-admin/api/users'
import { DemoDialog } from './demo-dialog'

const ROLES: AppRole[] = ['admin', 'content_creator', 'directivo']
const SEARCH_PAUSE_MS = 300

const nameOf = (user: AdminUser) => [user.first_name, user.last_name].filter(Boolean).join(' ') || 'Sin perfil'

export function UsersPanel() {
  const [typed, setTyped] = useState('')
  const [search, setSearch] = useState('')
  const users = useAdminUsers(search)
  const [demoFor, setDemoFor] = useState<AdminUser | null>(null)

  useEffect(() => {
    const timer = setTimeout(() => setSearch(typed), SEARCH_PAUSE_MS)
    return () => clearTimeout(timer)
  }, [typed])

  return (
    <div className="flex flex-col gap-4" data-testid="users-panel">
      <label className="relative block">
        <span className="sr-only">Buscar cuentas</span>
        <Search aria-hidden="true" className="absolute top-3 left-3 size-5 text-ink-muted" />
        <input
          type="search"
          className={`${fieldClass} pl-10`}
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          placeholder="Buscar por correo, nombre o colegio"
        />
      </label>
      {users.isPending ? (
        <Skeleton className="h-40 w-full" />
      ) : users.isError ? (
        <p role="alert" className="text-bad">
          No se pudieron cargar las cuentas.
        </p>
      ) : users.data.length === 0 ? (
        <EmptyState icon={Users} title="Sin resultados" description={search ? 'Ninguna cuenta coincide con la búsqueda.' : 'Aún no hay cuentas.'} />
      ) : (
        <>
          <ul className="flex flex-col gap-2" aria-busy={users.isPlaceholderData} data-testid="user-list">
            {users.data.map((user) => (
              <UserRow key={user.user_id} user={user} onDemo={() => setDemoFor(user)} />
            ))}
          </ul>
          {users.data.length === USER_PAGE ? <p className="text-sm text-ink-muted">Se muestran las {USER_PAGE} cuentas más recientes: busca para encontrar otras.</p> : null}
        </>
      )}
      {demoFor ? <DemoDialog user={demoFor} who={`${nameOf(demoFor)} (${demoFor.email})`} onClose={() => setDemoFor(null)} /> : null}
    </div>
  )
}

function UserRow({ user, onDemo }: { user: AdminUser; onDemo: () => void }) {
  const setRole = useSetRole()
  const name = nameOf(user)
  const toggle = (role: AppRole, granted: boolean) =>
    setRole.mutate(
      { user, role, granted },
      {
        onSuccess: () => notify.success(granted ? 'Rol otorgado' : 'Rol retirado', `${ROLE_LABELS[role]} · ${name}`),
        onError: (error) => notify.error('No se pudo cambiar el rol', isDatabaseError(error) ? databaseErrorMessage(error) : 'Inténtalo de nuevo.'),
      },
    )
  const inDemo = user.demo_total_stars !== null

  return (
    <li className="rounded-card border border-line bg-surface p-4 shadow-card" data-testid="user-row">
      <div className="flex flex-col gap-3">
        <div className="min-w-0">
          <p className="font-semibold text-ink">{name}</p>
          <p className="truncate text-sm text-ink-muted">{user.email}</p>
          <p className="mt-1 text-sm text-ink-muted">
            {user.school_name ?? 'Sin colegio'} · {user.course_count} {user.course_count === 1 ? 'curso' : 'cursos'} · cuenta del {formatDate(user.created_at)}
            {user.last_sign_in_at ? ` · último ingreso ${formatDate(user.last_sign_in_at)}` : ' · nunca ha ingresado'}
          </p>
          {inDemo ? (
            <p className="mt-1 text-sm text-ink" data-testid="user-demo">
              Demo 2025: {user.demo_used_stars} de {user.demo_total_stars} estrellas usadas · hasta {formatDate(user.demo_end_date ?? '')}
              {user.demo_is_active === false ? ' · suspendida' : ''}
            </p>
          ) : null}
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <div role="group" aria-label={`Roles de ${name}`} className="flex flex-wrap gap-2">
            {ROLES.map((role) => {
              const granted = user.roles.includes(role)
              const noSchool = role === 'directivo' && !granted && user.school_rbd === null
              return (
                <button
                  key={role}
                  type="button"
                  aria-pressed={granted}
                  disabled={setRole.isPending || noSchool}
                  title={noSchool ? 'Para ser directivo, la cuenta debe indicar su colegio en el perfil.' : undefined}
                  onClick={() => toggle(role, !granted)}
                  className={cn(
                    'min-h-9 rounded-full border px-3 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-60',
                    granted ? 'border-brand bg-brand-soft text-brand-strong' : 'border-line bg-surface text-ink-muted hover:bg-surface-muted',
                  )}
                >
                  {ROLE_LABELS[role]}
                </button>
              )
            })}
          </div>
          <Button variant="secondary" onClick={onDemo} className="min-h-9">
            <Sparkles aria-hidden="true" className="size-4" /> {inDemo ? 'Editar demo' : 'Agregar a la Demo 2025'}
          </Button>
        </div>
      </div>
    </li>
  )
}
