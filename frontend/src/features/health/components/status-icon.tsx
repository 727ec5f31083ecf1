import type { HealthStatus } from '@/features/health/api/types'

/** Decorative status glyph; the status is always also given as text. */
export function StatusIcon({ status, className = 'size-5' }: { status: HealthStatus; className?: string }) {
  const common = { className, viewBox: '0 0 20 20', 'aria-hidden': true, focusable: false } as const
  if (status === 'ok') {
    return (
      <svg {...common} fill="currentColor">
        <path
          fillRule="evenodd"
          d="M10 18a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm3.86-9.78a.75.75 0 0 0-1.22-.88l-3.4 4.72-1.78-1.78a.75.75 0 1 0-1.06 1.06l2.4 2.4a.75.75 0 0 0 1.14-.09l3.92-5.43Z"
          clipRule="evenodd"
        />
      </svg>
    )
  }
  if (status === 'degraded') {
    return (
      <svg {...common} fill="currentColor">
        <path
          fillRule="evenodd"
          d="M8.48 2.9a1.75 1.75 0 0 1 3.04 0l6.28 10.98A1.75 1.75 0 0 1 16.28 16.5H3.72a1.75 1.75 0 0 1-1.52-2.62L8.48 2.9ZM10 6.5a.75.75 0 0 1 .75.75v3.5a.75.75 0 0 1-1.5 0v-3.5A.75.75 0 0 1 10 6.5Zm0 7.75a1 1 0 1 0 0-2 1 1 0 0 0 0 2Z"
          clipRule="evenodd"
        />
      </svg>
    )
  }
  return (
    <svg {...common} fill="none" className={`${className} animate-spin`}>
      <circle cx="10" cy="10" r="7" stroke="currentColor" strokeOpacity="0.25" strokeWidth="2.5" />
      <path d="M17 10a7 7 0 0 0-7-7" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" />
    </svg>
  )
}

/** Tailwind classes per status (tokens from index.css). */
export const STATUS_TONE: Record<HealthStatus, { text: string; soft: string; line: string; accent: string }> = {
  ok: { text: 'text-ok', soft: 'bg-ok-soft', line: 'border-ok-line', accent: 'border-t-ok' },
  degraded: { text: 'text-bad', soft: 'bg-bad-soft', line: 'border-bad-line', accent: 'border-t-bad' },
  checking: { text: 'text-wait', soft: 'bg-wait-soft', line: 'border-wait-line', accent: 'border-t-wait-line' },
}
