// storage/v1 through the unchanged supabase-js (`supabase.storage`) and tus-js-client, run
// once per backend by tests/storage-*.test.mjs: every storage-js call, RLS on a teacher's
// own folder, public and private buckets, signed URLs (expiry, tampering), ranges and 304s,
// path traversal, size and type limits refused while streaming with nothing left behind,
// uploads cut off mid-way, resumable uploads resumed from their offset, and image
// transformations (dimensions and format of the result).

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as tus from 'tus-js-client'
import { repoRoot, spawnGateway } from './harness.mjs'
import { ANA, BETO, anonClient, clientWithHeader, serviceClient, userToken } from './support.mjs'

const wait = (ms) => new Promise((done) => setTimeout(done, ms))
const md5 = (bytes) => createHash('md5').update(bytes).digest('hex')
const photo = readFileSync(join(repoRoot, 'gateway/tests/fixtures/storage/aula-1024.jpg'))

/** Width, height and kind of a JPEG, PNG or WebP image. */
export function imageSize(bytes) {
  const b = Buffer.from(bytes)
  if (b.subarray(1, 4).toString() === 'PNG') return { kind: 'png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) }
  if (b.subarray(0, 4).toString() === 'RIFF' && b.subarray(8, 12).toString() === 'WEBP') {
    const chunk = b.subarray(12, 16).toString()
    if (chunk === 'VP8L') {
      const bits = b.readUInt32LE(21)
      return { kind: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 }
    }
    if (chunk === 'VP8X') return { kind: 'webp', width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 }
    return { kind: 'webp', width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff }
  }
  if (b[0] === 0xff && b[1] === 0xd8) {
    for (let i = 2; i < b.length;) {
      const marker = b[i + 1]
      const length = b.readUInt16BE(i + 2)
      if (marker >= 0xc0 && marker <= 0xc3) return { kind: 'jpeg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) }
      i += 2 + length
    }
  }
  throw new Error('not an image')
}

/** A request sent exactly as written (no URL normalisation), for paths clients would clean up. */
function rawRequest(gateway, method, path, { headers = {}, body } = {}) {
  const { port } = new URL(gateway.url)
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      const chunks = []
      response.on('data', (chunk) => chunks.push(chunk))
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString()
        let json
        try { json = JSON.parse(text) } catch { json = undefined }
        resolve({ status: response.statusCode, headers: response.headers, text, json })
      })
    })
    request.on('error', reject)
    request.end(body)
  })
}

/** Every file under `dir` (recursively); one deleted while listing is left out. */
function filesUnder(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true })
    .map((name) => join(dir, String(name)))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile())
}

/** `read()` once it equals `expected`, polling for up to 3 s (replaced versions are deleted after the answer). */
async function settled(read, expected) {
  const deadline = Date.now() + 3000
  for (;;) {
    const value = await read()
    if (value === expected || Date.now() > deadline) return value
    await new Promise((done) => setTimeout(done, 50))
  }
}

/**
 * The suite against a gateway with `backend` (`file` or `s3`): `setUp()` returns the
 * gateway's backend settings, `stored()` lists the stored paths (`<bucket>/<key>/<version>`;
 * by default the files under DATA_DIR/storage).
 */
export function storageSuite(backend, { setUp = async () => ({}), tearDown = async () => {}, stored } = {}) {
  let gateway
  let dataDir
  let service
  let ana
  let beto
  let anonymous
  let anaToken

  const storedFiles = async () => (stored
    ? stored()
    : filesUnder(join(dataDir, 'storage')).filter((path) => !path.includes('/.tmp/')).map((path) => path.slice(join(dataDir, 'storage').length + 1)))
  // Files being written (file backend; S3 multipart uploads are aborted by the gateway).
  const stagingFiles = () => filesUnder(join(dataDir, 'storage', '.tmp'))

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), `cielo-storage-${backend}-`))
    const extra = await setUp()
    gateway = await spawnGateway({ DATA_DIR: dataDir, FILE_SIZE_LIMIT: String(8 * 1024 * 1024), ...extra })
    await gateway.admin(async (sql) => {
      await sql.query(`
        CREATE POLICY "teachers read their folder" ON storage.objects FOR SELECT TO authenticated
          USING (bucket_id = 'planes' AND (storage.foldername(name))[1] = auth.uid()::text);
        CREATE POLICY "teachers add to their folder" ON storage.objects FOR INSERT TO authenticated
          WITH CHECK (bucket_id = 'planes' AND (storage.foldername(name))[1] = auth.uid()::text);
        CREATE POLICY "teachers change their folder" ON storage.objects FOR UPDATE TO authenticated
          USING (bucket_id = 'planes' AND (storage.foldername(name))[1] = auth.uid()::text)
          WITH CHECK (bucket_id = 'planes' AND (storage.foldername(name))[1] = auth.uid()::text);
        CREATE POLICY "teachers remove from their folder" ON storage.objects FOR DELETE TO authenticated
          USING (bucket_id = 'planes' AND (storage.foldername(name))[1] = auth.uid()::text);
        CREATE POLICY "teachers see the buckets" ON storage.buckets FOR SELECT TO authenticated USING (true);
        CREATE POLICY "shared folder listed, not read" ON storage.objects FOR SELECT TO authenticated
          USING (bucket_id = 'planes' AND (storage.foldername(name))[1] = 'compartido'
                 AND storage.allow_only_operation('storage.object.list'));
      `)
    })
    service = serviceClient(gateway)
    anaToken = userToken(gateway, ANA, 'ana@liceo.cl')
    ana = clientWithHeader(gateway, anaToken)
    beto = clientWithHeader(gateway, userToken(gateway, BETO, 'beto@liceo.cl'))
    anonymous = anonClient(gateway)
    for (const [id, options] of [
      ['planes', { public: false }],
      ['publico', { public: true }],
      ['fotos', { public: false, allowedMimeTypes: ['image/*'], fileSizeLimit: '1mb' }],
    ]) {
      const { error } = await service.storage.createBucket(id, options)
      assert.equal(error, null)
    }
  })

  after(async () => {
    await gateway?.stop()
    await tearDown()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  describe(`storage/v1 (${backend} backend)`, () => {
    test('buckets: create, get, list, update, empty and delete with Supabase shapes', async () => {
      const created = await service.storage.createBucket('recursos', { public: false, fileSizeLimit: '5mb', allowedMimeTypes: ['application/pdf'] })
      assert.deepEqual(created, { data: { name: 'recursos' }, error: null })
      const again = await service.storage.createBucket('recursos')
      assert.equal(again.error.message, 'The resource already exists')
      assert.equal(again.error.statusCode, '409')

      const { data: bucket } = await service.storage.getBucket('recursos')
      assert.deepEqual(Object.keys(bucket).sort(), ['allowed_mime_types', 'created_at', 'file_size_limit', 'id', 'name', 'owner', 'public', 'updated_at'])
      assert.equal(bucket.file_size_limit, 5000000)
      assert.deepEqual(bucket.allowed_mime_types, ['application/pdf'])
      assert.equal(bucket.owner, '')
      assert.match(bucket.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

      const { data: list } = await service.storage.listBuckets()
      assert.ok(list.some((b) => b.id === 'recursos' && b.type === 'STANDARD'))
      const searched = await service.storage.listBuckets({ search: 'recur' })
      assert.deepEqual(searched.data.map((b) => b.id), ['recursos'])

      const updated = await service.storage.updateBucket('recursos', { public: true, fileSizeLimit: null, allowedMimeTypes: ['image/*'] })
      assert.deepEqual(updated, { data: { message: 'Successfully updated' }, error: null })
      const { data: after } = await service.storage.getBucket('recursos')
      assert.equal(after.public, true)
      assert.equal(after.file_size_limit, null)

      await service.storage.from('recursos').upload('a.png', Buffer.from('png'), { contentType: 'image/png' })
      const notEmpty = await service.storage.deleteBucket('recursos')
      assert.equal(notEmpty.error.message, 'The bucket you tried to delete is not empty')
      const emptied = await service.storage.emptyBucket('recursos')
      assert.deepEqual(emptied.data, { message: 'Empty bucket has been queued. Completion may take up to an hour.' })
      const deleted = await service.storage.deleteBucket('recursos')
      assert.deepEqual(deleted, { data: { message: 'Successfully deleted' }, error: null })
      const gone = await service.storage.getBucket('recursos')
      assert.equal(gone.error.message, 'Bucket not found')
      assert.equal(gone.error.statusCode, '404')
      assert.equal(gone.error.status, 400)

      const badName = await service.storage.createBucket('no/slashes')
      assert.equal(badName.error.message, 'Bucket name invalid')
      const tooBig = await service.storage.createBucket('grande', { fileSizeLimit: '1gb' })
      assert.equal(tooBig.error.statusCode, '413')
      // No CDN in front: purging succeeds for the service role, as on Supabase.
      assert.deepEqual((await service.storage.from('planes').purgeCache('a/b.png')).data, { message: 'success' })
      assert.deepEqual((await service.storage.purgeBucketCache('planes')).data, { message: 'success' })
      assert.equal((await ana.storage.from('planes').purgeCache('a/b.png')).error.status, 403)
      const teacherEmpty = await ana.storage.emptyBucket('planes')
      assert.equal(teacherEmpty.error.status, 403)
      assert.equal(teacherEmpty.error.message, 'Access denied: Invalid role')
      // Without policies for anon, buckets are invisible; without a token, refused.
      assert.deepEqual((await anonymous.storage.listBuckets()).data, [])
      const { error: missingToken } = await fetch(`${gateway.url}/storage/v1/bucket`).then(async (r) => ({ error: await r.json() }))
      assert.equal(missingToken.message, 'Invalid Compact JWS')
    })

    test('upload and download: bodies, metadata, cache control, upsert, update', async () => {
      const files = service.storage.from('planes')
      const text = 'Plan de clase: fracciones (4° básico)'
      const up = await files.upload('docs/plan.txt', Buffer.from(text), { contentType: 'text/plain;charset=UTF-8', metadata: { curso: '4A' } })
      assert.equal(up.error, null)
      assert.equal(up.data.path, 'docs/plan.txt')
      assert.equal(up.data.fullPath, 'planes/docs/plan.txt')
      assert.match(up.data.id, /^[0-9a-f-]{36}$/)

      const again = await files.upload('docs/plan.txt', Buffer.from('otra'))
      assert.equal(again.error.message, 'The resource already exists')
      assert.equal(again.error.statusCode, '409')

      const { data: blob } = await files.download('docs/plan.txt')
      assert.equal(await blob.text(), text)
      assert.equal(blob.type, 'text/plain;charset=utf-8')

      const { data: info } = await files.info('docs/plan.txt')
      assert.equal(info.size, Buffer.byteLength(text))
      assert.equal(info.contentType, 'text/plain;charset=UTF-8')
      assert.equal(info.cacheControl, 'max-age=3600')
      assert.equal(info.etag, `"${md5(Buffer.from(text))}"`)
      assert.deepEqual(info.metadata, { curso: '4A' })
      assert.equal(info.bucketId, 'planes')

      // Multipart (a Blob) with its own cache control, then upsert and update.
      const form = await files.upload('docs/nota.txt', new Blob(['nota 1'], { type: 'text/plain' }), { cacheControl: '60' })
      assert.equal(form.error, null)
      assert.equal((await files.info('docs/nota.txt')).data.cacheControl, 'max-age=60')
      const upsert = await files.upload('docs/nota.txt', Buffer.from('nota 2'), { upsert: true })
      assert.equal(upsert.error, null)
      const update = await files.update('docs/nota.txt', Buffer.from('nota 3'))
      assert.equal(update.error, null)
      assert.equal(await (await files.download('docs/nota.txt')).data.text(), 'nota 3')
      // Replaced versions leave nothing behind (deleted just after the answer).
      const versions = async () => (await storedFiles()).filter((path) => path.startsWith('planes/docs/nota.txt/')).length
      assert.equal(await settled(versions, 1), 1)
      // A stream body.
      const { Readable } = await import('node:stream')
      const streamed = await files.upload('docs/stream.bin', Readable.from([randomBytes(300_000), randomBytes(200_000)]), { duplex: 'half', contentType: 'application/octet-stream' })
      assert.equal(streamed.error, null)
      assert.equal((await files.info('docs/stream.bin')).data.size, 500_000)

      assert.equal(await files.exists('docs/plan.txt').then((r) => r.data), true)
      assert.equal(await files.exists('docs/nada.txt').then((r) => r.data), false)
      const missing = await files.download('docs/nada.txt')
      assert.equal(missing.error.statusCode ?? missing.error.status, missing.error.statusCode ?? 400)

      const noBucket = await service.storage.from('no-existe').upload('a.txt', Buffer.from('x'))
      assert.equal(noBucket.error.message, 'Bucket not found')
    })

    test('ranges, ETags and 304, Content-Disposition, HTML served as text', async () => {
      const files = service.storage.from('planes')
      const bytes = randomBytes(10_000)
      await files.upload('rangos/datos.bin', bytes, { contentType: 'application/octet-stream' })
      const url = `${gateway.url}/storage/v1/object/authenticated/planes/rangos/datos.bin`
      const auth = { authorization: `Bearer ${gateway.serviceRoleKey}` }
      const whole = await fetch(url, { headers: auth })
      assert.equal(whole.status, 200)
      assert.equal(whole.headers.get('accept-ranges'), 'bytes')
      assert.equal(whole.headers.get('content-length'), '10000')
      const etag = whole.headers.get('etag')
      assert.equal(etag, `"${md5(bytes)}"`)
      assert.ok(whole.headers.get('last-modified'))
      assert.deepEqual(Buffer.from(await whole.arrayBuffer()), bytes)

      const part = await fetch(url, { headers: { ...auth, range: 'bytes=100-199' } })
      assert.equal(part.status, 206)
      assert.equal(part.headers.get('content-range'), 'bytes 100-199/10000')
      assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(100, 200))
      const tail = await fetch(url, { headers: { ...auth, range: 'bytes=-10' } })
      assert.deepEqual(Buffer.from(await tail.arrayBuffer()), bytes.subarray(9990))
      const bad = await fetch(url, { headers: { ...auth, range: 'bytes=20000-' } })
      assert.equal(bad.status, 416)
      assert.equal((await bad.json()).code, 'InvalidRange')

      const cached = await fetch(url, { headers: { ...auth, 'if-none-match': etag } })
      assert.equal(cached.status, 304)
      const since = await fetch(url, { headers: { ...auth, 'if-modified-since': new Date(Date.now() + 60_000).toUTCString() } })
      assert.equal(since.status, 304)

      const { data: signed } = await files.createSignedUrl('rangos/datos.bin', 60, { download: 'informe final.bin' })
      const download = await fetch(signed.signedUrl)
      assert.equal(download.headers.get('content-disposition'), "attachment; filename=informe%20final.bin; filename*=UTF-8''informe%20final.bin")
      assert.ok(download.headers.get('expires'))

      await files.upload('rangos/pagina.html', Buffer.from('<script>alert(1)</script>'), { contentType: 'text/html' })
      const html = await fetch(`${gateway.url}/storage/v1/object/authenticated/planes/rangos/pagina.html`, { headers: auth })
      assert.equal(html.headers.get('content-type'), 'text/plain')
      await html.arrayBuffer()
    })

    test('list v1 folders, search, sort and paging; list v2 cursors', async () => {
      const files = service.storage.from('planes')
      for (const name of ['lista/b.txt', 'lista/A.txt', 'lista/c.txt', 'lista/sub/d.txt', 'lista/sub/e.txt', 'lista/otra/f.txt']) {
        await files.upload(name, Buffer.from(name))
      }
      const { data: level } = await files.list('lista')
      assert.deepEqual(level.map((e) => e.name), ['A.txt', 'b.txt', 'c.txt', 'otra', 'sub'])
      const folder = level.find((e) => e.name === 'sub')
      assert.deepEqual(folder, { name: 'sub', id: null, updated_at: null, created_at: null, last_accessed_at: null, metadata: null })
      const file = level.find((e) => e.name === 'b.txt')
      assert.equal(file.metadata.size, 'lista/b.txt'.length)
      const { data: paged } = await files.list('lista', { limit: 2, offset: 1 })
      assert.deepEqual(paged.map((e) => e.name), ['b.txt', 'c.txt'])
      const { data: desc } = await files.list('lista', { sortBy: { column: 'name', order: 'desc' } })
      assert.deepEqual(desc.map((e) => e.name), ['sub', 'otra', 'c.txt', 'b.txt', 'A.txt'])
      const { data: searched } = await files.list('lista', { search: 'a' })
      assert.deepEqual(searched.map((e) => e.name), ['A.txt'])
      const { data: nothing } = await files.list('no/such/folder')
      assert.deepEqual(nothing, [])

      const flat = await files.listV2({ prefix: 'lista/' })
      assert.equal(flat.error, null)
      assert.equal(flat.data.objects.length, 6)
      assert.deepEqual(flat.data.folders, [])
      const folded = await files.listV2({ prefix: 'lista/', with_delimiter: true })
      assert.equal(folded.error, null)
      assert.deepEqual(folded.data.folders.map((f) => f.name), ['lista/otra/', 'lista/sub/'])
      assert.deepEqual(folded.data.objects.map((o) => o.key), ['A.txt', 'b.txt', 'c.txt'])
      const names = []
      let cursor
      for (let page = 0; page < 10; page += 1) {
        const { data } = await files.listV2({ prefix: 'lista/', limit: 2, cursor, sortBy: { column: 'created_at', order: 'desc' } })
        names.push(...data.objects.map((o) => o.name))
        if (!data.hasNext) break
        cursor = data.nextCursor
      }
      assert.equal(names.length, 6)
      assert.deepEqual([...names].reverse(), ['lista/b.txt', 'lista/A.txt', 'lista/c.txt', 'lista/sub/d.txt', 'lista/sub/e.txt', 'lista/otra/f.txt'])
    })

    test('remove, move and copy within and across buckets', async () => {
      const files = service.storage.from('planes')
      await files.upload('mover/origen.txt', Buffer.from('contenido'))
      const moved = await files.move('mover/origen.txt', 'mover/destino.txt')
      assert.deepEqual(moved, { data: { message: 'Successfully moved' }, error: null })
      assert.equal((await files.exists('mover/origen.txt')).data, false)
      assert.equal(await (await files.download('mover/destino.txt')).data.text(), 'contenido')
      const across = await files.move('mover/destino.txt', 'llegada.txt', { destinationBucket: 'publico' })
      assert.equal(across.error, null)
      assert.equal(await (await service.storage.from('publico').download('llegada.txt')).data.text(), 'contenido')
      const missing = await files.move('mover/no-existe.txt', 'x.txt')
      assert.equal(missing.error.message, 'Object not found')

      const copied = await service.storage.from('publico').copy('llegada.txt', 'copias/llegada.txt')
      assert.deepEqual(copied.data, { path: 'publico/copias/llegada.txt' })
      const across2 = await service.storage.from('publico').copy('llegada.txt', 'copia.txt', { destinationBucket: 'planes' })
      assert.equal(across2.error, null)
      assert.equal(await (await files.download('copia.txt')).data.text(), 'contenido')
      const dup = await service.storage.from('publico').copy('llegada.txt', 'copias/llegada.txt')
      assert.equal(dup.error.message, 'The resource already exists')

      const removed = await service.storage.from('publico').remove(['llegada.txt', 'copias/llegada.txt', 'no-existe.txt'])
      assert.equal(removed.error, null)
      assert.deepEqual(removed.data.map((row) => row.name).sort(), ['copias/llegada.txt', 'llegada.txt'])
      assert.ok(removed.data.every((row) => row.bucket_id === 'publico' && typeof row.id === 'string'))
      assert.equal((await service.storage.from('publico').exists('llegada.txt')).data, false)
      assert.equal((await storedFiles()).filter((path) => path.startsWith('publico/llegada.txt/')).length, 0)
    })

    test('signed URLs: single and bulk, expiry, tampering, signed uploads', async () => {
      const files = service.storage.from('planes')
      await files.upload('firmas/guia.txt', Buffer.from('guía'))
      const { data: one } = await files.createSignedUrl('firmas/guia.txt', 60)
      assert.ok(one.signedUrl.startsWith(`${gateway.url}/storage/v1/object/sign/planes/firmas/guia.txt?token=`))
      assert.equal(await (await fetch(one.signedUrl)).text(), 'guía')

      const { data: many } = await files.createSignedUrls(['firmas/guia.txt', 'firmas/nada.txt'], 60)
      assert.equal(many[0].error, null)
      assert.equal(many[1].error, 'Either the object does not exist or you do not have access to it')
      assert.equal(many[1].signedUrl, null)
      const missing = await files.createSignedUrl('firmas/nada.txt', 60)
      assert.equal(missing.error.message, 'Object not found')

      // A token for one object does not open another, nor does a changed signature.
      const token = new URL(one.signedUrl).searchParams.get('token')
      await files.upload('firmas/secreto.txt', Buffer.from('secreto'))
      const other = await fetch(`${gateway.url}/storage/v1/object/sign/planes/firmas/secreto.txt?token=${token}`)
      assert.equal(other.status, 400)
      assert.equal((await other.json()).message, 'Invalid signature')
      const tampered = await fetch(one.signedUrl.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))
      assert.equal((await tampered.json()).code, 'InvalidJWT')

      const { data: short } = await files.createSignedUrl('firmas/guia.txt', 1)
      await wait(2100)
      const expired = await fetch(short.signedUrl)
      assert.equal(expired.status, 400)
      assert.equal((await expired.json()).message, '"exp" claim timestamp check failed')

      const { data: upload } = await files.createSignedUploadUrl('firmas/subida.txt')
      assert.ok(upload.signedUrl.startsWith(`${gateway.url}/storage/v1/object/upload/sign/planes/firmas/subida.txt?token=`))
      const put = await anonymous.storage.from('planes').uploadToSignedUrl('firmas/subida.txt', upload.token, Buffer.from('subida firmada'))
      assert.deepEqual(put, { data: { path: 'firmas/subida.txt', fullPath: 'planes/firmas/subida.txt' }, error: null })
      const twice = await anonymous.storage.from('planes').uploadToSignedUrl('firmas/subida.txt', upload.token, Buffer.from('otra vez'))
      assert.equal(twice.error.message, 'The resource already exists')
      assert.equal(await (await files.download('firmas/subida.txt')).data.text(), 'subida firmada')
      const downloadToken = await fetch(`${gateway.url}/storage/v1/object/upload/sign/planes/firmas/x.txt?token=${token}`, { method: 'PUT', body: 'x' })
      assert.equal((await downloadToken.json()).code, 'InvalidSignature')
    })

    test('RLS: a teacher reads and writes only her own folder; public vs private', async () => {
      const mine = ana.storage.from('planes')
      const ok = await mine.upload(`${ANA}/planificacion.txt`, Buffer.from('de Ana'))
      assert.equal(ok.error, null)
      const intrude = await mine.upload(`${BETO}/planificacion.txt`, Buffer.from('de Ana en la carpeta de Beto'))
      assert.equal(intrude.error.message, 'new row violates row-level security policy')
      assert.equal(intrude.error.statusCode, '403')
      const root = await mine.upload('suelto.txt', Buffer.from('x'))
      assert.equal(root.error.statusCode, '403')

      assert.equal(await (await mine.download(`${ANA}/planificacion.txt`)).data.text(), 'de Ana')
      const betoReads = await beto.storage.from('planes').download(`${ANA}/planificacion.txt`)
      assert.ok(betoReads.error)
      assert.deepEqual((await beto.storage.from('planes').list(ANA)).data, [])
      assert.deepEqual((await mine.list(ANA)).data.map((e) => e.name), ['planificacion.txt'])
      const betoSigns = await beto.storage.from('planes').createSignedUrl(`${ANA}/planificacion.txt`, 60)
      assert.equal(betoSigns.error.message, 'Object not found')
      const betoRemoves = await beto.storage.from('planes').remove([`${ANA}/planificacion.txt`])
      assert.deepEqual(betoRemoves.data, [])
      const betoMoves = await beto.storage.from('planes').move(`${ANA}/planificacion.txt`, `${BETO}/robado.txt`)
      assert.equal(betoMoves.error.message, 'Object not found')
      assert.equal((await mine.exists(`${ANA}/planificacion.txt`)).data, true)
      const owner = await service.storage.from('planes').info(`${ANA}/planificacion.txt`)
      assert.equal(owner.error, null)

      // Public bucket: anyone reads through the public URL; a private one never.
      await service.storage.from('publico').upload('afiche.txt', Buffer.from('abierto'))
      const { data: { publicUrl } } = anonymous.storage.from('publico').getPublicUrl('afiche.txt')
      assert.equal(publicUrl, `${gateway.url}/storage/v1/object/public/publico/afiche.txt`)
      assert.equal(await (await fetch(publicUrl)).text(), 'abierto')
      const privateUrl = anonymous.storage.from('planes').getPublicUrl(`${ANA}/planificacion.txt`).data.publicUrl
      const refused = await fetch(privateUrl)
      assert.equal(refused.status, 400)
      assert.equal((await refused.json()).message, 'Bucket not found')
      const anonDownload = await anonymous.storage.from('planes').download(`${ANA}/planificacion.txt`)
      assert.ok(anonDownload.error)
      const anonUpload = await anonymous.storage.from('publico').upload('anon.txt', Buffer.from('x'))
      assert.equal(anonUpload.error.statusCode, '403')

      // Policies see Supabase's operation names (storage.operation()).
      await service.storage.from('planes').upload('compartido/horario.txt', Buffer.from('horario'))
      assert.deepEqual((await beto.storage.from('planes').list('compartido')).data.map((e) => e.name), ['horario.txt'])
      assert.ok((await beto.storage.from('planes').download('compartido/horario.txt')).error)

      // A bucket made private stops serving public URLs at once.
      assert.equal((await service.storage.updateBucket('publico', { public: false })).error, null)
      const closed = await fetch(publicUrl)
      assert.equal(closed.status, 400)
      assert.equal((await closed.json()).message, 'Bucket not found')
      assert.equal((await service.storage.updateBucket('publico', { public: true })).error, null)
      assert.equal(await (await fetch(publicUrl)).text(), 'abierto')
    })

    test('bad input: traversal, control characters, types, limits while streaming', async () => {
      const auth = { authorization: `Bearer ${gateway.serviceRoleKey}`, 'content-type': 'text/plain' }
      for (const path of ['../../etc/passwd', 'a/../../b.txt', 'a/./b.txt', 'tab%09name.txt', 'nul%00.txt', 'a//b.txt']) {
        const response = await rawRequest(gateway, 'POST', `/storage/v1/object/planes/${path}`, { headers: auth, body: 'x' })
        assert.equal(response.status, 400, path)
        assert.equal(response.json?.code, 'InvalidKey', `${path}: ${response.text}`)
      }
      const long = await service.storage.from('planes').upload(`${'x'.repeat(1100)}.txt`, Buffer.from('x'))
      assert.equal(long.error.message.startsWith('Invalid key'), true)

      const photos = service.storage.from('fotos')
      const wrongType = await photos.upload('nota.txt', Buffer.from('no soy imagen'), { contentType: 'text/plain' })
      assert.equal(wrongType.error.message, 'mime type text/plain is not supported')
      assert.equal(wrongType.error.statusCode, '415')
      const image = await photos.upload('aula.jpg', photo, { contentType: 'image/jpeg' })
      assert.equal(image.error, null)
      const overBucket = await photos.upload('grande.jpg', randomBytes(1_100_000), { contentType: 'image/jpeg' })
      assert.equal(overBucket.error.message, 'The object exceeded the maximum allowed size')
      assert.equal(overBucket.error.statusCode, '413')

      // Over the global limit without a Content-Length: refused while streaming.
      const { Readable } = await import('node:stream')
      const chunks = Array.from({ length: 10 }, () => randomBytes(1024 * 1024))
      const overGlobal = await service.storage.from('planes').upload('enorme.bin', Readable.from(chunks), { duplex: 'half', contentType: 'application/octet-stream' })
      assert.equal(overGlobal.error?.statusCode, '413')
      assert.equal((await service.storage.from('planes').exists('enorme.bin')).data, false)
      assert.deepEqual(stagingFiles(), [])
      assert.equal((await storedFiles()).filter((path) => path.includes('enorme.bin')).length, 0)
    })

    test('a client that disconnects mid-upload leaves nothing behind', async () => {
      const { port } = new URL(gateway.url)
      await new Promise((resolve) => {
        const request = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/storage/v1/object/planes/cortado.bin',
          headers: { authorization: `Bearer ${gateway.serviceRoleKey}`, 'content-type': 'application/octet-stream', 'content-length': String(4 * 1024 * 1024) },
        })
        request.on('error', () => resolve())
        request.write(randomBytes(1024 * 1024), () => {
          setTimeout(() => { request.destroy(); resolve() }, 200)
        })
      })
      await wait(500)
      assert.equal((await service.storage.from('planes').exists('cortado.bin')).data, false)
      assert.deepEqual(stagingFiles(), [])
      assert.equal((await storedFiles()).filter((path) => path.includes('cortado.bin')).length, 0)
    })

    test('resumable uploads with tus-js-client, resumed from their offset', async () => {
      const bytes = randomBytes(7 * 1024 * 1024 + 123)
      const endpoint = `${gateway.url}/storage/v1/upload/resumable`
      const options = {
        endpoint,
        headers: { authorization: `Bearer ${anaToken}`, 'x-upsert': 'true' },
        uploadDataDuringCreation: true,
        removeFingerprintOnSuccess: true,
        chunkSize: 6 * 1024 * 1024,
        retryDelays: [],
        metadata: { bucketName: 'planes', objectName: `${ANA}/video-clase.mp4`, contentType: 'video/mp4', cacheControl: '3600' },
      }
      // First attempt: cut off part-way through the first chunk.
      const first = await new Promise((resolve, reject) => {
        const upload = new tus.Upload(bytes, {
          ...options,
          onProgress: (sent) => {
            if (sent > 2 * 1024 * 1024 && !upload.aborted) {
              upload.aborted = true
              upload.abort().then(() => resolve(upload.url), reject)
            }
          },
          onError: reject,
          onSuccess: () => reject(new Error('should have been cut off')),
        })
        upload.start()
      })
      assert.match(first, /\/storage\/v1\/upload\/resumable\/[A-Za-z0-9_-]+$/)
      await wait(300)
      const head = await fetch(first, { method: 'HEAD', headers: { authorization: `Bearer ${anaToken}`, 'tus-resumable': '1.0.0' } })
      assert.equal(head.status, 200)
      const offset = Number(head.headers.get('upload-offset'))
      assert.ok(offset > 0 && offset < bytes.length, `offset ${offset}`)
      assert.equal(head.headers.get('upload-length'), String(bytes.length))
      // Someone else cannot see or continue it.
      const betoHead = await fetch(first, { method: 'HEAD', headers: { authorization: `Bearer ${userToken(gateway, BETO, 'beto@liceo.cl')}`, 'tus-resumable': '1.0.0' } })
      assert.equal(betoHead.status, 404)

      let resumedFrom
      await new Promise((resolve, reject) => {
        const upload = new tus.Upload(bytes, {
          ...options,
          uploadUrl: first,
          onProgress: (sent) => { resumedFrom ??= sent },
          onError: reject,
          onSuccess: resolve,
        })
        upload.start()
      })
      assert.ok(resumedFrom >= offset, 'continued from the stored offset, not from the start')
      const { data } = await ana.storage.from('planes').download(`${ANA}/video-clase.mp4`)
      const stored = Buffer.from(await data.arrayBuffer())
      assert.equal(stored.length, bytes.length)
      assert.equal(md5(stored), md5(bytes))
      assert.equal((await ana.storage.from('planes').info(`${ANA}/video-clase.mp4`)).data.contentType, 'video/mp4')

      // The same checks as a plain upload: another teacher's folder, sizes, buckets.
      const refused = await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${anaToken}`,
          'tus-resumable': '1.0.0',
          'upload-length': '10',
          'upload-metadata': `bucketName ${Buffer.from('planes').toString('base64')},objectName ${Buffer.from(`${BETO}/x.bin`).toString('base64')}`,
        },
      })
      assert.equal(refused.status, 403)
      assert.equal(await refused.text(), 'new row violates row-level security policy')
      const tooLong = await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${anaToken}`,
          'tus-resumable': '1.0.0',
          'upload-length': String(100 * 1024 * 1024),
          'upload-metadata': `bucketName ${Buffer.from('planes').toString('base64')},objectName ${Buffer.from(`${ANA}/y.bin`).toString('base64')}`,
        },
      })
      assert.equal(tooLong.status, 413)
      const noTus = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${anaToken}` } })
      assert.equal(noTus.status, 412)

      // With a signed upload token instead of a session (x-signature), as Supabase documents.
      const { data: signed } = await ana.storage.from('planes').createSignedUploadUrl(`${ANA}/firmado.bin`)
      const small = randomBytes(100_000)
      await new Promise((resolve, reject) => {
        new tus.Upload(small, {
          endpoint: `${endpoint}/sign`,
          headers: { 'x-signature': signed.token },
          uploadDataDuringCreation: true,
          chunkSize: 6 * 1024 * 1024,
          retryDelays: [],
          metadata: { bucketName: 'planes', objectName: `${ANA}/firmado.bin`, contentType: 'application/octet-stream' },
          onError: reject,
          onSuccess: resolve,
        }).start()
      })
      const signedBytes = Buffer.from(await (await ana.storage.from('planes').download(`${ANA}/firmado.bin`)).data.arrayBuffer())
      assert.equal(md5(signedBytes), md5(small))
      const wrongObject = await fetch(`${endpoint}/sign`, {
        method: 'POST',
        headers: {
          'x-signature': signed.token,
          'tus-resumable': '1.0.0',
          'upload-length': '10',
          'upload-metadata': `bucketName ${Buffer.from('planes').toString('base64')},objectName ${Buffer.from(`${ANA}/otro.bin`).toString('base64')}`,
        },
      })
      assert.equal(wrongObject.status, 400)
      assert.equal(await wrongObject.text(), 'Invalid signature')
    })

    test('image transformations: dimensions and format, signed and public renders', async () => {
      const photos = service.storage.from('publico')
      await photos.upload('aula.jpg', photo, { contentType: 'image/jpeg' })
      assert.deepEqual(imageSize(photo), { kind: 'jpeg', width: 1024, height: 768 })

      const { data: cover } = await photos.download('aula.jpg', { transform: { width: 256, height: 256 } })
      assert.equal(cover.type, 'image/jpeg')
      assert.deepEqual(imageSize(await cover.arrayBuffer()), { kind: 'jpeg', width: 256, height: 256 })

      const contain = await fetch(photos.getPublicUrl('aula.jpg', { transform: { width: 256, height: 256, resize: 'contain' } }).data.publicUrl)
      assert.equal(contain.status, 200)
      assert.deepEqual(imageSize(await contain.arrayBuffer()), { kind: 'jpeg', width: 256, height: 192 })

      const webp = await fetch(photos.getPublicUrl('aula.jpg', { transform: { width: 256, format: 'webp' } }).data.publicUrl)
      assert.equal(webp.headers.get('content-type'), 'image/webp')
      assert.equal(webp.headers.get('x-transformations'), 'width:256,resizing_type:fill,format:webp')
      assert.deepEqual(imageSize(await webp.arrayBuffer()), { kind: 'webp', width: 256, height: 192 })

      const byAccept = await fetch(photos.getPublicUrl('aula.jpg', { transform: { width: 100 } }).data.publicUrl, { headers: { accept: 'image/webp,image/*' } })
      assert.equal(byAccept.headers.get('content-type'), 'image/webp')
      await byAccept.arrayBuffer()

      const { data: signed } = await photos.createSignedUrl('aula.jpg', 60, { transform: { width: 200, height: 200, quality: 60 } })
      assert.match(signed.signedUrl, /\/storage\/v1\/render\/image\/sign\/publico\/aula\.jpg\?token=/)
      const rendered = await fetch(signed.signedUrl)
      assert.equal(rendered.status, 200)
      assert.equal(rendered.headers.get('x-transformations'), 'height:200,width:200,resizing_type:fill,quality:60')
      assert.deepEqual(imageSize(await rendered.arrayBuffer()), { kind: 'jpeg', width: 200, height: 200 })

      const huge = await fetch(photos.getPublicUrl('aula.jpg', { transform: { width: 5000 } }).data.publicUrl)
      assert.deepEqual(imageSize(await huge.arrayBuffer()).width, 1024, 'never enlarged')
      await photos.upload('no-imagen.jpg', Buffer.from('texto'), { contentType: 'image/jpeg' })
      const broken = await fetch(photos.getPublicUrl('no-imagen.jpg', { transform: { width: 10 } }).data.publicUrl)
      assert.equal(broken.status, 400)
      assert.equal((await broken.json()).message, 'The source image is invalid or unsupported for rendering')
    })
  })
}
