/**
 * The small part of Markdown that announcements and help texts use — paragraphs, line
 * breaks, "- " lists, **bold** and [links](https://…) — turned into React elements (never
 * HTML from the text, so nothing in it can run). Anything else is shown as written.
 */
import { Fragment, type ReactNode } from 'react'

type Block = { kind: 'paragraph'; lines: string[] } | { kind: 'list'; items: string[] }

/** Blank lines separate blocks; a block whose lines all start with "- " is a list. */
export function markdownBlocks(text: string): Block[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((chunk) => chunk.split('\n').map((line) => line.trimEnd()).filter((line) => line.trim() !== ''))
    .filter((lines) => lines.length > 0)
    .map((lines): Block =>
      lines.every((line) => /^\s*[-*] /.test(line))
        ? { kind: 'list', items: lines.map((line) => line.replace(/^\s*[-*] /, '')) }
        : { kind: 'paragraph', lines },
    )
}

const INLINE = /\*\*([^*]+)\*\*|\[([^\]]+)\]\((https?:\/\/[^\s)]+|\/[^\s)]*)\)/g

/** Bold and links within one line; other text as it is. */
export function inline(line: string): ReactNode[] {
  const parts: ReactNode[] = []
  let last = 0
  for (const match of line.matchAll(INLINE)) {
    const at = match.index ?? 0
    if (at > last) parts.push(line.slice(last, at))
    if (match[1] !== undefined) {
      parts.push(<strong key={at}>{match[1]}</strong>)
    } else {
      const href = match[3] ?? ''
      const external = /^https?:/.test(href)
      parts.push(
        <a key={at} href={href} className="font-medium text-brand underline" {...(external ? { target: '_blank', rel: 'noreferrer' } : {})}>
          {match[2]}
        </a>,
      )
    }
    last = at + match[0].length
  }
  if (last < line.length) parts.push(line.slice(last))
  return parts
}

export function MarkdownText({ text, className = '' }: { text: string; className?: string }) {
  return (
    <div className={`flex flex-col gap-2 text-ink ${className}`}>
      {markdownBlocks(text).map((block, index) =>
        block.kind === 'list' ? (
          <ul key={index} className="flex list-disc flex-col gap-1 pl-5">
            {block.items.map((item, itemIndex) => (
              <li key={itemIndex}>{inline(item)}</li>
            ))}
          </ul>
        ) : (
          <p key={index}>
            {block.lines.map((line, lineIndex) => (
              <Fragment key={lineIndex}>
                {lineIndex > 0 ? <br /> : null}
                {inline(line)}
              </Fragment>
            ))}
          </p>
        ),
      )}
    </div>
  )
}
