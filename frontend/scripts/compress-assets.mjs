// Writes `x.br` (brotli, quality 11) and `x.gz` (gzip, level 9) beside every JS, CSS and SVG
// file of the build's assets, once, so the gateway sends them as they are instead of
// compressing each response at its fast levels (gateway/src/web.rs).
//   node scripts/compress-assets.mjs [distDir]

import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const assets = join(resolve(process.argv[2] ?? 'dist'), 'assets')
let files = 0
for (const name of readdirSync(assets)) {
  if (!/\.(js|css|svg)$/.test(name)) continue
  const source = readFileSync(join(assets, name))
  writeFileSync(
    join(assets, `${name}.br`),
    brotliCompressSync(source, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: source.length,
      },
    }),
  )
  writeFileSync(join(assets, `${name}.gz`), gzipSync(source, { level: 9 }))
  files += 1
}
console.log(`Compressed ${files} assets (brotli 11, gzip 9).`)
