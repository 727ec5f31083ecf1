// Runs every browser end-to-end test (`*.e2e.mjs`) with node:test against one stack: a real
// gateway (debug `cielo` binary) with its embedded PostgreSQL and the built app
// (`frontend/dist`), started here once for all files (a fresh cluster per run), generating with
// the tests' real model (SmolLM2-135M run by llama.cpp in the gateway, a few tokens per zone).
// Its address and keys reach the test files in CIELO_E2E_STACK (see stack.mjs). TEST_FILES=sidebar,auth
// runs only the files whose names contain one of the words.
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, repoRoot, startGateway, testModelPath } from '../../gateway/tests/conformance/harness.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const files = readdirSync(here)
  .filter((name) => name.endsWith('.e2e.mjs'))
  .filter((name) => !process.env.TEST_FILES || process.env.TEST_FILES.split(',').some((word) => name.includes(word.trim())))
  .map((name) => join(here, name))

const apiPort = String(await freePort())
const url = `http://127.0.0.1:${apiPort}`
const gateway = await startGateway({
  API_PORT: apiPort,
  DB_PORT: String(await freePort()),
  WEB_DIR: join(repoRoot, 'frontend/dist'),
  // Mailed links and redirects name the address the browser uses.
  API_EXTERNAL_URL: url,
  SITE_URL: url,
  // Phone + password accounts give a session without a confirmed e-mail (the guard test).
  ENABLE_PHONE_SIGNUP: 'true',
  ENABLE_PHONE_AUTOCONFIRM: 'true',
  // The public planning pages' visitors sign in anonymously, as on a real deployment.
  ENABLE_ANONYMOUS_USERS: 'true',
  AI_PROVIDER: 'local',
  AI_MODEL_PATH: await testModelPath(),
  AI_ZONE_MAX_TOKENS: '12',
})

let code
try {
  const stack = {
    url: gateway.url,
    anonKey: gateway.anonKey,
    serviceRoleKey: gateway.serviceRoleKey,
  }
  code = await new Promise((done) => {
    const child = spawn(
      process.execPath,
      ['--test', '--test-reporter=spec', '--test-concurrency=1', ...(process.env.TEST_ONLY ? ['--test-name-pattern', process.env.TEST_ONLY] : []), ...files],
      { stdio: 'inherit', env: { ...process.env, CIELO_E2E_STACK: JSON.stringify(stack) } },
    )
    child.on('exit', (exitCode) => done(exitCode ?? 1))
  })
} finally {
  await gateway.stop()
}
process.exit(code)
