// Random rest/v1 requests against the school fixture, checked for properties every answer
// must have, whatever the request: no transport failure and no 5xx but those PostgREST
// answers here too; every error in PostgREST's JSON shape; 2xx JSON bodies that parse,
// with a `Content-Range` that counts the rows sent; `HEAD` without a body; and nothing
// written by a read, by a failed request or by a request whose rollback was honoured.
//
// Requests come from the API's own OpenAPI document (tables, columns, foreign keys,
// functions), so the fixture's additions are fuzzed without edits here: mostly well-formed
// grammar with valid and hostile values, and a share of noise. Each seed runs on a fresh
// database and is reproducible alone: FUZZ_SEEDS=7 FUZZ_REQUESTS=5000 TEST_FILES=rest-fuzz
// npm test. The answers' expected content is the other conformance files' job.
//
// Then the same kind of requests, sent many at a time over few connections (so they wait for
// connections and share pipelines), writes rolled back: each read must get exactly the answer
// it got alone, and no row may change.

import { after, afterEach, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnFixtureGateway } from '../harness.mjs'
import { ANA, BETO, seededRandom, userToken } from '../support.mjs'

const SEEDS = (process.env.FUZZ_SEEDS ?? '1,2,3').split(',').map(Number)
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 700)
/**
 * Errors PostgREST answers with a 5xx here too: what the fixture's functions raise on purpose
 * (conflicts, a timeout, `PT40A`), and writes to a view PostgreSQL cannot update.
 */
const EXPECTED_5XX = new Set(['40001', '57014', 'PT40A', '55000'])
/** Functions left out: `nap` sleeps as long as it is asked to. */
const SKIPPED_FUNCTIONS = new Set(['nap'])
const REPORTED = 10

/** Tables, their columns and foreign keys, and the functions, from the OpenAPI document. */
async function apiModel(gateway) {
  const response = await fetch(`${gateway.url}/rest/v1/`, {
    headers: { apikey: gateway.serviceRoleKey, Authorization: `Bearer ${gateway.serviceRoleKey}` },
  })
  assert.equal(response.status, 200)
  const doc = await response.json()
  const tables = {}
  const functions = {}
  for (const [path, operations] of Object.entries(doc.paths)) {
    const name = path.slice(1)
    if (name.startsWith('rpc/')) {
      const fn = name.slice(4)
      if (SKIPPED_FUNCTIONS.has(fn)) continue
      const body = operations.post?.parameters?.find((p) => p.in === 'body')?.schema?.properties ?? {}
      functions[fn] = { args: Object.entries(body).map(([arg, s]) => ({ name: arg, type: s })) }
    } else if (name && doc.definitions[name]) {
      const { properties = {}, required = [] } = doc.definitions[name]
      const columns = Object.entries(properties).map(([column, s]) => ({
        name: column,
        type: s,
        required: required.includes(column),
        // Keys as the document notes them: fresh primary keys, existing foreign ones.
        key: /<fk /.test(s.description ?? '') ? 'foreign' : /<pk\/>/.test(s.description ?? '') ? 'primary' : null,
      }))
      tables[name] = { columns, embeds: [], view: !required.length }
    }
  }
  // A foreign key lets each end embed the other.
  for (const [name, table] of Object.entries(tables)) {
    for (const column of table.columns) {
      const target = /<fk table='([^']+)'/.exec(column.type.description ?? '')?.[1]
      if (target && tables[target]) {
        table.embeds.push(target)
        tables[target].embeds.push(name)
      }
    }
  }
  return { tables, functions }
}

const HOSTILE = ['', ' ', '"', "'", '\\', '(', ')', ',', '.', '*', ':', '::', '->', '%', '%00', '\u00e9',
  '\u{1F600}', 'null', '1e309', '9223372036854775808', 'NaN', '{}', '[]', '{a,b}', '[1,2)', 'infinity',
  '2025-13-45', 'a'.repeat(300), '\n', ';', '--', 'or', 'not', '$1', '\u0000']
const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'in', 'is',
  'isdistinct', 'fts', 'plfts', 'phfts', 'wfts', 'cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj',
  'not.eq', 'not.in', 'like(any)', 'eq(all)', 'not.is']
const PREFERENCES = ['return=representation', 'return=minimal', 'return=headers-only', 'count=exact',
  'count=planned', 'count=estimated', 'resolution=merge-duplicates', 'resolution=ignore-duplicates',
  'missing=default', 'tx=rollback', 'tx=commit', 'handling=strict', 'handling=lenient', 'max-affected=1',
  'params=single-object', 'timezone=America/Santiago', 'timezone=Marte/Olimpo', 'return=nada']
const ACCEPTS = ['application/json', 'application/vnd.pgrst.object+json', 'text/csv', 'application/geo+json',
  'application/vnd.pgrst.plan+json', 'application/vnd.pgrst.plan+text; options=analyze|verbose',
  'application/octet-stream', 'text/plain', 'text/html', '*/*', 'application/vnd.pgrst.array+json;nulls=stripped',
  'text/xml', 'application/json;q=0.5, text/csv']
const CONTENT_TYPES = ['application/json', 'text/csv', 'application/x-www-form-urlencoded', 'text/plain',
  'application/octet-stream', 'application/json; charset=latin1']

/**
 * Builds random requests for one seed over `model`. With `rollBack`, every write asks for
 * `tx=rollback` before any other preference.
 */
function requestMaker({ below, pick, chance }, model, { rollBack = false } = {}) {
  const tableNames = Object.keys(model.tables)
  const functionNames = Object.keys(model.functions)

  /** A value of the column's type, or (sometimes) something no column accepts. */
  function value(type = {}) {
    if (chance(0.12)) return pick([null, ...HOSTILE, 0, -1, 1.5, true, {}, []])
    return validValue(type)
  }

  /** A value the column's type accepts; `key` makes it a fresh or an existing key. */
  function validValue(type = {}, key = null) {
    if (key === 'primary' && type.type === 'integer') return 1000 + below(1e6)
    if (key === 'foreign' && type.type === 'integer') return 1 + below(4)
    if (type.enum) return pick(type.enum)
    const format = type.format ?? ''
    if (format.endsWith('[]')) return pick([[], [validValue({ format: format.slice(0, -2) })], '{}'])
    if (type.type === 'integer') return pick([below(20), below(1000) + 1000, -1, 2147483648])
    if (type.type === 'number') return pick([below(70) / 10, '6.5', 1e12, 'Infinity'])
    if (format === 'boolean') return pick([true, false, 't'])
    if (format === 'date') return pick(['2025-03-03', '2025-12-19', '2025-02-30'])
    if (format.startsWith('timestamp')) return pick(['2025-03-03T08:00:00Z', '2025-07-14 10:30', 'now'])
    if (format === 'uuid') return pick([ANA, '00000000-0000-4000-8000-000000000000', 'no-es-uuid'])
    if (format === 'json' || format === 'jsonb') return pick([{ a: below(5) }, [1, 'dos'], 'texto', 3])
    return pick(['Ana', 'Matemática', '1° medio', 'x' + below(1e6), '', 'Ñuñoa'])
  }
  const literal = (v) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v))

  function column(table) {
    const c = table.columns.length ? pick(table.columns).name : 'id'
    if (chance(0.12)) return c + pick(['->a', '->>a', '->0', '::text', '::int', '::nope'])
    if (chance(0.03)) return pick(HOSTILE)
    return c
  }

  function selectList(table, depth = 0) {
    const items = []
    for (let n = 1 + below(4); n > 0; n--) {
      const roll = below(10)
      if (roll === 0) items.push('*')
      else if (roll <= 2 && depth < 2 && table.embeds.length) {
        const target = pick(table.embeds)
        const alias = chance(0.3) ? pick(['a', 'b']) + ':' : ''
        const hint = chance(0.2) ? pick(['!inner', '!left']) : ''
        const spread = chance(0.15) ? '...' : ''
        items.push(`${spread}${alias}${target}${hint}(${selectList(model.tables[target], depth + 1)})`)
      } else if (roll === 3) {
        items.push(pick(['count()', `${column(table)}.count()`, `${column(table)}.max()`, `${column(table)}.sum()`]))
      }
      else if (roll === 4) items.push(`${pick(['a', 'b', 'c'])}:${column(table)}`)
      else items.push(column(table))
    }
    if (chance(0.03)) items.push(pick(HOSTILE))
    return items.join(',')
  }

  function condition(table) {
    const c = table.columns.length ? pick(table.columns) : { name: 'id' }
    const operator = pick(OPERATORS)
    let operand = literal(value(c.type))
    if (operator.endsWith('in')) operand = `(${[value(c.type), value(c.type)].map(literal).join(',')})`
    else if (operator.endsWith('is')) operand = pick(['null', 'true', 'false', 'unknown', 'x'])
    else if (/\((any|all)\)$/.test(operator)) operand = `{${literal(value(c.type))},${literal(value(c.type))}}`
    const embedded = `${pick(table.embeds.length ? table.embeds : ['x'])}.${c.name}`
    const name = chance(0.9) ? (chance(0.1) ? column(table) : c.name) : embedded
    return [name, `${operator}.${operand}`]
  }

  function logicTree(table, depth = 0) {
    const parts = []
    for (let n = 1 + below(3); n > 0; n--) {
      if (depth < 2 && chance(0.25)) parts.push(pick(['and', 'or', 'not.and', 'not.or']) + logicTree(table, depth + 1))
      else parts.push(condition(table).join('.'))
    }
    return `(${parts.join(',')})`
  }

  function row(table) {
    const object = {}
    for (const c of table.columns) if (chance(0.5)) object[c.name] = value(c.type)
    if (chance(0.05)) object[pick(['nope', '', 'a b'])] = 1
    return object
  }

  function body(table) {
    const roll = below(20)
    if (roll < 11) return { contentType: 'application/json', text: JSON.stringify(row(table)) }
    if (roll < 16) {
      return { contentType: 'application/json', text: JSON.stringify(Array.from({ length: below(4) }, () => row(table))) }
    }
    if (roll < 18) {
      const object = row(table)
      const names = Object.keys(object)
      const quoted = (text) => (text.includes(',') ? `"${text.replaceAll('"', '""')}"` : text)
      const cell = (v) => (v === null ? 'NULL' : quoted(literal(v)))
      return { contentType: 'text/csv', text: `${names.join(',')}\n${names.map((n) => cell(object[n])).join(',')}` }
    }
    const malformed = ['', '{', '[', 'null', '1', '"s"', '[1,2]', '{"a":', '[{},1]', '{"x":' + '['.repeat(600)]
    return { contentType: pick(CONTENT_TYPES), text: pick(malformed) }
  }

  function tableRequest() {
    const name = chance(0.97) ? pick(tableNames) : pick(['nope', 'pg_class', 'students"', 'rpc'])
    const table = model.tables[name] ?? { columns: [], embeds: [] }
    const method = pick(['GET', 'GET', 'HEAD', 'POST', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'])
    const query = []
    if (method === 'GET' || method === 'HEAD' || chance(0.4)) query.push(['select', selectList(table)])
    for (let n = below(3); n > 0; n--) query.push(condition(table))
    if (chance(0.2)) query.push([pick(['or', 'and', 'not.or']), logicTree(table)])
    if (chance(0.3)) query.push(['order', `${column(table)}${pick(['', '.asc', '.desc', '.nullsfirst', '.desc.nullslast'])}`])
    if (chance(0.3)) query.push([pick(['limit', 'offset']), pick(['0', '1', '5', '-1', 'x', '99999999999999999999'])])
    if (method === 'POST' && chance(0.3)) query.push(['on_conflict', table.columns.length ? pick(table.columns).name : 'id'])
    if (method === 'POST' && chance(0.2)) query.push(['columns', table.columns.slice(0, 1 + below(3)).map((c) => c.name).join(',')])
    if (chance(0.03)) query.push([pick(HOSTILE), pick(HOSTILE)])
    return { path: `/${name}`, method, query, body: ['POST', 'PATCH', 'PUT'].includes(method) ? body(table) : undefined }
  }

  /** A well-formed write meant to succeed, so commits, rollbacks and checks get exercised. */
  function cleanWrite() {
    const writable = tableNames.filter((name) => !model.tables[name].view)
    const name = pick(writable)
    const { columns } = model.tables[name]
    const primary = columns.find((c) => c.key === 'primary') ?? columns[0]
    // Rows of one write share their keys, as PostgREST requires of a bulk body.
    const included = columns.filter((c) => c.required || chance(0.3))
    const fresh = () => Object.fromEntries(included.map((c) => [c.name, validValue(c.type, c.key)]))
    const method = pick(['POST', 'POST', 'PATCH', 'DELETE', 'PUT'])
    const query = chance(0.3) ? [['select', '*']] : []
    let text
    if (method === 'POST') {
      text = JSON.stringify(chance(0.6) ? fresh() : Array.from({ length: 1 + below(3) }, fresh))
    } else if (method === 'PUT') {
      const object = fresh()
      query.push([primary.name, `eq.${object[primary.name]}`])
      text = JSON.stringify(object)
    } else {
      query.push([primary.name, pick(['eq.1', 'eq.2', 'lt.4', `gte.${1 + below(3)}`, 'gte.1000'])])
      const plain = columns.filter((c) => !c.key)
      const changed = plain.length ? pick(plain) : primary
      text = method === 'PATCH' ? JSON.stringify({ [changed.name]: validValue(changed.type, changed.key) }) : undefined
    }
    const preferences = ['return=representation', 'return=minimal', 'tx=rollback',
      'tx=rollback, return=representation', 'count=exact', 'resolution=merge-duplicates', 'missing=default',
      'max-affected=1, handling=strict']
    return {
      path: `/${name}`,
      method,
      query,
      body: text === undefined ? undefined : { contentType: 'application/json', text },
      prefer: pick(preferences),
      accept: chance(0.2) ? 'application/vnd.pgrst.object+json' : undefined,
    }
  }

  function callRequest() {
    const name = chance(0.95) ? pick(functionNames) : pick(['nope', 'greet"'])
    const fn = model.functions[name] ?? { args: [], get: true }
    const args = {}
    for (const arg of fn.args) if (chance(0.85)) args[arg.name] = value(arg.type)
    if (chance(0.05)) args.extra = 1
    const method = pick(['GET', 'POST', 'POST', 'HEAD', 'PATCH'])
    const query = []
    if (method === 'GET' || method === 'HEAD') {
      for (const [k, v] of Object.entries(args)) query.push([k, Array.isArray(v) ? `{${v.map(literal)}}` : literal(v)])
    }
    if (chance(0.3)) query.push(['select', pick(['*', 'id,name', 'a', 'name', 'count()', 'teachers(*)'])])
    if (chance(0.3)) query.push(pick([['id', 'eq.1'], ['name', 'like.*a*'], ['nope', 'eq.1']]))
    if (chance(0.2)) query.push(['limit', pick(['1', 'x'])])
    const text = chance(0.9) ? JSON.stringify(args) : pick(['', '{', '[1,2]', '"s"', 'a=1'])
    const contentType = pick(['application/json', 'application/json', 'text/plain'])
    return { path: `/rpc/${name}`, method, query, body: method === 'POST' ? { contentType, text } : undefined }
  }

  // Mostly as supabase-js encodes (commas and parentheses left as they are), sometimes raw.
  const encode = (part) =>
    chance(0.9) ? encodeURIComponent(part).replace(/%2C/g, ',').replace(/%28/g, '(').replace(/%29/g, ')') : part
  return (credentials) => {
    const roll = below(20)
    const request = roll < 5 ? callRequest() : roll < 9 ? cleanWrite() : tableRequest()
    const headers = { apikey: credentials.apikey, Authorization: `Bearer ${pick(credentials.tokens)}` }
    if (request.prefer) headers.Prefer = request.prefer
    else if (chance(0.6)) headers.Prefer = Array.from({ length: 1 + below(3) }, () => pick(PREFERENCES)).join(', ')
    if (request.accept) headers.Accept = request.accept
    else if (chance(0.5) && !request.prefer) headers.Accept = pick(ACCEPTS)
    if (request.body) headers['Content-Type'] = request.body.contentType
    if (chance(0.1)) headers.Range = pick(['0-1', '5-', 'x', '3-1', '0-0'])
    if (chance(0.05)) headers[pick(['Accept-Profile', 'Content-Profile'])] = pick(['fixture', 'public', 'nope'])
    const read = ['GET', 'HEAD', 'OPTIONS'].includes(request.method)
    if (rollBack && !read) headers.Prefer = ['tx=rollback', headers.Prefer].filter(Boolean).join(', ')
    const search = request.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')
    return { ...request, read, url: `${request.path}${search ? `?${search}` : ''}`, headers }
  }
}

/** The problems with one answer, as short sentences (none: the answer is fine). */
function problems(request, response, text) {
  const found = []
  const contentType = response.headers.get('content-type') ?? ''
  let error = null
  if (response.status >= 300 && text) {
    try {
      error = JSON.parse(text)
    } catch {
      found.push('an error body that is not JSON')
    }
    if (error && (typeof error.code !== 'string' || typeof error.message !== 'string')) {
      found.push('an error body without `code` and `message`')
    }
  }
  // A HEAD answer has no body; `Proxy-Status` names the error, as PostgREST's does.
  const proxyError = /error=(\S+)/.exec(response.headers.get('proxy-status') ?? '')?.[1]
  if (response.status >= 500 && !EXPECTED_5XX.has(error?.code ?? proxyError)) found.push(`status ${response.status}`)
  if (request.method === 'HEAD' && text) found.push('a body on HEAD')
  // A function's JSON result is one value, even when it is an array: rows are a table's.
  const rowsOfTable = !request.path.startsWith('/rpc/')
  if (response.status < 300 && text && /json/.test(contentType) && !/plan/.test(contentType)) {
    let rows
    try {
      rows = JSON.parse(text)
    } catch {
      found.push('a 2xx JSON body that does not parse')
    }
    const range = response.headers.get('content-range')
    const bounds = range && /^(\d+)-(\d+)\/(\d+|\*)$/.exec(range)
    if (rowsOfTable && Array.isArray(rows) && bounds && Number(bounds[2]) - Number(bounds[1]) + 1 !== rows.length) {
      found.push(`Content-Range ${range} for ${rows.length} rows`)
    }
    // `*/0` with rows is PostgREST's answer for aggregates over no rows (the total counts the
    // rows aggregated, and a zero total writes no range).
    const aggregates = request.query.some(([name, value]) => name === 'select' && value.includes('()'))
    if (rowsOfTable && Array.isArray(rows) && rows.length && range && !bounds && request.method === 'GET' && !aggregates) {
      found.push(`Content-Range ${range} for ${rows.length} rows`)
    }
  }
  return found
}

/** Whether the request may not change a row: a read, a failure, or an honoured rollback. */
function mustLeaveRowsAlone(request, response) {
  const applied = response.headers.get('preference-applied') ?? ''
  return ['GET', 'HEAD', 'OPTIONS'].includes(request.method) || response.status >= 400 || applied.includes('tx=rollback')
}

/** One statement hashing every row of the fixture's tables (sequences are not transactional). */
async function rowsDigestQuery(client) {
  const { rows } = await client.query(`
    SELECT format('SELECT %L || t::text FROM %I.%I t', c.relname || ':', n.nspname, c.relname) AS part
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname IN ('fixture', 'fixture_private') AND c.relkind IN ('r', 'p')`)
  const union = rows.map((r) => r.part).join(' UNION ALL ')
  return `SELECT md5(coalesce(string_agg(r, E'\\n' ORDER BY r), '')) AS digest FROM (${union}) AS rows_(r)`
}

/** Who sends the requests: anon, two users (RLS tells them apart) and service_role. */
function identities(gateway) {
  return [
    { apikey: gateway.anonKey, tokens: [gateway.anonKey] },
    { apikey: gateway.anonKey, tokens: [userToken(gateway, ANA, 'ana@colegio.cl')] },
    { apikey: gateway.anonKey, tokens: [userToken(gateway, BETO, 'beto@colegio.cl')] },
    { apikey: gateway.serviceRoleKey, tokens: [gateway.serviceRoleKey] },
  ]
}

describe('rest/v1 under random requests (PGRST_DB_TX_END=commit-allow-override, aggregates and plans on)', () => {
  let gateway
  afterEach(async () => {
    await gateway?.stop()
  })

  for (const seed of SEEDS) {
    test(`seed ${seed}: ${REQUESTS} requests keep every property`, async (context) => {
      gateway = await spawnFixtureGateway({
        PGRST_DB_TX_END: 'commit-allow-override',
        PGRST_DB_AGGREGATES_ENABLED: 'true',
        PGRST_DB_PLAN_ENABLED: 'true',
      })
      const model = await apiModel(gateway)
      assert.ok(Object.keys(model.tables).length > 5 && Object.keys(model.functions).length > 5, 'the fixture is served')
      const random = seededRandom(seed)
      const nextRequest = requestMaker(random, model)
      const credentials = identities(gateway)
      const findings = []
      const statuses = {}
      await gateway.admin(async (client) => {
        const digestQuery = await rowsDigestQuery(client)
        const digest = async () => (await client.query(digestQuery)).rows[0].digest
        let before = await digest()
        for (let index = 0; index < REQUESTS; index++) {
          const request = nextRequest(random.pick(credentials))
          const { apikey, Authorization, ...shownHeaders } = request.headers
          const shown = `${request.method} ${request.url} ${JSON.stringify(shownHeaders)} ${request.body?.text.slice(0, 200) ?? ''}`
          const report = (what) => findings.push(`#${index} ${shown}: ${what}`)
          let response
          let text
          try {
            response = await fetch(`${gateway.url}/rest/v1${request.url}`, {
              method: request.method,
              headers: request.headers,
              body: request.body?.text,
            })
            text = await response.text()
          } catch (error) {
            report(`no answer (${error.cause?.code ?? error.message})`)
            continue
          }
          statuses[response.status] = (statuses[response.status] ?? 0) + 1
          for (const problem of problems(request, response, text)) report(`${problem}: ${text.slice(0, 300)}`)
          const now = await digest()
          if (now !== before && mustLeaveRowsAlone(request, response)) report(`rows changed by a ${response.status} answer`)
          before = now
        }
      })
      context.diagnostic(`statuses: ${JSON.stringify(statuses)}`)
      assert.deepEqual(findings.slice(0, REPORTED), [], `${findings.length} findings`)
      // The mix reached the database: successes of every kind, not only parse errors.
      for (const status of [200, 201, 204]) assert.ok(statuses[status] > 0, `some ${status}: ${JSON.stringify(statuses)}`)
    })
  }
})

/**
 * What a client can see of an answer, but for what differs between any two answers, and for
 * the order of rows: SQL leaves it to the plan where a request names none, and plans follow
 * the tables' size on disk, which the rolled-back writes change. Arrays are sorted at every
 * depth (embedded rows too), CSV lines after the header.
 */
async function visible(gateway, request) {
  const response = await fetch(`${gateway.url}/rest/v1${request.url}`, {
    method: request.method,
    headers: request.headers,
    body: request.body?.text,
  })
  const shown = ['content-type', 'content-range', 'preference-applied', 'content-profile', 'location', 'proxy-status']
  const headers = shown.map((name) => `${name}: ${response.headers.get(name)}`)
  return [response.status, ...headers, unordered(await response.text(), response.headers.get('content-type'))].join('\n')
}

function unordered(text, contentType) {
  if (/csv/.test(contentType ?? '')) {
    const [header, ...lines] = text.split('\n')
    return [header, ...lines.sort()].join('\n')
  }
  if (!/json/.test(contentType ?? '')) return text
  const sorted = (value) => {
    if (Array.isArray(value)) return value.map(sorted).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sorted(v)]))
    return value
  }
  try {
    return JSON.stringify(sorted(JSON.parse(text)))
  } catch {
    return text
  }
}

describe('rest/v1 requests sent at once (DB_POOL_SIZE=4, writes rolled back)', () => {
  const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 24)
  let gateway
  after(async () => {
    await gateway?.stop()
  })

  // Requests share connections and pipelines when many arrive at once: no role, claim,
  // search_path, timezone, error or open transaction of one may reach another, and each
  // read gets its own rows. Writes ask for a rollback, so the rows stay as they are and a
  // read's answer does not depend on when it ran.
  for (const seed of SEEDS) {
    test(`seed ${seed}: ${REQUESTS} requests, ${CONCURRENCY} at a time, answer reads as alone`, async (context) => {
      // Two connections per HTTP worker, so requests wait for connections and share them.
      gateway ??= await spawnFixtureGateway({
        DB_POOL_SIZE: '4',
        PGRST_DB_TX_END: 'commit-allow-override',
        PGRST_DB_AGGREGATES_ENABLED: 'true',
      })
      const model = await apiModel(gateway)
      const random = seededRandom(seed)
      const nextRequest = requestMaker(random, model, { rollBack: true })
      const credentials = identities(gateway)
      const requests = Array.from({ length: REQUESTS }, () => nextRequest(random.pick(credentials)))
      await gateway.admin(async (client) => {
        // Times an answer shows in the request's `Prefer: timezone` or else in UTC. Then
        // statistics, so no automatic ANALYZE changes a plan (and the order of rows a read
        // without `order` gets) between the two rounds.
        await client.query(`INSERT INTO typed_arrivals (id, amount, at) VALUES
          (1, 5, '2025-03-03 08:00:00+00'), (2, 7, '2025-06-01 12:30:00+00') ON CONFLICT DO NOTHING`)
        await client.query('ANALYZE')
        const digestQuery = await rowsDigestQuery(client)
        const digest = async () => (await client.query(digestQuery)).rows[0].digest
        const rowsBefore = await digest()

        const alone = []
        for (const request of requests) alone.push(await visible(gateway, request))
        assert.equal(await digest(), rowsBefore, 'rows changed by requests sent one by one')

        // All again, in another order, CONCURRENCY in flight.
        const order = requests.map((_, index) => index)
        for (let i = order.length - 1; i > 0; i--) {
          const j = random.below(i + 1)
          ;[order[i], order[j]] = [order[j], order[i]]
        }
        const together = []
        const worker = async () => {
          for (let index = order.pop(); index !== undefined; index = order.pop()) {
            together[index] = await visible(gateway, requests[index])
          }
        }
        await Promise.all(Array.from({ length: CONCURRENCY }, worker))
        assert.equal(await digest(), rowsBefore, 'rows changed by requests sent at once')

        const statuses = {}
        for (const answer of alone) {
          const status = answer.slice(0, 3)
          statuses[status] = (statuses[status] ?? 0) + 1
        }
        context.diagnostic(`statuses alone: ${JSON.stringify(statuses)}`)
        // Planner estimates (`count=planned|estimated`) follow the tables' size on disk,
        // which rolled-back inserts grow too: those reads may differ.
        const comparable = (request) => request.read && !/count=(planned|estimated)/.test(request.headers.Prefer ?? '')
        const differences = []
        requests.forEach((request, index) => {
          if (comparable(request) && alone[index] !== together[index]) {
            const [first, second] = [alone[index], together[index]].map((answer) => answer.slice(0, 400))
            differences.push(`#${index} ${request.method} ${request.url}\n--- alone:\n${first}\n--- at once:\n${second}`)
          }
        })
        assert.deepEqual(differences.slice(0, REPORTED), [], `${differences.length} differences`)
      })
    })
  }
})
