// The realtime benchmark's load generator: opens websockets to a realtime/v1 server (the
// gateway, or peer.mjs) speaking Phoenix vsn 2.0.0 JSON frames and runs one scenario,
// printing its measurements as one JSON line.
//
//   broadcast  1 sender → N subscribers of one topic, 64-byte payloads at a paced rate:
//              deliveries/s, send→receive latency percentiles, messages lost
//   idle       N sockets each joined to a channel, then left alone: the server's RSS per socket
//   joins      N channel joins spread over sockets: joins/s
//   presence   N clients track on one topic: time until every client sees all N
//   changes    N subscribers of postgres_changes on a published table while rows are
//              inserted at a paced rate: delivered/s, commit→client latency, lost
//
// Usage: node load.mjs <scenario> '<json options>'
// Options: url (websocket URL with apikey and vsn), clients, rate, seconds, pid (server pid,
// for RSS), db (PostgreSQL URL, changes), tokens (one JWT per subscriber, changes), table.

import { performance } from 'node:perf_hooks'
import { readFileSync } from 'node:fs'
import WebSocket from 'ws'
import pg from 'pg'

const [scenario, rawOptions] = process.argv.slice(2)
const options = JSON.parse(rawOptions ?? '{}')
const now = () => performance.timeOrigin + performance.now()
const wait = (ms) => new Promise((done) => setTimeout(done, ms))

function percentile(sorted, p) {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/** Latencies kept in a preallocated array: a growing JS array's copies and the garbage
 * collection they cause would land in the very latencies measured. */
function recorder(capacity) {
  const values = new Float64Array(capacity)
  let count = 0
  return {
    add(value) {
      if (count < capacity) values[count++] = value
    },
    values: () => values.subarray(0, count),
  }
}

function summary(latencies) {
  const sorted = latencies.values().slice().sort()
  const round = (value) => (value === null ? null : Math.round(value * 100) / 100)
  return { p50_ms: round(percentile(sorted, 50)), p99_ms: round(percentile(sorted, 99)), max_ms: round(sorted.at(-1) ?? null) }
}

/** Opens `count` sockets, `concurrency` at a time. */
async function openSockets(count, url = options.url, concurrency = 200) {
  const sockets = []
  for (let start = 0; start < count; start += concurrency) {
    const batch = []
    for (let i = start; i < Math.min(count, start + concurrency); i += 1) {
      batch.push(
        new Promise((resolve, reject) => {
          const socket = new WebSocket(url, { perMessageDeflate: false })
          // Many joins wait on one socket at once, each with its listener.
          socket.setMaxListeners(0)
          socket.once('open', () => resolve(socket))
          socket.once('error', reject)
        }),
      )
    }
    sockets.push(...(await Promise.all(batch)))
  }
  return sockets
}

let nextRef = 0
/** Joins `topic` on `socket`; resolves with the reply's payload. */
function join(socket, topic, config = {}, token) {
  const ref = String((nextRef += 1))
  return new Promise((resolve) => {
    const onMessage = (data) => {
      const text = data.toString()
      if (!text.includes('"phx_reply"') || !text.startsWith(`["${ref}","${ref}"`)) return
      socket.off('message', onMessage)
      resolve(JSON.parse(text)[4])
    }
    socket.on('message', onMessage)
    const payload = { config: { broadcast: { self: false, ack: false }, presence: { enabled: false, key: '' }, postgres_changes: [], private: false, ...config } }
    if (token) payload.access_token = token
    socket.send(JSON.stringify([ref, ref, topic, 'phx_join', payload]))
  })
}

/** Heartbeats, so idle sockets stay open (realtime-js sends one every 25 s). */
function keepAlive(sockets) {
  const timer = setInterval(() => {
    for (const socket of sockets) if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify([null, 'hb', 'phoenix', 'heartbeat', {}]))
  }, 20_000)
  return () => clearInterval(timer)
}

function rssKb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1])
}

function closeAll(sockets) {
  for (const socket of sockets) socket.terminate()
}

async function broadcast() {
  const { clients = 1000, rate = 150, seconds = 10 } = options
  const topic = 'realtime:bench-broadcast'
  const subscribers = await openSockets(clients)
  const [sender] = await openSockets(1)
  await Promise.all(subscribers.map((socket) => join(socket, topic)))
  await join(sender, topic)
  const total = Math.round(rate * seconds)
  const latencies = recorder(total * clients)
  let delivered = 0
  for (const socket of subscribers) {
    socket.on('message', (data) => {
      const text = data.toString()
      const at = text.indexOf('"t":')
      if (at < 0 || !text.includes('"broadcast"')) return
      delivered += 1
      latencies.add(now() - Number.parseFloat(text.slice(at + 4)))
    })
  }
  // 64 bytes of payload: the send time and padding.
  const started = now()
  for (let sent = 0; sent < total; sent += 1) {
    const due = started + (sent * 1000) / rate
    const early = due - now()
    if (early > 1) await wait(early)
    const t = now().toFixed(3)
    const payload = { t: Number(t), pad: 'x'.repeat(Math.max(0, 64 - 12 - t.length - 8)) }
    sender.send(JSON.stringify([sender.joinRef ?? null, String(sent), topic, 'broadcast', { type: 'broadcast', event: 'b', payload }]))
  }
  const expected = total * clients
  const sendingEnded = now()
  while (delivered < expected && now() - sendingEnded < 5000) await wait(20)
  const elapsed = (now() - started) / 1000
  closeAll([...subscribers, sender])
  return { scenario: 'broadcast', clients, rate, seconds, sent: total, delivered, lost: expected - delivered, deliveries_per_s: Math.round(delivered / elapsed), ...summary(latencies) }
}

async function idle() {
  const { clients = 10_000, pid } = options
  const before = rssKb(pid)
  const sockets = await openSockets(clients)
  for (let start = 0; start < sockets.length; start += 500) {
    await Promise.all(sockets.slice(start, start + 500).map((socket, i) => join(socket, `realtime:idle-${(start + i) % 100}`)))
  }
  const stop = keepAlive(sockets)
  await wait(3000)
  const after = rssKb(pid)
  stop()
  closeAll(sockets)
  return { scenario: 'idle', clients, rss_before_kb: before, rss_after_kb: after, kb_per_socket: Math.round(((after - before) / clients) * 100) / 100 }
}

async function joins() {
  const { clients = 4000, perSocket = 20 } = options
  const sockets = await openSockets(Math.ceil(clients / perSocket))
  const started = now()
  const replies = []
  for (let i = 0; i < clients; i += 1) replies.push(join(sockets[i % sockets.length], `realtime:join-${i}`))
  const answered = await Promise.all(replies)
  const elapsed = (now() - started) / 1000
  closeAll(sockets)
  const ok = answered.filter((reply) => reply.status === 'ok').length
  return { scenario: 'joins', joins: clients, ok, joins_per_s: Math.round(clients / elapsed) }
}

async function presence() {
  const { clients = 1000 } = options
  const topic = 'realtime:bench-presence'
  const sockets = await openSockets(clients)
  const seen = sockets.map(() => new Set())
  let converged = 0
  let convergedAt = 0
  sockets.forEach((socket, index) => {
    socket.on('message', (data) => {
      const text = data.toString()
      if (!text.includes('"presence_state"') && !text.includes('"presence_diff"')) return
      const payload = JSON.parse(text)[4]
      const joins = text.includes('"presence_state"') ? payload : payload.joins
      const before = seen[index].size
      for (const key of Object.keys(joins)) seen[index].add(key)
      if (before < clients && seen[index].size === clients) {
        converged += 1
        if (converged === clients) convergedAt = now()
      }
    })
  })
  await Promise.all(sockets.map((socket, i) => join(socket, topic, { presence: { enabled: true, key: `k${i}` } })))
  const started = now()
  sockets.forEach((socket, i) => socket.send(JSON.stringify([null, `p${i}`, topic, 'presence', { type: 'presence', event: 'track', payload: { n: i } }])))
  while (converged < clients && now() - started < 30_000) await wait(20)
  closeAll(sockets)
  return { scenario: 'presence', clients, converged, converge_s: converged === clients ? Math.round(convergedAt - started) / 1000 : null }
}

async function changes() {
  const { clients = 100, rate = 1000, seconds = 10, db, tokens = [], table = 'bench_changes' } = options
  const sockets = await openSockets(clients)
  const binding = { event: 'INSERT', schema: 'public', table }
  const replies = await Promise.all(sockets.map((socket, i) => join(socket, 'realtime:bench-changes', { postgres_changes: [binding] }, tokens[i % Math.max(1, tokens.length)])))
  if (replies.some((reply) => reply.status !== 'ok')) throw new Error(`a join failed: ${JSON.stringify(replies.find((r) => r.status !== 'ok'))}`)
  await wait(500)
  const total = Math.round(rate * seconds)
  const latencies = recorder(total * clients)
  let delivered = 0
  for (const socket of sockets) {
    socket.on('message', (data) => {
      const text = data.toString()
      if (!text.includes('"postgres_changes"') || !text.includes('"ids"')) return
      const at = text.indexOf('"sent_at":')
      delivered += 1
      if (at >= 0) latencies.add(now() - Number.parseFloat(text.slice(at + 10)))
    })
  }
  // Inserts from a pool of 8 connections, paced; each row carries its send time.
  const writers = new pg.Pool({ connectionString: db, max: 8 })
  const started = now()
  const inFlight = []
  for (let n = 0; n < total; n += 1) {
    const due = started + (n * 1000) / rate
    const early = due - now()
    if (early > 1) await wait(early)
    inFlight.push(writers.query(`INSERT INTO public.${table} (sent_at) VALUES ($1)`, [now()]))
  }
  await Promise.all(inFlight)
  const insertedIn = (now() - started) / 1000
  const expected = total * clients
  const ended = now()
  while (delivered < expected && now() - ended < 10_000) await wait(20)
  const elapsed = (now() - started) / 1000
  await writers.end()
  closeAll(sockets)
  return { scenario: 'changes', clients, distinct_claims: Math.min(clients, Math.max(1, tokens.length)), rate, seconds, inserted: total, inserts_per_s: Math.round(total / insertedIn), delivered, lost: expected - delivered, deliveries_per_s: Math.round(delivered / elapsed), ...summary(latencies) }
}

const scenarios = { broadcast, idle, joins, presence, changes }
if (!scenarios[scenario]) {
  console.error(`unknown scenario ${scenario}; one of ${Object.keys(scenarios).join(', ')}`)
  process.exit(2)
}
scenarios[scenario]()
  .then((result) => {
    console.log(JSON.stringify(result))
    process.exit(0)
  })
  .catch((error) => {
    console.error(error)
    process.exit(1)
  })
