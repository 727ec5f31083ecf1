// The Node test harness: one PostgreSQL cluster per run, a fresh database per test file
// (a copy of a migrated template) and the real `cielo` gateway on a free port in front of
// it. Test files call `spawnGateway()`; `run.mjs` owns the cluster.
//
// The cluster is the embedded one of a first gateway process (the same code `make run`
// uses). Set CIELO_BIN to test another build of the binary.

import { spawn, execFile } from 'node:child_process'
import { mkdtempSync, rmSync, existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import pg from 'pg'

const here = dirname(fileURLToPath(import.meta.url))
export const repoRoot = resolve(here, '../../..')
export const JWT_SECRET = 'conformance-secret-for-the-cielo-gateway-0123456789'

export function cieloBinary() {
  const targetDir = resolve(repoRoot, process.env.CARGO_TARGET_DIR ?? 'target')
  const bin = process.env.CIELO_BIN ?? join(targetDir, 'debug/cielo')
  if (!existsSync(bin)) {
    throw new Error(`${bin} does not exist: build the gateway first (cargo build)`)
  }
  return bin
}

/**
 * The tests' model (SmolLM2-135M-Instruct), fetched once by `cielo model fetch` into the
 * target directory (where the Rust tests keep it too); its path.
 */
export async function testModelPath() {
  const dir = resolve(repoRoot, process.env.CARGO_TARGET_DIR ?? 'target', 'tmp/models')
  const { stdout } = await promisify(execFile)(
    cieloBinary(),
    ['model', 'fetch', '--model', 'smollm2-135m', '--dir', dir],
    { env: { PATH: process.env.PATH, RUST_LOG: 'warn', AI_MODEL_INDEX_URL: process.env.AI_MODEL_INDEX_URL ?? '' } },
  )
  return stdout.trim()
}

/** A TCP port nothing listens on right now. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolvePort(port))
    })
  })
}

/** Parses `KEY="value"` lines of `cielo status -o env`. */
export function parseEnv(text) {
  const values = {}
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)="(.*)"$/.exec(line)
    if (match) values[match[1]] = match[2].replace(/\\"/g, '"')
  }
  return values
}

/**
 * Starts a gateway process with `env` on top of a clean environment and waits for its
 * status block. Resolves to the parsed status (URLs and keys) and a `stop()`.
 */
export async function startGateway(env, { timeoutMs = 120_000 } = {}) {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'cielo-gw-'))
  const apiPort = env.API_PORT ?? String(await freePort())
  const fullEnv = {
    PATH: process.env.PATH,
    API_HOST: '127.0.0.1',
    API_PORT: apiPort,
    DATA_DIR: dataDir,
    JWT_SECRET,
    SHUTDOWN_TIMEOUT: '2',
    // Tests never get the demo accounts and data (`make run`'s default).
    SEED_DEMO: 'false',
    RUST_LOG: process.env.TEST_LOG ? 'info' : 'warn',
    ...env,
  }
  const child = spawn(cieloBinary(), [], { env: fullEnv, cwd: dataDir, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
    if (process.env.TEST_LOG) process.stderr.write(chunk)
  })
  await new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start in time:\n${stdout}\n${stderr}`)), timeoutMs)
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      if (stdout.includes('Secret key:')) {
        clearTimeout(timer)
        resolveStart()
      }
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`gateway exited with ${code}:\n${stdout}\n${stderr}`))
    })
  })
  child.removeAllListeners('exit')

  const { stdout: statusText } = await promisify(execFile)(cieloBinary(), ['status', '-o', 'env'], {
    env: fullEnv,
    cwd: dataDir,
  })
  const status = parseEnv(statusText)
  const url = `http://127.0.0.1:${apiPort}`
  return {
    url,
    status,
    anonKey: status.ANON_KEY,
    serviceRoleKey: status.SERVICE_ROLE_KEY,
    publishableKey: status.PUBLISHABLE_KEY,
    secretKey: status.SECRET_KEY,
    dbUrl: status.DB_URL,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((done) => child.once('exit', done))
        child.kill('SIGTERM')
        await exited
      }
      if (!env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * Drops a test database from under its running gateway. `WITH (FORCE)` does not end a
 * session holding a replication slot, so realtime's change capture is ended first (it comes
 * back within a second: retried).
 */
export async function dropDatabase(database) {
  await withAdmin('postgres', async (admin) => {
    for (let attempt = 0; ; attempt += 1) {
      await admin.query('SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE database = $1 AND active_pid IS NOT NULL', [database])
      try {
        await admin.query(`DROP DATABASE ${database} WITH (FORCE)`)
        return
      } catch (error) {
        if (error.code !== '55006' || attempt >= 20) throw error
        await new Promise((done) => setTimeout(done, 50))
      }
    }
  })
}

/**
 * Runs SQL as the cluster's superuser on `database`; `searchPath` sets the session's
 * search_path (unqualified names).
 */
export async function withAdmin(database, action, { searchPath } = {}) {
  const base = process.env.CIELO_TEST_CLUSTER_URL
  if (!base) throw new Error('CIELO_TEST_CLUSTER_URL is not set: run the tests through run.mjs')
  const client = new pg.Client({
    connectionString: `${base}${database}`,
    ...(searchPath ? { options: `-c search_path=${searchPath}` } : {}),
  })
  await client.connect()
  try {
    return await action(client)
  } finally {
    await client.end()
  }
}

/**
 * Schema of the rest/v1 test fixture (gateway/tests/fixtures/school.sql); `public` holds the
 * product's own tables.
 */
export const FIXTURE_SCHEMA = 'fixture'

/**
 * A gateway whose rest/v1 serves only the fixture schema, as a project whose default schema
 * holds the fixture's tables. Clients made by support.mjs for it use that schema
 * (`db: { schema }`), as an app configured for it would, and its `admin` connections look
 * names up there first.
 */
export async function spawnFixtureGateway(extraEnv = {}) {
  const gateway = await spawnGateway({ PGRST_DB_SCHEMAS: FIXTURE_SCHEMA, ...extraEnv })
  return {
    ...gateway,
    schema: FIXTURE_SCHEMA,
    // Direct SQL names the fixture's tables unqualified, as the default schema's.
    admin: (action) => withAdmin(gateway.database, action, { searchPath: `${FIXTURE_SCHEMA},public` }),
  }
}

/**
 * A gateway over a fresh copy of the migrated template database. Call `stop()` when done.
 */
export async function spawnGateway(extraEnv = {}) {
  const template = process.env.CIELO_TEST_TEMPLATE
  const database = `t_${Math.random().toString(36).slice(2, 12)}`
  await withAdmin('postgres', async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${database} TEMPLATE ${template}`)
        return
      } catch (error) {
        if (attempt > 50) throw error
        await new Promise((done) => setTimeout(done, 100))
      }
    }
  })
  const gateway = await startGateway({
    DATABASE_URL: `${process.env.CIELO_TEST_CLUSTER_URL}${database}`,
    WEB_DIR: process.env.CIELO_TEST_WEB_DIR ?? join(repoRoot, 'frontend/dist'),
    ...extraEnv,
  })
  return {
    ...gateway,
    database,
    admin: (action) => withAdmin(database, action),
  }
}
