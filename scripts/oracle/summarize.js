#!/usr/bin/env node
// Turn Jest's --json output into a per-file table (stdout) and a markdown report.
// usage: node summarize.js results.json results.md  (metadata via env: ORACLE_*)
// Called by scripts/oracle/postgrest-js.sh.
'use strict'
const fs = require('fs')
const path = require('path')

const [, , jsonPath, mdPath] = process.argv
const r = JSON.parse(fs.readFileSync(jsonPath, 'utf8'))
const pkgRoot = process.env.ORACLE_PKG_DIR || ''

const rows = r.testResults
  .map((t) => {
    const a = t.assertionResults || []
    const count = (s) => a.filter((x) => x.status === s).length
    const passed = count('passed')
    const failed = count('failed')
    const other = a.length - passed - failed // pending / todo / skipped
    // A suite that failed to run (compile error, crash) has no assertion results.
    const suiteError = t.status === 'failed' && a.length === 0
    return {
      file: pkgRoot ? path.relative(pkgRoot, t.name) : path.basename(t.name),
      passed,
      failed,
      skipped: other,
      total: a.length,
      note: suiteError ? 'suite failed to run: ' + firstLine(t.message) : '',
    }
  })
  .sort((x, y) => x.file.localeCompare(y.file))

function firstLine(msg) {
  return String(msg || '')
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^●/.test(l))[0] || ''
}

const tot = rows.reduce(
  (s, x) => ({ passed: s.passed + x.passed, failed: s.failed + x.failed, skipped: s.skipped + x.skipped, total: s.total + x.total }),
  { passed: 0, failed: 0, skipped: 0, total: 0 }
)

// ---- console table
const w = Math.max(5, ...rows.map((x) => x.file.length))
const line = (f, p, fl, t, n = '') => `${f.padEnd(w)}  ${String(p).padStart(6)}  ${String(fl).padStart(6)}  ${String(t).padStart(6)}${n ? '  ' + n : ''}`
console.log(line('file', 'passed', 'failed', 'total'))
console.log('-'.repeat(w + 24))
for (const x of rows) console.log(line(x.file, x.passed, x.failed, x.total, x.note))
console.log('-'.repeat(w + 24))
console.log(line('TOTAL', tot.passed, tot.failed, tot.total))
if (tot.skipped) console.log(`(${tot.skipped} skipped/todo included in total)`)
console.log(`${tot.passed} passed, ${tot.failed} failed`)

// ---- failure reasons. For snapshot/equality diffs the interesting part is what the gateway
// answered (the "+ Received" side): summarize its status / code / message. Grouped by that.
function strip(msg) {
  return String(msg || '').replace(/\u001b\[[0-9;]*m/g, '')
}
function side(lines, sign) {
  // Top-level "status" sits at indent 2 in the snapshot, error.code / error.message at 4.
  const pick = (k, indent) => {
    const re = new RegExp(`^[${sign}] {${indent - 1}}"${k}": (.*?),?$`)
    const l = lines.find((x) => re.test(x))
    return l ? l.match(re)[1] : null
  }
  const parts = []
  for (const [k, ind] of [['status', 4], ['code', 6], ['message', 6]]) {
    const v = pick(k, ind)
    if (v !== null) parts.push(`${k}=${v}`)
  }
  return parts.join(' ')
}
let lastWant = ''
function reason(msg) {
  lastWant = ''
  const text = strip(msg)
  const lines = text.split('\n')
  const first = (lines[0] || '').trim()
  let s
  if (/^ZodError/.test(first)) {
    const m = text.match(/"message": "([^"]*)"/)
    s = `ZodError (response shape): ${m ? m[1] : first}`
  } else if (/Snapshot|toEqual|toStrictEqual|toMatchObject/.test(first) && lines.some((l) => /^[-+] /.test(l))) {
    const got = side(lines, '+')
    const want = side(lines, '-')
    const diff = lines.find((l) => /^[-+] /.test(l) && !/^[-+] (Snapshot|Received|Expected)\s/.test(l))
    s = `${first.replace(/^Error: /, '')}: got {${got || (diff || '').trim()}}`
    lastWant = want
  } else {
    const exp = lines.find((l) => /^\s*Expected/.test(l))
    const rec = lines.find((l) => /^\s*Received/.test(l))
    s = [first.replace(/^Error: /, ''), exp && exp.trim(), rec && rec.trim()].filter(Boolean).join(' ')
  }
  return s.replace(/\s+/g, ' ').slice(0, 300)
}
const reasons = new Map()
for (const t of r.testResults) {
  for (const a of t.assertionResults || []) {
    if (a.status !== 'failed') continue
    const k = reason((a.failureMessages || [])[0])
    const e = reasons.get(k) || { n: 0, example: `${path.basename(t.name)} › ${a.fullName}${lastWant ? ` (wanted {${lastWant}})` : ''}` }
    e.n++
    reasons.set(k, e)
  }
  if (t.status === 'failed' && !(t.assertionResults || []).length) {
    const k = 'suite failed to run: ' + firstLine(t.message)
    reasons.set(k, { n: 1, example: path.basename(t.name) })
  }
}
const top = [...reasons.entries()].sort((a, b) => b[1].n - a[1].n)

// ---- markdown
const env = process.env
const md = []
md.push('# postgrest-js oracle results')
md.push('')
md.push(`- Date: ${env.ORACLE_DATE || new Date().toISOString()}`)
md.push(`- supabase-js commit: ${env.ORACLE_COMMIT || '?'}`)
md.push(`- postgrest-js version: ${env.ORACLE_PKG_VERSION || '?'}`)
md.push(`- Gateway: ${env.ORACLE_GATEWAY || '?'}`)
md.push(`- Node: ${env.ORACLE_NODE || process.version}; Jest ${env.ORACLE_JEST || '?'}`)
md.push(`- Fixture: ${env.ORACLE_FIXTURE || '?'}`)
md.push(`- Excluded: ${env.ORACLE_EXCLUDED || 'none'}`)
md.push('')
md.push('| file | passed | failed | total |')
md.push('|---|---:|---:|---:|')
for (const x of rows) md.push(`| ${x.file}${x.note ? ' (' + x.note.replace(/\|/g, '\\|') + ')' : ''} | ${x.passed} | ${x.failed} | ${x.total} |`)
md.push(`| **total** | **${tot.passed}** | **${tot.failed}** | **${tot.total}** |`)
md.push('')
md.push(`${tot.passed} passed, ${tot.failed} failed${tot.skipped ? `, ${tot.skipped} skipped` : ''}`)
md.push('')
md.push('## Most frequent failure reasons')
md.push('')
md.push('| # | count | reason (first line of the failure) | example |')
md.push('|---:|---:|---|---|')
top.slice(0, 20).forEach(([k, v], i) =>
  md.push(`| ${i + 1} | ${v.n} | ${k.replace(/\|/g, '\\|').replace(/`/g, "'")} | ${v.example.replace(/\|/g, '\\|')} |`)
)
md.push('')
fs.writeFileSync(mdPath, md.join('\n'))
