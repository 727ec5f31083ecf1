// Runs every browser end-to-end test (`*.e2e.mjs`) with node:test.
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const files = readdirSync(here)
  .filter((name) => name.endsWith('.e2e.mjs'))
  .map((name) => join(here, name))
const child = spawn(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=1', ...files], {
  stdio: 'inherit',
})
child.on('exit', (code) => process.exit(code ?? 1))
