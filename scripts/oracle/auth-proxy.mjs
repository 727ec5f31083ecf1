// Test tooling for scripts/oracle/auth-js.sh: listens where the auth-js suite expects a
// bare GoTrue (e.g. localhost:9999/signup) and forwards to a Cielo gateway's auth/v1
// (127.0.0.1:<port>/auth/v1/signup), like the path-stripping proxy in front of GoTrue.
//
//   node auth-proxy.mjs <listen port> <gateway port> [<listen port> <gateway port> …]

import http from 'node:http'

const pairs = process.argv.slice(2)
if (pairs.length === 0 || pairs.length % 2 !== 0) {
  console.error('usage: node auth-proxy.mjs <listen port> <gateway port> […]')
  process.exit(2)
}

for (let i = 0; i < pairs.length; i += 2) {
  const listenPort = Number(pairs[i])
  const gatewayPort = Number(pairs[i + 1])
  const server = http.createServer((request, response) => {
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: gatewayPort,
        method: request.method,
        path: `/auth/v1${request.url === '/' ? '' : request.url}`,
        headers: request.headers,
      },
      (reply) => {
        response.writeHead(reply.statusCode ?? 502, reply.headers)
        reply.pipe(response)
      },
    )
    upstream.on('error', (error) => {
      response.writeHead(502, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ message: `proxy: ${error.message}` }))
    })
    request.pipe(upstream)
  })
  // Both loopback families: the suite says "localhost", which may resolve to ::1.
  server.listen({ port: listenPort, host: '::', ipv6Only: false }, () => {
    console.log(`proxy :${listenPort} -> 127.0.0.1:${gatewayPort}/auth/v1`)
  })
}
