/** Cielo brand mark (decorative) plus the wordmark. */
export function CieloLogo() {
  return (
    <span className="inline-flex items-center gap-2 font-semibold tracking-tight text-ink">
      <svg viewBox="0 0 32 32" className="size-8 shrink-0" aria-hidden="true" focusable="false">
        <defs>
          <linearGradient id="cielo-logo-sky" x1="0" y1="0" x2="0" y2="1">
            <stop offset="0" stopColor="#38bdf8" />
            <stop offset="1" stopColor="#2563eb" />
          </linearGradient>
        </defs>
        <rect width="32" height="32" rx="8" fill="url(#cielo-logo-sky)" />
        <path d="M10 21.5a4.5 4.5 0 0 1 .6-8.96A6 6 0 0 1 22 14a3.75 3.75 0 0 1 0 7.5H10z" fill="#fff" />
      </svg>
      <span className="text-lg">Cielo</span>
    </span>
  )
}
