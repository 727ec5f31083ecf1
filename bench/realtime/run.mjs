// Runs the realtime benchmark: one gateway (CIELO_BIN) on a private embedded cluster and the
// Node `ws` peer (peer.mjs), each scenario of load.mjs in a fresh process, broadcast in
// interleaved rounds against both; writes bench/results/realtime-latest.{json,md}.
//
// Environment: CIELO_BIN (required), BENCH_ROUNDS (3), BENCH_RESULTS_DIR (bench/results),
// BENCH_SCALE (1; e.g. 0.1 for a quick check of the harness: fewer clients, shorter runs).

import { execFileSync, spawn } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'

const here = dirname(fileURLToPath(import.meta.url))
const resultsDir = process.env.BENCH_RESULTS_DIR ?? join(here, '../results')
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const scale = Number(process.env.BENCH_SCALE ?? 1)
const n = (count) => Math.max(1, Math.round(count * scale))
const cielo = process.env.CIELO_BIN
if (!cielo) throw new Error('CIELO_BIN is not set')
const JWT_SECRET = 'bench-realtime-secret-at-least-32-characters'
const log = (message) => console.error(`[bench-realtime] ${message}`)

function freePort() {
  return new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

function signJwt(claims) {
  const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const body = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`
  return `${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`
}

/** Starts a process in its own session and waits for `ready` in its output. */
function start(command, args, env, ready) {
  const child = spawn(command, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let output = ''
    const onData = (chunk) => {
      output += chunk
      if (output.includes(ready)) resolve(child)
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('exit', (code) => reject(new Error(`${command} exited with ${code}:\n${output}`)))
  })
}

/** The machine's busy and total CPU time so far (/proc/stat, in ticks). */
function cpuTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/)
  const ticks = fields.map(Number)
  const total = ticks.reduce((sum, tick) => sum + tick, 0)
  return { busy: total - ticks[3] - (ticks[4] ?? 0), total }
}

/** Waits (at most a minute) until the machine is nearly idle: a server still draining the
 * backlog of a flat-out round would otherwise slow the next measurement. */
function settle() {
  for (let waited = 0; waited < 120; waited += 1) {
    const before = cpuTicks()
    execFileSync('sleep', ['0.5'])
    const after = cpuTicks()
    if ((after.busy - before.busy) / Math.max(1, after.total - before.total) < 0.1) return
  }
  log('the machine did not settle within a minute; measuring anyway')
}

function load(scenario, options) {
  settle()
  const output = execFileSync(process.execPath, [join(here, 'load.mjs'), scenario, JSON.stringify(options)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  })
  const result = JSON.parse(output.trim().split('\n').at(-1))
  log(JSON.stringify(result))
  return result
}

const median = (values) => {
  const sorted = values.filter((value) => value !== null && value !== undefined).sort((a, b) => a - b)
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : null
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'cielo-realtime-bench-'))
  const apiPort = await freePort()
  const dbPort = await freePort()
  const peerPort = await freePort()
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? '/root',
    DATA_DIR: join(work, 'data'),
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    DB_PORT: String(dbPort),
    JWT_SECRET,
    SEED_DEMO: 'false',
    RUST_LOG: 'warn',
    // One sender at 150 messages a second, thousands of joins: Supabase's per-project
    // limits are raised for benchmarks the same way.
    REALTIME_MAX_EVENTS_PER_SECOND: '100000',
    REALTIME_MAX_JOINS_PER_SECOND: '100000',
  }
  log('starting the gateway and the peer')
  const gateway = await start(cielo, [], env, 'Secret key:')
  const peer = await start(process.execPath, [join(here, 'peer.mjs'), String(peerPort)], { PATH: process.env.PATH }, 'listening')
  const stop = () => {
    for (const child of [gateway, peer]) {
      try {
        process.kill(-child.pid, 'SIGTERM')
      } catch {}
    }
  }
  try {
    const status = Object.fromEntries(
      execFileSync(cielo, ['status', '-o', 'env'], { env, cwd: work, encoding: 'utf8' })
        .split('\n')
        .map((line) => /^([A-Z_]+)="(.*)"$/.exec(line))
        .filter(Boolean)
        .map((match) => [match[1], match[2]]),
    )
    const anon = status.ANON_KEY
    const gatewayUrl = `ws://127.0.0.1:${apiPort}/realtime/v1/websocket?apikey=${anon}&vsn=2.0.0`
    const peerUrl = `ws://127.0.0.1:${peerPort}/?vsn=2.0.0`
    const db = new pg.Client({ connectionString: status.DB_URL })
    await db.connect()
    await db.query(`
      CREATE TABLE public.bench_changes (id bigserial PRIMARY KEY, owner uuid, sent_at float8 NOT NULL);
      ALTER TABLE public.bench_changes ENABLE ROW LEVEL SECURITY;
      CREATE POLICY bench_read ON public.bench_changes FOR SELECT TO authenticated USING (true);
      GRANT SELECT ON public.bench_changes TO authenticated;
      ALTER PUBLICATION supabase_realtime ADD TABLE public.bench_changes;`)
    await db.end()
    const exp = Math.floor(Date.now() / 1000) + 3600
    const sameUser = [signJwt({ role: 'authenticated', sub: '00000000-0000-4000-8000-000000000001', exp })]
    const distinctUsers = Array.from({ length: 100 }, (_, i) =>
      signJwt({ role: 'authenticated', sub: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`, exp }),
    )

    const broadcastRounds = []
    for (let round = 0; round < rounds; round += 1) {
      const paced = { clients: n(1000), rate: 150, seconds: n(10) }
      const flatOut = { clients: n(1000), rate: 1000, seconds: n(5) }
      const ours = load('broadcast', { url: gatewayUrl, ...paced })
      const theirs = load('broadcast', { url: peerUrl, ...paced })
      const oursMax = load('broadcast', { url: gatewayUrl, ...flatOut })
      const theirsMax = load('broadcast', { url: peerUrl, ...flatOut })
      broadcastRounds.push({ ours, theirs, oursMax, theirsMax, ratio: oursMax.deliveries_per_s / theirsMax.deliveries_per_s })
    }
    const idle = load('idle', { url: gatewayUrl, clients: n(10_000), pid: gateway.pid })
    const joins = load('joins', { url: gatewayUrl, clients: n(4000), perSocket: 20 })
    const presence = load('presence', { url: gatewayUrl, clients: n(1000) })
    const changes = load('changes', { url: gatewayUrl, clients: n(100), rate: 1000, seconds: n(10), db: status.DB_URL, tokens: sameUser })
    const changesRls = load('changes', { url: gatewayUrl, clients: n(100), rate: 500, seconds: n(10), db: status.DB_URL, tokens: distinctUsers })

    const results = {
      date: new Date().toISOString(),
      rounds,
      broadcast: {
        paced_deliveries_per_s: median(broadcastRounds.map((r) => r.ours.deliveries_per_s)),
        paced_p99_ms: median(broadcastRounds.map((r) => r.ours.p99_ms)),
        paced_lost: Math.max(...broadcastRounds.map((r) => r.ours.lost)),
        peer_paced_p99_ms: median(broadcastRounds.map((r) => r.theirs.p99_ms)),
        max_deliveries_per_s: median(broadcastRounds.map((r) => r.oursMax.deliveries_per_s)),
        peer_max_deliveries_per_s: median(broadcastRounds.map((r) => r.theirsMax.deliveries_per_s)),
        ratio_to_peer: median(broadcastRounds.map((r) => r.ratio)),
        rounds: broadcastRounds,
      },
      idle,
      joins,
      presence,
      changes,
      changes_rls_distinct_claims: changesRls,
    }
    const targets = [
      ['broadcast 1 → 1,000, 150 msg/s: deliveries/s', results.broadcast.paced_deliveries_per_s, '≥ 150,000 (all offered, within 2 %)', results.broadcast.paced_deliveries_per_s >= 150_000 * 0.98],
      ['broadcast p99 send→receive (ms)', results.broadcast.paced_p99_ms, '≤ 50', results.broadcast.paced_p99_ms <= 50],
      ['broadcast max deliveries/s vs the Node ws peer', Math.round(results.broadcast.ratio_to_peer * 100) / 100, '≥ 2×', results.broadcast.ratio_to_peer >= 2],
      ['idle joined sockets: RSS per socket (KB)', idle.kb_per_socket, '≤ 30', idle.kb_per_socket <= 30],
      ['joins/s', joins.joins_per_s, '≥ 2,000', joins.joins_per_s >= 2000 && joins.ok === joins.joins],
      ['1,000 presence clients converge (s)', presence.converge_s, '≤ 2', presence.converge_s !== null && presence.converge_s <= 2],
      ['postgres_changes 1,000 inserts/s → 100 subscribers: p99 commit→client (ms)', changes.p99_ms, '≤ 100, none lost', changes.p99_ms <= 100 && changes.lost === 0 && changes.inserts_per_s >= 950],
      ['postgres_changes with RLS per distinct claims (100), 500 inserts/s: p99 (ms)', changesRls.p99_ms, '≤ 100, none lost', changesRls.p99_ms <= 100 && changesRls.lost === 0 && changesRls.inserts_per_s >= 475],
    ]
    results.targets = targets.map(([what, value, target, met]) => ({ what, value, target, met }))
    writeFileSync(join(resultsDir, 'realtime-latest.json'), `${JSON.stringify(results, null, 2)}\n`)
    const lines = [
      '# realtime/v1 benchmark',
      '',
      `${results.date}, ${rounds} rounds of broadcast against the Node \`ws\` peer (medians); one run of each other scenario.`,
      '',
      '| Measure | Value | Target | Met |',
      '|---|---:|---|---|',
      ...results.targets.map((t) => `| ${t.what} | ${t.value ?? '—'} | ${t.target} | ${t.met ? 'yes' : '**no**'} |`),
      '',
      `Broadcast at 150 msg/s: ours p99 ${results.broadcast.paced_p99_ms} ms, the peer's ${results.broadcast.peer_paced_p99_ms} ms; flat out (1,000 msg/s offered): ours ${results.broadcast.max_deliveries_per_s}/s, the peer's ${results.broadcast.peer_max_deliveries_per_s}/s.`,
      `Idle: ${idle.clients} sockets, RSS ${idle.rss_before_kb} → ${idle.rss_after_kb} KB. postgres_changes: ${changes.inserts_per_s} inserts/s, ${changes.delivered} delivered (${changes.lost} not delivered 10 s after the last insert), p50 ${changes.p50_ms} ms; with distinct claims ${changesRls.inserts_per_s} inserts/s, ${changesRls.lost} not delivered 10 s after the last insert, p50 ${changesRls.p50_ms} ms.`,
      '',
    ]
    writeFileSync(join(resultsDir, 'realtime-latest.md'), lines.join('\n'))
    log(`results in ${join(resultsDir, 'realtime-latest.md')}`)
  } finally {
    stop()
    await new Promise((done) => setTimeout(done, 2000))
    rmSync(work, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
