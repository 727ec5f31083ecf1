/**
 * The sidebar's content (spec section 2), built from `config/nav.ts`: school header,
 * navigation groups (admin and content-creator items by role, the alert badge for admins),
 * the Estrellas Cielo widget for demo users, the profile link and 'Cerrar sesión'.
 */
import { LogOut } from 'lucide-react'
import { NavLink } from 'react-router'
import { visibleNavGroups, type NavItem } from '@/config/nav'
import { paths } from '@/config/paths'
import { useUnresolvedAlertCount } from '@/features/admin-alerts'
import { StarsWidget } from '@/features/demo-stars'
import { displayFirstName, initialsOf, useProfile, useSchoolName } from '@/features/profile'
import { useIsAdmin, useIsContentCreator } from '@/features/roles'
import { useAuth } from '@/lib/auth/auth-provider'
import { cn } from '@/lib/cn'
import { CieloLogo } from '@/components/cielo-logo'
import { Tooltip } from '@/components/ui/tooltip'

export interface AppSidebarProps {
  collapsed: boolean
  /** Called after a link is followed (closes the mobile panel). */
  onNavigate?: () => void
}

const itemClass = (collapsed: boolean) => ({ isActive }: { isActive: boolean }) =>
  cn(
    'flex min-h-10 items-center gap-3 rounded-lg px-3 text-sm font-medium transition-colors',
    'focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-brand',
    collapsed && 'justify-center px-0',
    isActive ? 'bg-brand-soft text-brand-strong' : 'text-ink-muted hover:bg-surface-muted hover:text-ink',
  )

/** The menu items the guided tours point at. */
const NAV_TOUR_NAMES: Partial<Record<string, string>> = {
  [paths.schedule]: 'nav-schedule',
  [paths.drafts]: 'nav-drafts',
  [paths.sequential]: 'nav-sequential',
}

export function AppSidebar({ collapsed, onNavigate }: AppSidebarProps) {
  const { user, signOut } = useAuth()
  const isAdmin = useIsAdmin().data === true
  const isContentCreator = useIsContentCreator().data === true
  const alertCount = useUnresolvedAlertCount(isAdmin).data ?? 0
  const profile = useProfile().data
  const schoolName = useSchoolName()
  const groups = visibleNavGroups({ isAdmin, isContentCreator })
  const firstName = displayFirstName(profile, user?.email)

  const renderItem = (item: NavItem) => {
    const showBadge = item.alertBadge && isAdmin && alertCount > 0
    const badgeLabel = `${alertCount} ${alertCount === 1 ? 'alerta sin resolver' : 'alertas sin resolver'}`
    return (
      <li key={item.to}>
        <Tooltip content={item.label} side="right" disabled={!collapsed}>
          <NavLink
            to={item.to}
            end
            className={itemClass(collapsed)}
            onClick={onNavigate}
            data-tour={NAV_TOUR_NAMES[item.to]}
            aria-label={collapsed ? (showBadge ? `${item.label}, ${badgeLabel}` : item.label) : undefined}
          >
            <span className="relative inline-flex">
              <item.icon aria-hidden="true" className="size-5 shrink-0" />
              {showBadge && collapsed ? (
                <span aria-hidden="true" className="absolute -top-1 -right-1.5 size-2.5 rounded-full bg-bad" />
              ) : null}
            </span>
            {collapsed ? null : <span className="flex-1 truncate">{item.label}</span>}
            {showBadge && !collapsed ? (
              <span
                data-testid="admin-alert-badge"
                className="inline-flex min-w-6 items-center justify-center rounded-full bg-bad px-1.5 text-xs font-semibold text-canvas"
              >
                {alertCount}
                <span className="sr-only"> {alertCount === 1 ? 'alerta sin resolver' : 'alertas sin resolver'}</span>
              </span>
            ) : null}
          </NavLink>
        </Tooltip>
      </li>
    )
  }

  return (
    <div className="flex h-full flex-col gap-2 overflow-hidden">
      <div className={cn('flex min-h-16 items-center gap-2 border-b border-line px-4', collapsed && 'justify-center px-2')}>
        {collapsed ? (
          <span className="sr-only" data-testid="sidebar-school">{schoolName}</span>
        ) : (
          <div className="flex min-w-0 flex-col">
            <CieloLogo />
            <span className="truncate text-xs text-ink-muted" data-testid="sidebar-school" title={schoolName}>
              {schoolName}
            </span>
          </div>
        )}
        {collapsed ? <CieloMark /> : null}
      </div>

      <nav aria-label="Principal" className="flex-1 overflow-y-auto px-3 py-2" data-tour="sidebar-nav">
        {groups.map((group) => (
          <section key={group.label} aria-labelledby={`nav-group-${group.label}`} className="mb-4">
            <h2
              id={`nav-group-${group.label}`}
              className={cn('mb-1 px-3 text-xs font-semibold tracking-wide text-ink-muted uppercase', collapsed && 'sr-only')}
            >
              {group.label}
            </h2>
            <ul className="flex flex-col gap-1">{group.items.map(renderItem)}</ul>
          </section>
        ))}
      </nav>

      <div className="flex flex-col gap-2 border-t border-line p-3">
        <StarsWidget collapsed={collapsed} />
        <Tooltip content="Mi perfil" side="right" disabled={!collapsed}>
          <NavLink
            to={paths.profile}
            end
            onClick={onNavigate}
            className={itemClass(collapsed)}
            data-testid="sidebar-profile"
            data-tour="sidebar-profile"
            aria-label={collapsed ? `Mi perfil: ${firstName}` : undefined}
          >
            <span
              aria-hidden="true"
              className="inline-flex size-8 shrink-0 items-center justify-center rounded-full bg-brand text-xs font-semibold text-brand-ink"
            >
              {initialsOf(profile, user?.email)}
            </span>
            {collapsed ? null : <span className="truncate">{firstName}</span>}
          </NavLink>
        </Tooltip>
        <Tooltip content="Cerrar sesión" side="right" disabled={!collapsed}>
          <button
            type="button"
            onClick={() => void signOut()}
            className={itemClass(collapsed)({ isActive: false })}
            aria-label={collapsed ? 'Cerrar sesión' : undefined}
          >
            <LogOut aria-hidden="true" className="size-5 shrink-0" />
            {collapsed ? null : <span>Cerrar sesión</span>}
          </button>
        </Tooltip>
      </div>
    </div>
  )
}

function CieloMark() {
  return (
    <svg viewBox="0 0 32 32" className="size-8 shrink-0" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill="#2563eb" />
      <path d="M10 21.5a4.5 4.5 0 0 1 .6-8.96A6 6 0 0 1 22 14a3.75 3.75 0 0 1 0 7.5H10z" fill="#fff" />
    </svg>
  )
}
