// storage/v1's file backend with STORAGE_FILE_ETAG_ALGORITHM=mtime (Supabase's alternative to
// the MD5 of the bytes): the ETag is the file's modification time and size in hex, the same
// in the object's info and in the download's header, and it serves 304s like any ETag.

import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnGateway } from '../harness.mjs'
import { serviceClient } from '../support.mjs'

let gateway
let dataDir

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cielo-storage-mtime-'))
  gateway = await spawnGateway({ DATA_DIR: dataDir, STORAGE_FILE_ETAG_ALGORITHM: 'mtime' })
})

after(async () => {
  await gateway?.stop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

test('mtime ETags: modification time and size in hex, in info and on the wire, with 304s', async () => {
  const service = serviceClient(gateway)
  assert.equal((await service.storage.createBucket('guias')).error, null)
  const files = service.storage.from('guias')
  const bytes = randomBytes(5000)
  const before = Date.now()
  assert.equal((await files.upload('unidad-1.bin', bytes)).error, null)

  const { data: info } = await files.info('unidad-1.bin')
  const [, millis, size] = /^"([0-9a-f]+)-([0-9a-f]+)"$/.exec(info.etag) ?? []
  assert.equal(size, (5000).toString(16))
  const modified = parseInt(millis, 16)
  assert.ok(modified >= before - 1000 && modified <= Date.now() + 1000, `${modified} is not the upload's time`)

  const url = `${gateway.url}/storage/v1/object/authenticated/guias/unidad-1.bin`
  const auth = { authorization: `Bearer ${gateway.serviceRoleKey}` }
  const download = await fetch(url, { headers: auth })
  assert.equal(download.headers.get('etag'), info.etag)
  assert.deepEqual(Buffer.from(await download.arrayBuffer()), bytes)
  assert.equal((await fetch(url, { headers: { ...auth, 'if-none-match': info.etag } })).status, 304)

  // Replaced by other bytes of another size: another ETag, and the old one no longer matches.
  assert.equal((await files.update('unidad-1.bin', randomBytes(6000))).error, null)
  const { data: replaced } = await files.info('unidad-1.bin')
  assert.match(replaced.etag, /-1770"$/)
  assert.equal((await fetch(url, { headers: { ...auth, 'if-none-match': info.etag } })).status, 200)
})
