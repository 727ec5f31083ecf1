/**
 * A rich-text document (the editor's JSON) shown read-only, without loading the editor: the
 * nodes and marks the planner writes (paragraphs, headings, lists, tables, bold, italic,
 * underline, links) as React elements — never as HTML strings. Unknown nodes show their text.
 */
import type { ReactNode } from 'react'

export interface DocNode {
  type?: string
  text?: string
  attrs?: Record<string, unknown>
  marks?: Array<{ type: string; attrs?: Record<string, unknown> }>
  content?: DocNode[]
}

function withMarks(node: DocNode, key: number): ReactNode {
  let out: ReactNode = node.text ?? ''
  for (const mark of node.marks ?? []) {
    if (mark.type === 'bold') out = <strong>{out}</strong>
    else if (mark.type === 'italic') out = <em>{out}</em>
    else if (mark.type === 'underline') out = <u>{out}</u>
    else if (mark.type === 'link' && typeof mark.attrs?.href === 'string' && /^https?:\/\//.test(mark.attrs.href))
      out = (
        <a href={mark.attrs.href} target="_blank" rel="noopener noreferrer" className="text-brand underline">
          {out}
        </a>
      )
  }
  return <span key={key}>{out}</span>
}

function render(node: DocNode, key: number): ReactNode {
  const children = (node.content ?? []).map(render)
  switch (node.type) {
    case 'text':
      return withMarks(node, key)
    case 'paragraph':
      return <p key={key}>{children}</p>
    case 'heading':
      return Number(node.attrs?.level) <= 2 ? <h3 key={key}>{children}</h3> : <h4 key={key}>{children}</h4>
    case 'bulletList':
      return <ul key={key}>{children}</ul>
    case 'orderedList':
      return <ol key={key}>{children}</ol>
    case 'listItem':
      return <li key={key}>{children}</li>
    case 'blockquote':
      return <blockquote key={key}>{children}</blockquote>
    case 'hardBreak':
      return <br key={key} />
    case 'table':
      return (
        <table key={key}>
          <tbody>{children}</tbody>
        </table>
      )
    case 'tableRow':
      return <tr key={key}>{children}</tr>
    case 'tableHeader':
      return <th key={key}>{children}</th>
    case 'tableCell':
      return <td key={key}>{children}</td>
    default:
      return children.length > 0 ? <div key={key}>{children}</div> : null
  }
}

export function DocView({ doc, className }: { doc: unknown; className?: string }) {
  const root = (doc ?? {}) as DocNode
  return <div className={className ?? 'zone-prose'}>{(root.content ?? []).map(render)}</div>
}
