// supabase-js `channel()` against realtime/v1 (the unchanged realtime-js, vsn 2.0.0 over
// Node's WebSocket): connecting with the key, joining, broadcast between clients (`self`,
// `ack`, the HTTP endpoints), presence (state, joins, leaves when a client goes), the
// token's expiry closing the channel, and a raw vsn 1.0.0 socket (the key checked before the
// upgrade, heartbeats, join refusals worded as Supabase's), and broadcast and presence across
// gateway processes on one database.

import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { get as httpGet } from 'node:http'
import { createClient } from '@supabase/supabase-js'
import { spawnFixtureGateway, startGateway } from '../harness.mjs'
import { ANA, BETO, signJwt, userToken } from '../support.mjs'

const options = { auth: { persistSession: false, autoRefreshToken: false } }
let gateway
const clients = []

before(async () => {
  gateway = await spawnFixtureGateway()
})

after(async () => {
  // Closed sockets, so no reconnect timer keeps the test process alive.
  for (const client of clients) {
    await client.removeAllChannels()
    client.realtime.disconnect()
  }
  await gateway?.stop()
})

function client(accessToken) {
  const made = createClient(gateway.url, gateway.anonKey, {
    ...options,
    ...(accessToken ? { accessToken: async () => accessToken } : {}),
  })
  clients.push(made)
  return made
}

/** Subscribes and waits for SUBSCRIBED (or the first other status, returned). */
function subscribe(channel) {
  return new Promise((resolve) => {
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') resolve({ status })
      else resolve({ status, error })
    })
  })
}

function nextEvent(channel, type, filter) {
  return new Promise((resolve) => channel.on(type, filter, (payload) => resolve(payload)))
}

const wait = (ms) => new Promise((done) => setTimeout(done, ms))

test('two clients broadcast to each other; self and ack as configured', async () => {
  const ana = client(userToken(gateway, ANA, 'ana@colegio.cl')).channel('sala', { config: { broadcast: { self: true, ack: true } } })
  const beto = client(userToken(gateway, BETO, 'beto@colegio.cl')).channel('sala')
  const anaGets = nextEvent(ana, 'broadcast', { event: 'hola' })
  const betoGets = nextEvent(beto, 'broadcast', { event: 'hola' })
  assert.equal((await subscribe(ana)).status, 'SUBSCRIBED')
  assert.equal((await subscribe(beto)).status, 'SUBSCRIBED')
  assert.equal(await ana.send({ type: 'broadcast', event: 'hola', payload: { texto: '¡Buenos días!' } }), 'ok')
  assert.deepEqual(await betoGets, { type: 'broadcast', event: 'hola', payload: { texto: '¡Buenos días!' } })
  assert.deepEqual((await anaGets).payload, { texto: '¡Buenos días!' }, 'self: true')

  // Without self the sender does not hear itself.
  let heard = false
  beto.on('broadcast', { event: 'eco' }, () => {
    heard = true
  })
  const anaHearsEco = nextEvent(ana, 'broadcast', { event: 'eco' })
  assert.equal(await beto.send({ type: 'broadcast', event: 'eco', payload: { n: 1 } }), 'ok')
  assert.deepEqual((await anaHearsEco).payload, { n: 1 })
  await wait(200)
  assert.equal(heard, false)
})

test('the HTTP broadcast endpoint reaches subscribers; bad batches are refused', async () => {
  const listener = client().channel('avisos')
  const got = nextEvent(listener, 'broadcast', { event: 'aviso' })
  await subscribe(listener)
  const response = await fetch(`${gateway.url}/realtime/v1/api/broadcast`, {
    method: 'POST',
    headers: { apikey: gateway.anonKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [{ topic: 'avisos', event: 'aviso', payload: { texto: 'Reunión a las 16:00' } }] }),
  })
  assert.equal(response.status, 202)
  assert.equal(await response.text(), '')
  assert.deepEqual((await got).payload, { texto: 'Reunión a las 16:00' })

  const bad = await fetch(`${gateway.url}/realtime/v1/api/broadcast`, {
    method: 'POST',
    headers: { apikey: gateway.anonKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [{ topic: 'avisos' }, { topic: 'a', event: 'b', payload: {} }] }),
  })
  assert.equal(bad.status, 422)
  assert.deepEqual(await bad.json(), { errors: { messages: [{ event: ["can't be blank"], payload: ["can't be blank"] }, {}] } })

  const noKey = await fetch(`${gateway.url}/realtime/v1/api/broadcast`, { method: 'POST', body: '{}' })
  assert.equal(noKey.status, 401)

  // httpSend: one event over HTTP, as realtime-js sends it when asked.
  const viaHttp = nextEvent(listener, 'broadcast', { event: 'directo' })
  const sender = client().channel('avisos')
  assert.deepEqual(await sender.httpSend('directo', { n: 2 }), { success: true })
  assert.deepEqual((await viaHttp).payload, { n: 2 })
})

test('the database broadcasts with realtime.send, at commit, large messages too', async () => {
  const listener = client().channel('desde-la-base')
  const received = []
  listener.on('broadcast', { event: 'aviso' }, (message) => received.push(message.payload))
  await subscribe(listener)
  const large = 'x'.repeat(10_000)
  await gateway.admin(async (sql) => {
    await sql.query(`SELECT realtime.send('{"n": 1}', 'aviso', 'desde-la-base', false)`)
    // Rolled back: never delivered. Private: not to public channels.
    await sql.query('BEGIN')
    await sql.query(`SELECT realtime.send('{"n": 2}', 'aviso', 'desde-la-base', false)`)
    await sql.query('ROLLBACK')
    await sql.query(`SELECT realtime.send('{"n": 3}', 'aviso', 'desde-la-base', true)`)
    await sql.query(`SELECT realtime.send(jsonb_build_object('n', 4, 'texto', $1::text), 'aviso', 'desde-la-base', false)`, [large])
  })
  for (let i = 0; i < 200 && received.length < 2; i += 1) await wait(25)
  await wait(200)
  assert.deepEqual(received.map((payload) => payload.n), [1, 4])
  assert.match(received[0].id, /^[0-9a-f-]{36}$/, 'realtime.send gives the payload an id')
  assert.equal(received[1].texto, large)
})

/** A client whose realtime token is set before any channel joins. */
async function clientAs(token) {
  const made = client()
  await made.realtime.setAuth(token)
  return made
}

test('private channels follow RLS policies on realtime.messages', async () => {
  await gateway.admin(async (sql) => {
    await sql.query(`CREATE POLICY profes_leen ON realtime.messages FOR SELECT TO authenticated
      USING (realtime.topic() = 'sala-privada' AND auth.uid() IN ('${ANA}', '${BETO}'))`)
    await sql.query(`CREATE POLICY ana_escribe ON realtime.messages FOR INSERT TO authenticated
      WITH CHECK (realtime.topic() = 'sala-privada' AND auth.uid() = '${ANA}')`)
  })
  const anaToken = userToken(gateway, ANA, 'ana@colegio.cl')
  const betoToken = userToken(gateway, BETO, 'beto@colegio.cl')
  const ana = (await clientAs(anaToken)).channel('sala-privada', { config: { private: true } })
  const beto = (await clientAs(betoToken)).channel('sala-privada', { config: { private: true } })
  const publicOne = client().channel('sala-privada')
  const stranger = (await clientAs(userToken(gateway, '00000000-0000-4000-8000-00000000000f', 'x@colegio.cl'))).channel('sala-privada', { config: { private: true } })
  const betoGot = []
  const anaGot = []
  const publicGot = []
  beto.on('broadcast', { event: '*' }, (message) => betoGot.push(message.payload))
  ana.on('broadcast', { event: '*' }, (message) => anaGot.push(message.payload))
  publicOne.on('broadcast', { event: '*' }, (message) => publicGot.push(message.payload))
  assert.equal((await subscribe(ana)).status, 'SUBSCRIBED')
  assert.equal((await subscribe(beto)).status, 'SUBSCRIBED')
  assert.equal((await subscribe(publicOne)).status, 'SUBSCRIBED')
  const refused = await subscribe(stranger)
  assert.equal(refused.status, 'CHANNEL_ERROR')
  assert.match(String(refused.error?.message ?? refused.error), /Unauthorized: You do not have permissions to read from this Channel topic: sala-privada/)
  await stranger.unsubscribe()

  // Ana may write: Beto reads it; the public channel of the same name is another room.
  await ana.send({ type: 'broadcast', event: 'nota', payload: { de: 'ana' } })
  // Beto may only read: his broadcast goes nowhere.
  await beto.send({ type: 'broadcast', event: 'nota', payload: { de: 'beto' } })
  // Over HTTP with Ana's token, and from the database.
  const http = await fetch(`${gateway.url}/realtime/v1/api/broadcast`, {
    method: 'POST',
    headers: { apikey: gateway.anonKey, Authorization: `Bearer ${anaToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [{ topic: 'sala-privada', event: 'nota', payload: { de: 'http' }, private: true }] }),
  })
  assert.equal(http.status, 202)
  await gateway.admin((sql) => sql.query(`SELECT realtime.send('{"de": "base"}', 'nota', 'sala-privada', true)`))
  for (let i = 0; i < 200 && betoGot.length < 3; i += 1) await wait(25)
  await wait(300)
  assert.deepEqual(betoGot.map((payload) => payload.de), ['ana', 'http', 'base'])
  assert.deepEqual(anaGot.map((payload) => payload.de), ['http', 'base'])
  assert.deepEqual(publicGot, [])

  const forbidden = await fetch(`${gateway.url}/realtime/v1/api/broadcast/sala-privada/events/nota?private=true`, {
    method: 'POST',
    headers: { apikey: gateway.anonKey, Authorization: `Bearer ${betoToken}`, 'Content-Type': 'application/json' },
    body: '{}',
  })
  assert.equal(forbidden.status, 403)
})

test('a broadcast made on one gateway process reaches subscribers on another', async () => {
  // A second process on the same database, as behind a load balancer.
  const second = await startGateway({ DATABASE_URL: `${process.env.CIELO_TEST_CLUSTER_URL}${gateway.database}` })
  try {
    const secondClient = createClient(second.url, second.anonKey, options)
    clients.push(secondClient)
    const onSecond = secondClient.channel('entre-procesos')
    const got = []
    onSecond.on('broadcast', { event: '*' }, (message) => got.push(message))
    const sender = client().channel('entre-procesos')
    await subscribe(onSecond)
    await subscribe(sender)
    const large = 'y'.repeat(20_000)
    await sender.send({ type: 'broadcast', event: 'hola', payload: { n: 1 } })
    await sender.send({ type: 'broadcast', event: 'grande', payload: { texto: large } })
    // The HTTP broadcast comes over another connection, so it is sent once the socket's two
    // have arrived: otherwise it may overtake the large one.
    for (let i = 0; i < 200 && got.length < 2; i += 1) await wait(25)
    const http = await fetch(`${gateway.url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: { apikey: gateway.anonKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ messages: [{ topic: 'entre-procesos', event: 'http', payload: { n: 3 } }] }),
    })
    assert.equal(http.status, 202)
    for (let i = 0; i < 200 && got.length < 3; i += 1) await wait(25)
    await wait(300)
    assert.deepEqual(got.map((message) => message.event), ['hola', 'grande', 'http'], 'each once, in order')
    assert.equal(got[1].payload.texto, large)
  } finally {
    await second.stop()
  }
})

test('presence across gateway processes: state, joins, leaves, and a process that dies', async () => {
  const database = `${process.env.CIELO_TEST_CLUSTER_URL}${gateway.database}`
  const second = await startGateway({ DATABASE_URL: database })
  let third
  try {
    const secondClient = createClient(second.url, second.anonKey, options)
    clients.push(secondClient)
    const beto = secondClient.channel('sala-comun', { config: { presence: { key: 'beto' } } })
    const events = []
    beto.on('presence', { event: 'join' }, ({ key }) => events.push(`join ${key}`))
    beto.on('presence', { event: 'leave' }, ({ key }) => events.push(`leave ${key}`))
    await subscribe(beto)
    const until = async (check, what, ms = 5000) => {
      for (let waited = 0; waited < ms && !check(); waited += 25) await wait(25)
      assert.ok(check(), `${what}: ${JSON.stringify(events)}`)
    }

    const ana = client().channel('sala-comun', { config: { presence: { key: 'ana' } } })
    await subscribe(ana)
    assert.equal(await ana.track({ nombre: 'Ana' }), 'ok')
    await until(() => events.includes('join ana'), 'a track on the first process is seen on the second')
    assert.equal(beto.presenceState().ana[0].nombre, 'Ana')

    // A process started later is told what the others track.
    third = await startGateway({ DATABASE_URL: database })
    const thirdClient = createClient(third.url, third.anonKey, options)
    clients.push(thirdClient)
    const carla = thirdClient.channel('sala-comun', { config: { presence: { key: 'carla' } } })
    let carlaState = {}
    carla.on('presence', { event: 'sync' }, () => {
      carlaState = carla.presenceState()
    })
    await subscribe(carla)
    await until(() => carlaState.ana, 'the new process shows what the first one tracks')
    assert.equal(await carla.track({ nombre: 'Carla' }), 'ok')
    await until(() => events.includes('join carla'), 'and its own tracks reach the others')

    assert.equal(await ana.untrack(), 'ok')
    await until(() => events.includes('leave ana'), 'an untrack is a leave everywhere')

    // The third process dies without a word: its presence leaves once it has been silent.
    third.process.kill('SIGKILL')
    await until(() => events.includes('leave carla'), 'a dead process\'s presence leaves', 30_000)
  } finally {
    await second.stop()
    await third?.stop()
  }
})

test('presence: the state after joining, joins and leaves when a client goes', async () => {
  // realtime-js takes presence listeners before subscribe() only: collect what arrives.
  const anaEvents = []
  const ana = client(userToken(gateway, ANA, 'ana@colegio.cl')).channel('profes', { config: { presence: { key: 'ana' } } })
  ana.on('presence', { event: 'sync' }, () => anaEvents.push({ event: 'sync' }))
  ana.on('presence', { event: 'join' }, (change) => anaEvents.push({ event: 'join', ...change }))
  ana.on('presence', { event: 'leave' }, (change) => anaEvents.push({ event: 'leave', ...change }))
  const until = async (check) => {
    for (let i = 0; i < 200 && !check(); i += 1) await wait(25)
    assert.ok(check(), JSON.stringify(anaEvents))
  }
  await subscribe(ana)
  assert.equal(await ana.track({ nombre: 'Ana' }), 'ok')
  await until(() => anaEvents.some((e) => e.event === 'join' && e.key === 'ana'))

  const betoClient = client(userToken(gateway, BETO, 'beto@colegio.cl'))
  const beto = betoClient.channel('profes', { config: { presence: { key: 'beto' } } })
  let betoState = {}
  beto.on('presence', { event: 'sync' }, () => {
    betoState = beto.presenceState()
  })
  await subscribe(beto)
  for (let i = 0; i < 200 && !betoState.ana; i += 1) await wait(25)
  assert.equal(betoState.ana?.[0].nombre, 'Ana', 'the state arrives after the join')
  assert.ok(betoState.ana[0].presence_ref)
  await beto.track({ nombre: 'Beto' })
  await until(() => anaEvents.some((e) => e.event === 'join' && e.key === 'beto' && e.newPresences[0].nombre === 'Beto'))

  // Beto's client goes away: Ana sees him leave.
  await betoClient.removeAllChannels()
  await until(() => anaEvents.some((e) => e.event === 'leave' && e.key === 'beto'))
  assert.deepEqual(Object.keys(ana.presenceState()), ['ana'])
})

test('a token that expires closes the channel with a system message', async () => {
  const soon = signJwt({ role: 'authenticated', sub: ANA, exp: Math.floor(Date.now() / 1000) + 2 })
  const supabase = client()
  await supabase.realtime.setAuth(soon)
  const channel = supabase.channel('breve')
  const system = new Promise((resolve) => channel.on('system', {}, (payload) => payload.status === 'error' && resolve(payload)))
  await subscribe(channel)
  const message = await system
  assert.equal(message.channel, 'breve')
  assert.match(message.message, /^Token has expired \d+ seconds ago$/)
})

test('a raw socket: the key is checked before the upgrade, vsn 1.0.0 frames are objects', async () => {
  // An upgrade with a wrong key or an expired token is answered 401 instead of the 101.
  const upgradeStatus = (key) =>
    new Promise((resolve, reject) => {
      const request = httpGet(`${gateway.url}/realtime/v1/websocket?apikey=${key}&vsn=2.0.0`, {
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' },
      })
      request.on('response', (response) => resolve(response.statusCode))
      request.on('upgrade', () => resolve(101))
      request.on('error', reject)
    })
  assert.equal(await upgradeStatus('nope'), 401)
  assert.equal(await upgradeStatus(signJwt({ role: 'anon', exp: Math.floor(Date.now() / 1000) - 5 })), 401)

  const url = `${gateway.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${gateway.anonKey}&vsn=1.0.0`
  const socket = new WebSocket(url)
  const frames = []
  const got = (count) =>
    new Promise((resolve) => {
      const check = () => (frames.length >= count ? resolve(frames.slice(0, count)) : setTimeout(check, 20))
      check()
    })
  socket.onmessage = (event) => frames.push(JSON.parse(event.data))
  await new Promise((resolve, reject) => {
    socket.onopen = resolve
    socket.onerror = reject
  })
  socket.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '1', join_ref: null }))
  socket.send(JSON.stringify({ topic: 'realtime:', event: 'phx_join', payload: {}, ref: '2', join_ref: '2' }))
  socket.send(JSON.stringify({ topic: 'otro', event: 'broadcast', payload: {}, ref: '3', join_ref: null }))
  const expired = signJwt({ role: 'authenticated', sub: ANA, exp: Math.floor(Date.now() / 1000) - 100 })
  socket.send(JSON.stringify({ topic: 'realtime:sala', event: 'phx_join', payload: { config: {}, access_token: expired }, ref: '4', join_ref: '4' }))
  socket.send(JSON.stringify({ topic: 'realtime:sala', event: 'phx_join', payload: { config: {}, access_token: 'no-es-un-jwt' }, ref: '5', join_ref: '5' }))
  const [heartbeat, join, unmatched, refusedExpired, refusedMalformed] = await got(5)
  assert.deepEqual(heartbeat, { topic: 'phoenix', event: 'phx_reply', payload: { status: 'ok', response: {} }, ref: '1', join_ref: null })
  assert.deepEqual(join.payload, { status: 'error', response: { reason: 'TopicNameRequired: You must provide a topic name' } })
  assert.deepEqual(unmatched.payload, { status: 'error', response: { reason: 'unmatched topic' } })
  assert.match(refusedExpired.payload.response.reason, /^InvalidJWTToken: Token has expired \d+ seconds ago$/)
  assert.equal(refusedMalformed.payload.response.reason, 'MalformedJWT: The token provided is not a valid JWT')
  // The closing handshake echoes the client's code, as Supabase's server does.
  const closed = new Promise((resolve) => (socket.onclose = resolve))
  socket.close(1000)
  const { code, wasClean } = await closed
  assert.equal(code, 1000)
  assert.equal(wasClean, true)
})

test('a client that leaves its last channel and disconnects stays disconnected', async () => {
  // A heartbeat sent just before disconnect() gets no reply (realtime-js ignores messages
  // while closing); unless the socket closes at once, the heartbeat timeout marks the close
  // unclean and realtime-js connects again.
  const made = createClient(gateway.url, gateway.anonKey, { ...options, realtime: { heartbeatIntervalMs: 500 } })
  clients.push(made)
  const channel = made.channel('de-paso')
  assert.equal((await subscribe(channel)).status, 'SUBSCRIBED')
  await wait(480)
  await made.removeChannel(channel)
  made.realtime.disconnect()
  await wait(3500)
  assert.equal(made.realtime.connectionState(), 'closed')
})
