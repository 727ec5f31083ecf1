// The planner benchmark's arithmetic and report (opening a plan is in the page benchmark): each measure's median (or p95) over its
// samples, its ratio to the limit and to a peer measured the same way in the same run.
// No browser here, so the unit tests (planner-report.test.mjs) run anywhere.

import { median } from './report.mjs'

/** The targets, in ms. */
export const LIMITS = {
  firstText: 1500, // first generated text visible after "Generar con IA"
  autosave: 300, // an autosave's round trip, p95
  longTask: 50, // the longest task while typing in a 5,000-word plan
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.ceil((p / 100) * sorted.length) - 1
  return sorted[Math.min(Math.max(rank, 0), sorted.length - 1)]
}

/**
 * One row per measure: `value` (median or p95 of its samples) and the same statistic of its
 * peer's samples; the target is met when the value is within the limit.
 */
export function summarizePlanner(samples) {
  const row = (name, label, stat, values, peerLabel, peerValues) => {
    const value = stat === 'p95' ? percentile(values, 95) : stat === 'max' ? Math.max(0, ...values) : median(values)
    const peer = stat === 'p95' ? percentile(peerValues, 95) : stat === 'max' ? Math.max(0, ...peerValues) : median(peerValues)
    return {
      name,
      label,
      stat,
      value: Math.round(value),
      limit: LIMITS[name],
      toLimit: Math.round((value / LIMITS[name]) * 100) / 100,
      peerLabel,
      peer: Math.round(peer),
      toPeer: peer > 0 ? Math.round((value / peer) * 100) / 100 : null,
      samples: values.length,
      pass: value <= LIMITS[name],
    }
  }
  return [
    row('firstText', 'first generated text after «Generar con IA»', 'median', samples.firstText, 'first text written by the model', samples.firstModelText),
    row('autosave', 'autosave round trip (PATCH of a zone)', 'p95', samples.autosave, 'read of the same zone (GET)', samples.read),
    row('longTask', 'longest task while typing, 5,000-word plan', 'max', samples.typingLongTasks, 'typing in a plain input, same page', samples.inputLongTasks),
  ]
}

export function plannerMarkdown(summary, { when, machine, rounds }) {
  const ratio = (value) => (value === null ? '—' : `${value.toFixed(2)}×`)
  return [
    '# Planner (Chromium, seeded demo, warm stack)',
    '',
    `${when} · ${machine} · ${rounds} rounds. Generation with the tests' model (SmolLM2-135M run by`,
    'llama.cpp in the gateway); the skeleton of zones is the first text shown, the model\'s text',
    'follows. Long tasks: the Long Tasks API, checked each round to report a task made on purpose',
    '(none recorded while typing counts as 0 ms).',
    '',
    '| measure | statistic | value | limit | ÷ limit | peer | peer value | ÷ peer | target met |',
    '|---|---|---:|---:|---:|---|---:|---:|:---:|',
    ...summary.map(
      (row) =>
        `| ${row.label} | ${row.stat} of ${row.samples} | ${row.value} ms | ${row.limit} ms | ${row.toLimit.toFixed(2)}× | ${row.peerLabel} | ${row.peer} ms | ${ratio(row.toPeer)} | ${row.pass ? 'yes' : '**no**'} |`,
    ),
    '',
  ].join('\n')
}
