// Fails the build when a route's initial download is over budget: for every page chunk,
// the entry with its static imports and CSS, the layout chunks of the pages inside the
// sidebar layout (`src/app/routes/app/`; public pages and the editors without the sidebar,
// `routes/public/` and `routes/focus/`, are outside it) and the page's chunk with its own
// imports, gzipped.
// Reads Vite's manifest (dist/.vite/manifest.json).
//   node scripts/check-bundle-size.mjs [distDir]   (BUNDLE_BUDGET_KB overrides 250)

import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { gzipSync } from 'node:zlib'

const dist = resolve(process.argv[2] ?? 'dist')
const budgetKb = Number(process.env.BUNDLE_BUDGET_KB ?? 250)
const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'))

const gzipped = new Map()
function gzipKb(file) {
  if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(join(dist, file)), { level: 9 }).length / 1024)
  return gzipped.get(file)
}

/** Files a chunk needs before it runs: itself, its static imports, their CSS. */
function closure(key, files = new Set()) {
  const chunk = manifest[key]
  if (!chunk || files.has(chunk.file)) return files
  files.add(chunk.file)
  for (const css of chunk.css ?? []) files.add(css)
  for (const imported of chunk.imports ?? []) closure(imported, files)
  return files
}

const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry)
if (!entryKey) throw new Error('no entry chunk in the Vite manifest')
const entryFiles = closure(entryKey)
const total = (files) => [...files].reduce((sum, file) => sum + gzipKb(file), 0)

const lazyChunks = [...new Set(manifest[entryKey].dynamicImports ?? [])]
const layouts = lazyChunks.filter((key) => key.includes('/layouts/'))
const pages = lazyChunks.filter((key) => !layouts.includes(key))
const rows = [{ route: '(entry only)', kb: total(entryFiles) }]
for (const key of pages) {
  const files = new Set(entryFiles)
  if (key.includes('/routes/app/')) for (const layout of layouts) closure(layout, files)
  closure(key, files)
  rows.push({ route: key, kb: total(files) })
}
rows.sort((a, b) => b.kb - a.kb)

const worst = rows[0]
console.log(`Initial download per route (gzip), budget ${budgetKb} KB:`)
for (const { route, kb } of rows.slice(0, 5)) console.log(`  ${kb.toFixed(1).padStart(7)} KB  ${route}`)
if (worst.kb > budgetKb) {
  console.error(`Bundle budget exceeded: ${worst.route} needs ${worst.kb.toFixed(1)} KB gzipped (> ${budgetKb} KB).`)
  process.exit(1)
}
console.log(`Largest initial route: ${worst.kb.toFixed(1)} KB gzipped (budget ${budgetKb} KB).`)
