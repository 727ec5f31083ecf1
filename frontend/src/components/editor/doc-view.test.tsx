import { render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { DocView } from './doc-view'

describe('DocView', () => {
  it('shows the planner\'s nodes and marks as elements', () => {
    const { container } = render(
      <DocView
        doc={{
          type: 'doc',
          content: [
            { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Inicio' }] },
            { type: 'paragraph', content: [{ type: 'text', text: 'MA07 OA 03', marks: [{ type: 'bold' }] }, { type: 'text', text: ' números' }] },
            { type: 'bulletList', content: [{ type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'uno' }] }] }] },
          ],
        }}
      />,
    )
    expect(screen.getByRole('heading', { name: 'Inicio' })).toBeTruthy()
    expect(container.querySelector('strong')?.textContent).toBe('MA07 OA 03')
    expect(screen.getByRole('listitem').textContent).toBe('uno')
  })

  it('never renders markup from text, nor links that are not http(s)', () => {
    const { container } = render(
      <DocView
        doc={{
          type: 'doc',
          content: [
            { type: 'paragraph', content: [{ type: 'text', text: '<img src=x onerror=alert(1)>' }] },
            { type: 'paragraph', content: [{ type: 'text', text: 'clic', marks: [{ type: 'link', attrs: { href: 'javascript:alert(1)' } }] }] },
          ],
        }}
      />,
    )
    expect(container.querySelector('img')).toBeNull()
    expect(container.querySelector('a')).toBeNull()
    expect(container.textContent).toContain('<img src=x onerror=alert(1)>')
  })
})
