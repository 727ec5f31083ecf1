// The realtime benchmark's peer: a plain Node `ws` server doing the same fan-out job as the
// gateway's realtime/v1 for broadcasts, speaking just enough of the Phoenix vsn 2.0.0 JSON
// frames for the load generator (heartbeat, phx_join, broadcast to the topic's other
// members). No auth, no limits, no presence: the least a server must do.
//
// Usage: node peer.mjs <port>

import { WebSocketServer } from 'ws'

const port = Number(process.argv[2] ?? 0)
const topics = new Map()
const server = new WebSocketServer({ port, host: '127.0.0.1', perMessageDeflate: false })

server.on('connection', (socket) => {
  const joined = new Set()
  socket.on('message', (data) => {
    let frame
    try {
      frame = JSON.parse(data)
    } catch {
      return
    }
    const [joinRef, ref, topic, event, payload] = frame
    if (event === 'heartbeat' || event === 'phx_join') {
      if (event === 'phx_join') {
        if (!topics.has(topic)) topics.set(topic, new Set())
        topics.get(topic).add(socket)
        joined.add(topic)
      }
      const response = event === 'phx_join' ? { postgres_changes: [] } : {}
      socket.send(JSON.stringify([joinRef, ref, topic, 'phx_reply', { status: 'ok', response }]))
    } else if (event === 'broadcast' && joined.has(topic)) {
      // Encoded once, sent to every other member, as the gateway does.
      const text = JSON.stringify([null, null, topic, 'broadcast', payload])
      for (const member of topics.get(topic)) if (member !== socket) member.send(text)
    }
  })
  socket.on('close', () => {
    for (const topic of joined) topics.get(topic)?.delete(socket)
  })
})

server.on('listening', () => console.log(`listening ${server.address().port}`))
