// Summarises the Jest JSON results of scripts/oracle/auth-js.sh as Markdown: a per-file
// table (passed / failed / skipped) and every failing test with the first line of its error.
//
//   node auth-js-summary.mjs <work directory>

import { existsSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const work = process.argv[2]
const rows = []
const failures = []
const totals = { passed: 0, failed: 0, skipped: 0 }

for (const suite of ['cli', 'docker']) {
  const file = join(work, `results-${suite}.json`)
  if (!existsSync(file)) continue
  const results = JSON.parse(readFileSync(file, 'utf8'))
  for (const testFile of results.testResults) {
    const name = relative(join(work, 'pkg/packages/core/auth-js'), testFile.name)
    const count = (status) => testFile.assertionResults.filter((t) => t.status === status).length
    const row = {
      name,
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('pending') + count('skipped') + count('todo') + count('disabled'),
    }
    if (testFile.assertionResults.length === 0 && testFile.status === 'failed') {
      // The file did not load (compile error, missing server): one failure.
      row.failed = 1
      failures.push({ name, test: '(file)', message: (testFile.message || '').split('\n').find((l) => l.trim()) ?? '' })
    }
    for (const t of testFile.assertionResults.filter((t) => t.status === 'failed')) {
      const message = (t.failureMessages[0] || '').split('\n').map((l) => l.trim()).filter(Boolean)
      failures.push({ name, test: t.fullName, message: message.slice(0, 3).join(' ⏎ ').slice(0, 300) })
    }
    totals.passed += row.passed
    totals.failed += row.failed
    totals.skipped += row.skipped
    rows.push(row)
  }
}

rows.sort((a, b) => a.name.localeCompare(b.name))
const lines = []
lines.push(`# auth-js oracle results`)
lines.push('')
lines.push(`supabase-js ${process.env.ORACLE_COMMIT ?? '?'}; gateway ${process.env.ORACLE_GATEWAY ?? '?'}`)
lines.push('')
lines.push('| File | Passed | Failed | Skipped |')
lines.push('|---|---:|---:|---:|')
for (const row of rows) lines.push(`| ${row.name} | ${row.passed} | ${row.failed} | ${row.skipped} |`)
lines.push(`| **Total** | **${totals.passed}** | **${totals.failed}** | **${totals.skipped}** |`)
lines.push('')
if (failures.length) {
  lines.push('## Failures')
  lines.push('')
  for (const f of failures) lines.push(`- ${f.name} — ${f.test}: ${f.message}`)
}
console.log(lines.join('\n'))
