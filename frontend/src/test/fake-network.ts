/**
 * A fake `fetch` for tests: the network boundary is the only thing replaced.
 * Routes are matched on the URL path; every request is recorded.
 */

export interface RecordedRequest {
  url: string
  method: string
  headers: Headers
}

export type RouteHandler = (request: RecordedRequest) => Response | Promise<Response>

export interface FakeNetwork {
  fetch: typeof fetch
  requests: RecordedRequest[]
  requestsTo: (path: string) => RecordedRequest[]
}

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
}

export function createFakeNetwork(routes: Record<string, RouteHandler>): FakeNetwork {
  const requests: RecordedRequest[] = []
  const fakeFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const request: RecordedRequest = {
      url,
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
    }
    requests.push(request)
    const path = new URL(url, 'http://localhost').pathname
    const handler = routes[path]
    if (!handler) throw new TypeError(`Failed to fetch (no fake route for ${path})`)
    return handler(request)
  }) as typeof fetch
  return {
    fetch: fakeFetch,
    requests,
    requestsTo: (path) => requests.filter((r) => new URL(r.url, 'http://localhost').pathname === path),
  }
}

/** Responses of a healthy Cielo stack. */
export const healthyRoutes: Record<string, RouteHandler> = {
  '/health': () => json({ status: 'ok', database: 'ok', version: '0.1.0' }),
  '/auth/v1/health': () => json({ version: 'v2.170.0', name: 'GoTrue', description: 'GoTrue is a user registration and authentication API' }),
  '/rest/v1/': () =>
    json({
      swagger: '2.0',
      info: { title: 'PostgREST API', version: '12.2.3' },
      paths: { '/': {}, '/plans': {} },
    }),
}

/** Responses while the database is down. */
export const databaseDownRoutes: Record<string, RouteHandler> = {
  ...healthyRoutes,
  '/health': () => json({ status: 'error', database: 'unavailable', version: '0.1.0' }, 503),
  '/rest/v1/': () => json({ code: 'PGRST000', message: 'Database connection error.' }, 503),
}

/** rest/v1 answers for a signed-in teacher with no roles, profile, demo or courses. */
export const teacherRoutes: Record<string, RouteHandler> = {
  '/rest/v1/rpc/is_admin': () => json(false),
  '/rest/v1/rpc/is_content_creator': () => json(false),
  '/rest/v1/profiles': () => json([]),
  '/rest/v1/demo_users_2025': () => json([]),
  '/rest/v1/courses': () =>
    new Response('[]', { status: 200, headers: { 'Content-Type': 'application/json', 'Content-Range': '*/0' } }),
  '/auth/v1/logout': () => new Response(null, { status: 204 }),
}
