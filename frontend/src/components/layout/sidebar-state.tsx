/**
 * Sidebar state (spec sections 2 and 9): expanded or collapsed on wide screens, kept in the
 * `sidebar_state` cookie for 7 days; a slide-in panel below 768 px; Ctrl/Cmd+B toggles
 * whichever applies.
 */
import { createContext, use, useCallback, useEffect, useMemo, useState, type ReactNode } from 'react'
import { readCookie, writeCookie } from '@/lib/cookies'
import { useMediaQuery } from '@/lib/use-media-query'

export const SIDEBAR_COOKIE = 'sidebar_state'
export const SIDEBAR_COOKIE_MAX_AGE = 60 * 60 * 24 * 7
export const MOBILE_BREAKPOINT = 768
export const SIDEBAR_WIDTH = '16rem'
export const SIDEBAR_WIDTH_MOBILE = '18rem'
export const SIDEBAR_WIDTH_COLLAPSED = '4.5rem'
export const SIDEBAR_SHORTCUT = 'b'

/** The stored state: expanded unless the cookie says `false`. */
export function readSidebarOpen(): boolean {
  return readCookie(SIDEBAR_COOKIE) !== 'false'
}

const mobileQuery = `(max-width: ${MOBILE_BREAKPOINT - 1}px)`

function useIsMobile(): boolean {
  return useMediaQuery(mobileQuery)
}

export interface SidebarContextValue {
  /** Expanded (wide screens). */
  open: boolean
  setOpen: (open: boolean) => void
  /** The slide-in panel (narrow screens). */
  openMobile: boolean
  setOpenMobile: (open: boolean) => void
  isMobile: boolean
  toggle: () => void
}

const SidebarContext = createContext<SidebarContextValue | null>(null)

export function SidebarProvider({ children }: { children: ReactNode }) {
  const isMobile = useIsMobile()
  const [open, setOpenState] = useState(readSidebarOpen)
  const [openMobile, setOpenMobile] = useState(false)

  const setOpen = useCallback((next: boolean) => {
    setOpenState(next)
    writeCookie(SIDEBAR_COOKIE, String(next), SIDEBAR_COOKIE_MAX_AGE)
  }, [])

  const toggle = useCallback(() => {
    if (isMobile) setOpenMobile((value) => !value)
    else setOpen(!open)
  }, [isMobile, open, setOpen])

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() === SIDEBAR_SHORTCUT && (event.metaKey || event.ctrlKey) && !event.altKey) {
        event.preventDefault()
        toggle()
      }
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [toggle])

  // Leaving the narrow layout closes the panel (adjusted while rendering, not in an effect,
  // so no frame shows the panel open on a wide screen).
  const [wasMobile, setWasMobile] = useState(isMobile)
  if (wasMobile !== isMobile) {
    setWasMobile(isMobile)
    if (!isMobile) setOpenMobile(false)
  }

  const value = useMemo(
    () => ({ open, setOpen, openMobile, setOpenMobile, isMobile, toggle }),
    [open, setOpen, openMobile, isMobile, toggle],
  )
  return <SidebarContext value={value}>{children}</SidebarContext>
}

export function useSidebar(): SidebarContextValue {
  const value = use(SidebarContext)
  if (!value) throw new Error('useSidebar must be used within a SidebarProvider')
  return value
}
