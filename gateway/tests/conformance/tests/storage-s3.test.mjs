// storage/v1 with the S3 backend against a real S3-compatible server (moto's server mode,
// from PyPI, installed by scripts/ensure-deps.sh), started here (see storage-suite.mjs).

import { spawn } from 'node:child_process'
import { freePort } from '../harness.mjs'
import { storageSuite } from '../storage-suite.mjs'

let server
let endpoint

async function startS3() {
  const port = await freePort()
  server = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' })
  endpoint = `http://127.0.0.1:${port}`
  for (let attempt = 0; ; attempt += 1) {
    try {
      // The gateway uses an existing bucket, as Supabase Storage does.
      const created = await fetch(`${endpoint}/cielo-test`, { method: 'PUT' })
      if (created.ok) break
    } catch (error) {
      if (attempt > 300) throw new Error(`the S3 server did not start: ${error}`)
    }
    await new Promise((done) => setTimeout(done, 100))
  }
  return {
    STORAGE_BACKEND: 's3',
    GLOBAL_S3_BUCKET: 'cielo-test',
    GLOBAL_S3_ENDPOINT: endpoint,
    GLOBAL_S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: 'cielo-test',
    AWS_SECRET_ACCESS_KEY: 'cielo-test-secret',
    REGION: 'us-east-1',
  }
}

/** Every key in the bucket (ListObjectsV2, one page is enough here). */
async function storedKeys() {
  const xml = await (await fetch(`${endpoint}/cielo-test?list-type=2&max-keys=1000`)).text()
  return [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) => match[1])
}

storageSuite('s3', {
  stored: storedKeys,
  setUp: startS3,
  tearDown: async () => {
    server?.kill()
  },
})
