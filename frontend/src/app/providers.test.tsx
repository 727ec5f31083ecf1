import { screen, waitFor } from '@testing-library/react'
import { act } from 'react'
import { describe, expect, it } from 'vitest'
import { TOOLTIP_DELAY_MS, TOOLTIP_SKIP_DELAY_MS } from '@/components/ui/tooltip'
import { ERROR_LOG_KEY } from '@/lib/logger'
import { installGlobalErrorHandlers, reportPageLoad, SLOW_PAGE_LOAD_MS } from '@/lib/monitoring'
import { notify, SECURITY_TOAST_DURATION, TOAST_DURATION } from '@/lib/notify'
import { createQueryClient, QUERY_DEFAULTS } from '@/lib/query-client'
import { renderApp } from '@/test/render-app'

describe('app-wide settings', () => {
  it('query defaults: 5 min stale, 10 min cache, 1 retry, no refetch on focus', () => {
    expect(createQueryClient().getDefaultOptions().queries).toMatchObject({
      staleTime: 300_000,
      gcTime: 600_000,
      retry: 1,
      refetchOnWindowFocus: false,
    })
    expect(QUERY_DEFAULTS.retry).toBe(1)
  })

  it('toast and tooltip timings', () => {
    expect(TOAST_DURATION).toEqual({ success: 4000, error: 6000, warning: 5000, info: 4000 })
    expect(SECURITY_TOAST_DURATION).toEqual({ high: 10_000, medium: 7000, low: 5000 })
    expect([TOOLTIP_DELAY_MS, TOOLTIP_SKIP_DELAY_MS]).toEqual([700, 300])
  })

  it('toasts sit bottom-right in a region labelled Notifications (Alt+T)', async () => {
    renderApp({ path: '/terminos' })
    await screen.findByRole('heading', { level: 1, name: 'Términos y condiciones' })
    act(() => {
      notify.network('guardar la planificación', () => {})
    })
    const region = await screen.findByRole('region', { name: /Notifications alt\+T/i })
    await waitFor(() => expect(region.querySelector('[data-sonner-toaster]')).not.toBeNull())
    const toaster = region.querySelector('[data-sonner-toaster]')
    expect(toaster).toHaveAttribute('data-x-position', 'right')
    expect(toaster).toHaveAttribute('data-y-position', 'bottom')
    expect(await screen.findByText('Error de Conexión')).toBeInTheDocument()
    expect(screen.getByText('No se pudo guardar la planificación. Verifica tu conexión a internet.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Reintentar' })).toBeInTheDocument()
  })

  it("uncaught errors are logged and shown as 'Error inesperado'", async () => {
    renderApp({ path: '/terminos' })
    await screen.findByRole('heading', { level: 1, name: 'Términos y condiciones' })
    const uninstall = installGlobalErrorHandlers()
    try {
      act(() => {
        window.dispatchEvent(new ErrorEvent('error', { message: 'boom', error: new Error('boom') }))
      })
      expect(await screen.findByText('Error inesperado')).toBeInTheDocument()
      expect(screen.getByText('Ha ocurrido un error. El equipo técnico ha sido notificado.')).toBeInTheDocument()
      expect(JSON.parse(localStorage.getItem(ERROR_LOG_KEY) ?? '[]')).toEqual([
        expect.objectContaining({ message: 'Error no controlado', level: 'error' }),
      ])
    } finally {
      uninstall()
    }
  })

  it('page loads over 3000 ms are logged', () => {
    expect(SLOW_PAGE_LOAD_MS).toBe(3000)
    expect(reportPageLoad({ duration: 2999, name: 'http://localhost/dashboard' })).toBe(false)
    expect(reportPageLoad({ duration: 3500, name: 'http://localhost/dashboard' })).toBe(true)
  })

  it('lang is es-CL', async () => {
    const html = await import('../../index.html?raw')
    expect(html.default).toContain('<html lang="es-CL">')
  })
})
