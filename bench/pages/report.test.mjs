import { test } from 'node:test'
import assert from 'node:assert/strict'
import { markdown, median, summarize } from './report.mjs'

test('medians of odd and even counts', () => {
  assert.equal(median([3, 1, 2]), 2)
  assert.equal(median([4, 1, 3, 2]), 2.5)
})

test('ratios are taken within a round, then the median', () => {
  const rounds = [
    { '/': { ms: 100, kb: 200 }, '/dashboard': { ms: 400, kb: 240 } },
    { '/': { ms: 200, kb: 200 }, '/dashboard': { ms: 500, kb: 240 } },
    { '/': { ms: 100, kb: 200 }, '/dashboard': { ms: 1200, kb: 240 } },
  ]
  const [peer, dashboard] = summarize(rounds, ['/', '/dashboard'], '/')
  assert.equal(peer.toPeer, 1)
  assert.equal(dashboard.ms, 500)
  assert.equal(dashboard.toLimit, 0.5)
  assert.equal(dashboard.toPeer, 4) // 4, 2.5, 12 → 4
  assert.equal(dashboard.pass, true)
})

test('a page over the limit or the budget fails', () => {
  const rounds = [{ '/': { ms: 100, kb: 100 }, '/a': { ms: 1100, kb: 100 }, '/b': { ms: 100, kb: 260 } }]
  const summary = summarize(rounds, ['/', '/a', '/b'], '/')
  assert.deepEqual(summary.map((row) => row.pass), [true, false, false])
  assert.match(markdown(summary, { peer: '/', rounds: 1, machine: 'test', when: 'now' }), /\| `\/a` \| 1100 ms \| 1\.10× .*\*\*no\*\*/)
})

test('a page that loads its editor on demand is held to the time only', () => {
  const rounds = [{ '/': { ms: 100, kb: 100 }, '/planner': { ms: 700, kb: 350 }, '/slow': { ms: 1100, kb: 350 } }]
  const summary = summarize(rounds, ['/', '/planner', '/slow'], '/', ['/planner', '/slow'])
  assert.deepEqual(summary.map((row) => row.pass), [true, true, false])
  assert.match(markdown(summary, { peer: '/', rounds: 1, machine: 'test', when: 'now' }), /350\.0 KB ¹ \| yes/)
})
