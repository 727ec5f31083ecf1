// The page-load benchmark's arithmetic and report: medians over rounds, each page's ratio to
// the 1 s limit and to the landing page measured in the same rounds, and the download against
// the 250 KB budget. No browser here, so the unit tests (report.test.mjs) run anywhere.

export const LIMIT_MS = 1000
export const BUDGET_KB = 250

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/**
 * `rounds`: [{ page: { ms, kb } }, …] with `peer` naming the reference page. Each page's
 * ratio to the peer is taken within a round, then the median over rounds. Pages in
 * `onDemand` load a large part after their route (the planner's editor): their download is
 * reported, and the route's own initial download is held to the budget by the build's
 * bundle check instead.
 */
export function summarize(rounds, pages, peer, onDemand = []) {
  return pages.map((page) => {
    const ms = median(rounds.map((round) => round[page].ms))
    const kb = median(rounds.map((round) => round[page].kb))
    const toPeer = median(rounds.map((round) => round[page].ms / round[peer].ms))
    return {
      page,
      ms: Math.round(ms),
      kb: Math.round(kb * 10) / 10,
      toLimit: Math.round((ms / LIMIT_MS) * 100) / 100,
      toPeer: Math.round(toPeer * 100) / 100,
      onDemand: onDemand.includes(page),
      pass: ms <= LIMIT_MS && (onDemand.includes(page) || kb <= BUDGET_KB),
    }
  })
}

export function markdown(summary, { peer, rounds, machine, when }) {
  const lines = [
    '# Page load (Chromium, seeded demo, warm stack)',
    '',
    `${when} · ${machine} · ${rounds} rounds, medians. Interactive = the page's own data drawn after a`,
    `cold-cache load with a signed-in session; download = what the browser fetched (HTML, JS, CSS;`,
    `compressed as sent) before that. Limit ${LIMIT_MS} ms, budget ${BUDGET_KB} KB; the peer is \`${peer}\`, loaded`,
    'the same way in the same rounds.',
    '',
    '| page | interactive | ÷ limit | ÷ peer | download | target met |',
    '|---|---:|---:|---:|---:|:---:|',
    ...summary.map(
      (row) =>
        `| \`${row.page}\` | ${row.ms} ms | ${row.toLimit.toFixed(2)}× | ${row.toPeer.toFixed(2)}× | ${row.kb.toFixed(1)} KB${row.onDemand ? ' ¹' : ''} | ${row.page === peer ? '(peer)' : row.pass ? 'yes' : '**no**'} |`,
    ),
    '',
    ...(summary.some((row) => row.onDemand)
      ? [
          `¹ Includes the rich-text editor, loaded on demand after the route; the route's own initial`,
          `download is held to ${BUDGET_KB} KB by the build (\`scripts/check-bundle-size.mjs\`).`,
          '',
        ]
      : []),
  ]
  return lines.join('\n')
}
