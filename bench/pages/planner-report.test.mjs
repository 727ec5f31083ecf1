import { test } from 'node:test'
import assert from 'node:assert/strict'
import { percentile, plannerMarkdown, summarizePlanner } from './planner-report.mjs'

test('p95 is the value at the 95th rank', () => {
  const values = Array.from({ length: 20 }, (_, i) => i + 1)
  assert.equal(percentile(values, 95), 19)
  assert.equal(percentile([5], 95), 5)
})

test('each measure against its limit and its peer', () => {
  const summary = summarizePlanner({
    firstText: [300, 2000, 400],
    firstModelText: [900, 1000, 1100],
    autosave: [...Array(19).fill(50), 400],
    read: Array(20).fill(20),
    typingLongTasks: [0, 30, 60],
    inputLongTasks: [0, 0, 0],
  })
  const byName = Object.fromEntries(summary.map((row) => [row.name, row]))
  assert.equal(byName.firstText.value, 400)
  assert.equal(byName.autosave.value, 50)
  assert.equal(byName.autosave.pass, true)
  assert.equal(byName.longTask.value, 60)
  assert.equal(byName.longTask.pass, false)
  assert.equal(byName.longTask.toPeer, null)
  assert.match(plannerMarkdown(summary, { when: 'now', machine: 'test', rounds: 3 }), /longest task .*\| 60 ms \| 50 ms \| 1\.20× .*\*\*no\*\*/)
})
