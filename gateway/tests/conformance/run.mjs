// Starts the run's PostgreSQL cluster (embedded in a first gateway), migrates a template
// database, runs every `tests/*.test.mjs` with node:test (TEST_FILES / TEST_ONLY select
// files / test names), and tears everything down.

import { spawn } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import pg from 'pg'
import { cieloBinary, freePort, startGateway, JWT_SECRET } from './harness.mjs'

const here = dirname(fileURLToPath(import.meta.url))

async function main() {
  const dbPort = await freePort()
  const primary = await startGateway({ DB_PORT: String(dbPort) })
  const clusterUrl = primary.dbUrl.replace(/[^/]+$/, '')
  const template = `cielo_template_${process.pid}`
  let code = 1
  try {
    const admin = new pg.Client({ connectionString: `${clusterUrl}postgres` })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${template}`)
    await admin.end()
    await promisify(execFile)(cieloBinary(), ['migrate'], {
      env: { PATH: process.env.PATH, DATABASE_URL: `${clusterUrl}${template}`, JWT_SECRET, RUST_LOG: 'warn' },
    })
    // Every test database starts with the school fixture (the same one the Rust tests use).
    const fixture = new pg.Client({ connectionString: `${clusterUrl}${template}` })
    await fixture.connect()
    await fixture.query(readFileSync(join(here, '../fixtures/school.sql'), 'utf8'))
    await fixture.end()

    const files = readdirSync(join(here, 'tests'))
      .filter((name) => name.endsWith('.test.mjs'))
      // TEST_FILES=auth,rest-read runs only the files whose names contain one of the words.
      .filter((name) => !process.env.TEST_FILES || process.env.TEST_FILES.split(',').some((word) => name.includes(word.trim())))
      .map((name) => join(here, 'tests', name))
    const args = ['--test', '--test-reporter=spec', ...(process.env.TEST_ONLY ? ['--test-name-pattern', process.env.TEST_ONLY] : []), ...files]
    code = await new Promise((done) => {
      const child = spawn(process.execPath, args, {
        stdio: 'inherit',
        env: { ...process.env, CIELO_TEST_CLUSTER_URL: clusterUrl, CIELO_TEST_TEMPLATE: template },
      })
      child.on('exit', (exitCode) => done(exitCode ?? 1))
    })
  } finally {
    await primary.stop()
  }
  process.exit(code)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
