/**
 * The signed-in layout: the sidebar (fixed column on wide screens, 16rem or 4.5rem; a
 * slide-in panel of 18rem below 768 px), a top bar with the menu toggle and the
 * tour-restart button, and the page inside an error boundary and a loading fallback.
 */
import * as Dialog from '@radix-ui/react-dialog'
import { Menu, PanelLeftClose, PanelLeftOpen, X } from 'lucide-react'
import { Suspense } from 'react'
import { Outlet, useLocation, useNavigate } from 'react-router'
import { ErrorBoundary } from '@/components/errors/error-boundary'
import { AppSidebar } from './app-sidebar'
import {
  SIDEBAR_WIDTH,
  SIDEBAR_WIDTH_COLLAPSED,
  SIDEBAR_WIDTH_MOBILE,
  SidebarProvider,
  useSidebar,
} from '@/components/layout/sidebar-state'
import { SkeletonBars } from '@/components/ui/skeleton'
import { Tooltip } from '@/components/ui/tooltip'
import { paths } from '@/config/paths'
import { StarNotices } from '@/features/demo-stars'
import { TourProvider, TourRestartButton } from '@/features/tour'

export function AppLayout() {
  return (
    <SidebarProvider>
      <TourProvider>
        <Shell />
      </TourProvider>
      <Suspense fallback={null}>
        <StarNotices />
      </Suspense>
    </SidebarProvider>
  )
}

function Shell() {
  const { open, openMobile, setOpenMobile, isMobile, toggle } = useSidebar()
  const location = useLocation()
  const navigate = useNavigate()
  const expanded = isMobile ? openMobile : open
  const toggleLabel = isMobile ? 'Abrir menú' : open ? 'Contraer menú' : 'Expandir menú'
  const ToggleIcon = isMobile ? Menu : open ? PanelLeftClose : PanelLeftOpen

  return (
    <div className="flex min-h-dvh bg-canvas">
      <a
        href="#contenido"
        className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded-md focus:bg-surface focus:px-3 focus:py-2"
      >
        Saltar al contenido
      </a>
      {isMobile ? null : (
        <aside
          data-testid="sidebar"
          data-state={open ? 'expanded' : 'collapsed'}
          style={{ width: open ? SIDEBAR_WIDTH : SIDEBAR_WIDTH_COLLAPSED }}
          className="sticky top-0 h-dvh shrink-0 print:hidden border-r border-line bg-surface transition-[width] duration-200"
        >
          <AppSidebar collapsed={!open} />
        </aside>
      )}
      <Dialog.Root open={isMobile && openMobile} onOpenChange={setOpenMobile}>
        <Dialog.Portal>
          <Dialog.Overlay className="sidebar-overlay fixed inset-0 z-40 bg-black/40" />
          <Dialog.Content
            data-testid="sidebar-mobile"
            style={{ width: SIDEBAR_WIDTH_MOBILE }}
            className="sidebar-panel fixed inset-y-0 left-0 z-50 max-w-[85vw] bg-surface shadow-card focus:outline-none"
          >
            <Dialog.Title className="sr-only">Menú de navegación</Dialog.Title>
            <Dialog.Description className="sr-only">Secciones de Cielo</Dialog.Description>
            <Dialog.Close
              aria-label="Cerrar menú"
              className="absolute top-3 right-3 z-10 inline-flex size-10 items-center justify-center rounded-lg text-ink-muted hover:bg-surface-muted"
            >
              <X aria-hidden="true" className="size-5" />
            </Dialog.Close>
            <AppSidebar collapsed={false} onNavigate={() => setOpenMobile(false)} />
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>

      <div className="flex min-w-0 flex-1 flex-col">
        <header className="sticky top-0 z-30 print:hidden flex min-h-16 items-center justify-between gap-2 border-b border-line bg-surface/95 px-3 backdrop-blur sm:px-4">
          <Tooltip content={`${toggleLabel} (Ctrl+B)`} side="bottom">
            <button
              type="button"
              onClick={toggle}
              aria-label={toggleLabel}
              aria-expanded={expanded}
              data-testid="sidebar-toggle"
              className="inline-flex size-11 items-center justify-center rounded-lg text-ink-muted hover:bg-surface-muted hover:text-ink focus-visible:outline-2 focus-visible:outline-brand"
            >
              <ToggleIcon aria-hidden="true" className="size-5" />
            </button>
          </Tooltip>
          <TourRestartButton />
        </header>
        <main id="contenido" tabIndex={-1} className="mx-auto w-full max-w-6xl flex-1 px-4 py-6 focus:outline-none sm:px-6">
          <ErrorBoundary resetKey={location.pathname} onGoToDashboard={() => navigate(paths.dashboard)}>
            <Suspense fallback={<SkeletonBars />}>
              <Outlet />
            </Suspense>
          </ErrorBoundary>
        </main>
      </div>
    </div>
  )
}
