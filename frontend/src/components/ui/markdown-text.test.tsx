import { render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { MarkdownText, markdownBlocks } from './markdown-text'

describe('MarkdownText', () => {
  it('splits paragraphs on blank lines and reads "- " blocks as lists', () => {
    expect(markdownBlocks('Hola\nequipo\n\n- uno\n- dos\n\n\nFin')).toEqual([
      { kind: 'paragraph', lines: ['Hola', 'equipo'] },
      { kind: 'list', items: ['uno', 'dos'] },
      { kind: 'paragraph', lines: ['Fin'] },
    ])
  })

  it('shows bold and http(s) or in-app links, and nothing else as markup', () => {
    const { container } = render(
      <MarkdownText text={'Lee **la guía** en [Ayuda](/help) o [el sitio](https://cielo.cl).\n<img src=x onerror=alert(1)> [mal](javascript:alert(1))'} />,
    )
    expect(container.querySelector('strong')?.textContent).toBe('la guía')
    expect(screen.getByRole('link', { name: 'Ayuda' }).getAttribute('href')).toBe('/help')
    const external = screen.getByRole('link', { name: 'el sitio' })
    expect(external.getAttribute('target')).toBe('_blank')
    expect(container.querySelector('img')).toBeNull()
    expect(screen.queryByRole('link', { name: 'mal' })).toBeNull()
    expect(container.textContent).toContain('[mal](javascript:alert(1))')
  })
})
