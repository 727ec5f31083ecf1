import { fireEvent, render, screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { ConfigError } from '@/config/env'
import { ConfigErrorScreen } from './config-error-screen'

describe('ConfigErrorScreen', () => {
  it('explains the problem in Spanish and offers a retry', () => {
    const onRetry = vi.fn()
    render(<ConfigErrorScreen error={new ConfigError('El servidor respondió HTTP 404 al pedir /config.json.')} onRetry={onRetry} />)
    expect(screen.getByRole('heading', { level: 1, name: 'No se pudo cargar la configuración' })).toBeInTheDocument()
    expect(screen.getByRole('alert')).toHaveTextContent('HTTP 404')
    fireEvent.click(screen.getByRole('button', { name: 'Reintentar' }))
    expect(onRetry).toHaveBeenCalledOnce()
  })
})
