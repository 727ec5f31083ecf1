#!/usr/bin/env bash
# functions-js compatibility oracle: runs the official functions-js test suite (supabase/supabase-js
# monorepo, packages/core/functions-js/test) against a Cielo gateway's functions/v1.
#
#   scripts/oracle/functions-js.sh                          # whole suite
#   scripts/oracle/functions-js.sh test/spec/params.spec.ts # extra args go to jest (path, -t NAME)
#
# Setup: takes packages/core/functions-js and tsconfig.base.json at SUPABASE_JS_REV from
# SUPABASE_JS_DIR (an existing clone, bare or not) or a partial clone of SUPABASE_JS_URL in the
# work directory, writes a standalone package.json (the monorepo's pinned test toolchain, Node
# 22) and npm-installs it. Nothing of it enters the Cielo repository.
#
# The suite starts each of its functions (test/functions/<name>/index.ts) in a Docker container
# of the old supabase/deno-relay through `testcontainers`, and calls http://localhost:<mapped
# port>/<name>. Here no Docker is needed: a stand-in `testcontainers` package, written into the
# work directory's node_modules, makes the suite's own helper (test/relay/container.ts, run
# unchanged, health check included) "start" a loopback relay in the Jest process that forwards
# /<path> to the gateway's /functions/v1/<path>. Like the deno-relay's hop to its function
# (DENO_ORIGIN, http://localhost:8000 in the suite), the relay sends Host: localhost:8000, so a
# function's request.url has the origin the suite expects; method, path, query, headers and
# body pass unchanged. No test, function or assertion is changed.
#
# Gateway: a fresh embedded cluster in /tmp, FUNCTIONS_DIR = a copy of test/functions, Deno from
# functions/runtime (DENO_PATH). Two environment adaptations, reported in results.md:
#   - verify_jwt = false for the suite's functions (config.toml): the suite signs its tokens
#     with a random 10-character secret per file, and Cielo's JWT_SECRET must have at least 32
#     characters, so the gateway cannot check them (`supabase functions serve --no-verify-jwt`).
#   - The functions import https://deno.land/std/http/server.ts (unversioned). Unless
#     REMOTE_STD=1, that URL is put in the gateway's Deno module cache (DATA_DIR/functions/deno)
#     as a stand-in whose serve(handler) is Deno.serve(handler): no network is needed, and
#     std's old serve() is built on Deno.serveHttp, which Deno 2 removed.
#
# Jest runs with --ci --runInBand (never -u) and the package's jest.config.ts. Writes
# results.json, results.md and logs/ (gateway, relay.log with every relayed exchange, jest) to
# the work directory and prints the per-file table. Exit status: Jest's (0 only if every test
# passed); 2 for harness problems.
#
# Environment:
#   CIELO_BIN          gateway binary (default <repo>/target/debug/cielo; never built here)
#   CIELO_ORACLE_DIR   work directory (default $HOME/.cache/cielo-oracle-functions-js)
#   SUPABASE_JS_DIR    existing supabase-js git repository to read from instead of cloning
#   SUPABASE_JS_URL    what to clone otherwise (default https://github.com/supabase/supabase-js)
#   SUPABASE_JS_REV    supabase-js revision (default: the pinned 381bded5, see DEFAULT_REV)
#   DENO_PATH          Deno binary (default <repo>/functions/runtime/node_modules/@deno/*/deno)
#   ORACLE_API_PORT    gateway API port (default: a free port)
#   ORACLE_DB_PORT     embedded cluster port (default: a free port)
#   REMOTE_STD=1       let Deno fetch deno.land/std instead of the stand-in (needs the network)
#   KEEP_DATA=1        keep the temporary gateway data directory
#   STARTUP_TIMEOUT    seconds to wait for the gateway (default 180)
#   LOG_LEVEL          gateway log level (default info)
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"

case "${1:-}" in
  -h | --help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
esac

# supabase-js master of 2026-08-07, the revision of the other oracles (postgrest-js.sh, auth-js.sh).
DEFAULT_REV=381bded5ced48c4621830576bf8cbecc34edc85c
REV="${SUPABASE_JS_REV:-$DEFAULT_REV}"
UPSTREAM_URL="${SUPABASE_JS_URL:-https://github.com/supabase/supabase-js}"
WORK="${CIELO_ORACLE_DIR:-${HOME:?set HOME or CIELO_ORACLE_DIR}/.cache/cielo-oracle-functions-js}"
CIELO_BIN="${CIELO_BIN:-$REPO/target/debug/cielo}"
SUB=packages/core/functions-js
JWT_SECRET="functions-js-oracle-jwt-secret-0123456789abcdef"   # fixed, >= 32 chars
STARTUP_TIMEOUT="${STARTUP_TIMEOUT:-180}"

# shellcheck source=scripts/oracle/lib.sh
source "$HERE/lib.sh"

# ---------------------------------------------------------------- preflight
if [ ! -f "$CIELO_BIN" ] || [ ! -x "$CIELO_BIN" ]; then
  die "gateway binary not found: $CIELO_BIN
Build it first:  (cd $REPO && cargo build --bin cielo)   or set CIELO_BIN=/path/to/cielo"
fi
CIELO_BIN="$(cd "$(dirname "$CIELO_BIN")" && pwd)/$(basename "$CIELO_BIN")"
for tool in git npm tar sha256sum; do
  command -v "$tool" >/dev/null || die "$tool not found"
done
if [ -z "${DENO_PATH:-}" ]; then
  for candidate in "$REPO"/functions/runtime/node_modules/@deno/*/deno; do
    [ -x "$candidate" ] && DENO_PATH="$candidate" && break
  done
fi
if [ -z "${DENO_PATH:-}" ] || [ ! -x "$DENO_PATH" ]; then
  die "no Deno binary: run  scripts/npm-install.sh functions/runtime  (or set DENO_PATH)"
fi

mkdir -p "$WORK" || die "cannot create $WORK"
WORK="$(cd "$WORK" && pwd)"
PKG="$WORK/pkg"
PKGDIR="$PKG/$SUB"
LOGS="$WORK/logs"
RESULTS_JSON="$WORK/results.json"
RESULTS_MD="$WORK/results.md"

# ---------------------------------------------------------------- setup: upstream sources
checkout_upstream
# Re-extracted on every run, so the tests are always pristine (node_modules is kept).
rm -rf "$PKG/packages" "$PKG/tsconfig.base.json"
mkdir -p "$PKG"
git -C "$SRC" archive "$FULL_REV" "$SUB" tsconfig.base.json | tar -x -C "$PKG" \
  || die "extracting $SUB from $SRC failed"
echo "$FULL_REV" >"$PKG/SUPABASE_JS_COMMIT"
[ -f "$PKGDIR/test/relay/container.ts" ] || die "$SUB/test/relay/container.ts not found at $REV"

# ---------------------------------------------------------------- setup: test toolchain
# The versions pnpm-lock.yaml resolves for packages/core/functions-js at the pinned revision,
# plus ts-node (Jest reads jest.config.ts with it) and Node 22 from npm's "node" package (the
# package declares engines.node >= 22). testcontainers is the stand-in written below; openai
# and typedoc are not used by the tests.
PACKAGE_JSON='{
  "name": "functions-js-oracle",
  "private": true,
  "description": "Standalone test harness for supabase-js packages/core/functions-js (Cielo compatibility oracle)",
  "devDependencies": {
    "@jest/types": "30.4.1",
    "@types/jest": "30.0.0",
    "@types/jsonwebtoken": "8.5.9",
    "@types/node": "20.19.9",
    "jest": "30.4.2",
    "jsonwebtoken": "9.0.3",
    "nanoid": "3.3.12",
    "node": "22.23.3",
    "ts-jest": "29.4.9",
    "ts-node": "10.9.2",
    "tslib": "2.8.1",
    "typescript": "5.8.3"
  }
}'
STAMP="$PKG/node_modules/.cielo-oracle-package.json"
if [ ! -d "$PKG/node_modules/jest" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$PACKAGE_JSON" ]; then
  printf '%s\n' "$PACKAGE_JSON" >"$PKG/package.json"
  say "npm install in $PKG"
  (cd "$PKG" && npm install --no-audit --no-fund --loglevel=error) || die "npm install failed in $PKG"
  printf '%s' "$PACKAGE_JSON" >"$STAMP"
fi
NODE="$PKG/node_modules/.bin/node"
if [ ! -x "$NODE" ]; then
  NODE="$(command -v node)" || die "node not found"
  warn "node@22 from npm is missing; using $NODE $("$NODE" --version)"
fi

# The stand-in for `testcontainers` (written on every run: npm install prunes it). Only what
# test/relay/container.ts uses: a "container" is a loopback relay to the gateway's
# functions/v1 (ORACLE_FUNCTIONS_URL), its mapped port the relay's port; exec() does nothing
# (the gateway starts the function's Deno worker on the first request).
TC="$PKG/node_modules/testcontainers"
rm -rf "$TC"
mkdir -p "$TC/dist/docker"
printf '%s\n' '{ "name": "testcontainers", "version": "0.0.0-cielo-oracle", "main": "index.js", "types": "index.d.ts" }' >"$TC/package.json"
printf '%s\n' 'export interface ExecResult { output: string; exitCode: number }' >"$TC/dist/docker/types.d.ts"
printf '%s\n' '"use strict";' >"$TC/dist/docker/types.js"
cat >"$TC/index.d.ts" <<'EOF'
import { ExecResult } from './dist/docker/types'
export interface StartedTestContainer {
  getMappedPort(port: number): number
  exec(command: string[]): Promise<ExecResult>
  stop(options?: { timeout?: number }): Promise<void>
}
export declare class GenericContainer {
  constructor(image: string)
  withName(name: string): this
  withBindMount(source: string, target: string, mode?: string): this
  withNetworkMode(mode: string): this
  withExposedPorts(...ports: number[]): this
  withWaitStrategy(strategy: unknown): this
  withStartupTimeout(ms: number): this
  withReuse(): this
  withEnv(key: string, value: string): this
  start(): Promise<StartedTestContainer>
}
export declare class Network {
  constructor(options?: { name?: string })
  start(): Promise<{ getName(): string; stop(): Promise<void> }>
}
export declare const Wait: { forLogMessage(message: string): unknown }
EOF
cat >"$TC/index.js" <<'EOF'
'use strict'
// Stand-in for testcontainers, written by scripts/oracle/functions-js.sh (Cielo oracle).
const http = require('node:http')
const fs = require('node:fs')

function log(line) {
  if (process.env.ORACLE_RELAY_LOG) fs.appendFileSync(process.env.ORACLE_RELAY_LOG, line + '\n')
}

class GenericContainer {
  constructor(image) { this.image = image; this.env = {}; this.name = image }
  withName(name) { this.name = name; return this }
  withBindMount() { return this }
  withNetworkMode() { return this }
  withExposedPorts() { return this }
  withWaitStrategy() { return this }
  withStartupTimeout() { return this }
  withReuse() { return this }
  withEnv(key, value) { this.env[key] = value; return this }
  async start() {
    const target = new URL(process.env.ORACLE_FUNCTIONS_URL)
    const origin = new URL(this.env.DENO_ORIGIN || 'http://localhost:8000')
    const name = this.name
    const server = http.createServer((request, response) => {
      const path = target.pathname.replace(/\/$/, '') + request.url
      const upstream = http.request(
        {
          host: target.hostname, port: target.port, method: request.method, path,
          headers: { ...request.headers, host: origin.host },
        },
        (reply) => {
          log(`${name}: ${request.method} ${request.url} -> ${reply.statusCode}` +
            ` x-relay-error=${reply.headers['x-relay-error'] ?? '-'} sb-error-code=${reply.headers['sb-error-code'] ?? '-'}`)
          response.writeHead(reply.statusCode ?? 502, reply.headers)
          reply.pipe(response)
        },
      )
      upstream.on('error', (error) => {
        log(`${name}: ${request.method} ${request.url} -> relay error: ${error.message}`)
        if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' })
        response.end(`relay stand-in: ${error.message}`)
      })
      // A client that gives up (timeout, abort) cancels the request to the gateway.
      response.on('close', () => { if (!response.writableFinished) upstream.destroy() })
      request.pipe(upstream)
    })
    // "localhost" may resolve to ::1 or 127.0.0.1: listen on both when IPv6 is there.
    await new Promise((resolve, reject) => {
      server.once('error', () => {
        server.once('error', reject)
        server.listen({ port: 0, host: '127.0.0.1' }, resolve)
      })
      server.listen({ port: 0, host: '::', ipv6Only: false }, resolve)
    })
    const port = server.address().port
    log(`${name}: relay on :${port} -> ${target.href} (Host: ${origin.host}; suite's JWT_SECRET ${this.env.JWT_SECRET ?? '-'} not applied)`)
    return {
      getMappedPort: () => port,
      exec: async () => ({ output: '', exitCode: 0 }),
      stop: async () => {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(() => resolve()))
      },
    }
  }
}

class Network {
  constructor(options = {}) { this.name = options.name || 'network' }
  async start() { return { getName: () => this.name, stop: async () => {} } }
}

const Wait = { forLogMessage: (message) => ({ message }) }

module.exports = { GenericContainer, Network, Wait }
EOF

# ---------------------------------------------------------------- gateway
# /tmp, not the work directory: when run as root the embedded cluster runs as the
# unprivileged postgres user, which must be able to reach its data directory.
RUN_DIR="$(mktemp -d /tmp/cielo-functions-oracle.XXXXXX)" || die "mktemp failed"
chmod 755 "$RUN_DIR"
DATA_DIR="$RUN_DIR/data"
PROJECT="$RUN_DIR/supabase"
mkdir -p "$DATA_DIR" "$PROJECT" "$LOGS"
chmod 755 "$DATA_DIR"
rm -f "$LOGS"/* "$RESULTS_JSON" "$RESULTS_MD"

# The suite's functions as a Supabase project lays them out: supabase/functions/<name>/ and
# supabase/config.toml beside it.
cp -R "$PKGDIR/test/functions" "$PROJECT/functions" || die "copying test/functions failed"
chmod -R a+rX "$PROJECT"
FUNCTION_NAMES=()
for dir in "$PROJECT"/functions/*/; do
  name="$(basename "$dir")"
  case "$name" in _*) continue ;; esac
  FUNCTION_NAMES+=("$name")
  printf '[functions.%s]\nverify_jwt = false\n\n' "$name" >>"$PROJECT/config.toml"
done
say "functions: ${FUNCTION_NAMES[*]} (verify_jwt = false)"

STD_URL="https://deno.land/std/http/server.ts"
if [ "${REMOTE_STD:-0}" != 1 ]; then
  # Deno's HTTP cache entry: remote/<scheme>/<host>/<sha256 of the path>, the module
  # followed by its metadata line.
  cache_dir="$DATA_DIR/functions/deno/remote/https/deno.land"
  mkdir -p "$cache_dir"
  hash="$(printf '%s' "/std/http/server.ts" | sha256sum | cut -d' ' -f1)"
  {
    cat <<'EOF'
// Stand-in for https://deno.land/std/http/server.ts, put in the Deno module cache by
// scripts/oracle/functions-js.sh (Cielo oracle): serve(handler) is Deno.serve(handler).
export type Handler = (request: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;
export function serve(handler: Handler): Promise<void> {
  return Deno.serve((request, info) => handler(request, info)).finished;
}
EOF
    printf '\n// denoCacheMetadata={"headers":{"content-type":"application/typescript; charset=utf-8"},"url":"%s","time":%s}' \
      "$STD_URL" "$(date +%s)"
  } >"$cache_dir/$hash"
  chmod -R a+rX "$DATA_DIR/functions"
  STD_NOTE="$STD_URL served from the Deno cache by a stand-in (serve(handler) = Deno.serve(handler))"
else
  STD_NOTE="$STD_URL fetched by Deno (REMOTE_STD=1)"
fi
other_remote="$(grep -rhoE "https?://[^'\"]+" "$PROJECT/functions" | sort -u | grep -vxF "$STD_URL")"
[ -n "$other_remote" ] && warn "the functions import other remote modules (need the network): $other_remote"

free_port() {
  "$NODE" -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })'
}
API_PORT="${ORACLE_API_PORT:-$(free_port)}"
DB_PORT="${ORACLE_DB_PORT:-$(free_port)}"
[ "$API_PORT" != "$DB_PORT" ] || DB_PORT="$(free_port)"

# A clean environment (no DATABASE_URL or keys from the caller), run from an empty directory
# so no .env file is picked up.
GW_ENV=(
  env -i
  PATH="$PATH" HOME="${HOME:-/root}" LANG=C.UTF-8
  DATA_DIR="$DATA_DIR" API_HOST=127.0.0.1 API_PORT="$API_PORT" DB_PORT="$DB_PORT"
  JWT_SECRET="$JWT_SECRET" WEB_DIR="$RUN_DIR/no-web" SEED_DEMO=false
  API_KEY_REQUIRED=false   # like the Supabase CLI's local stack
  FUNCTIONS_DIR="$PROJECT/functions" DENO_PATH="$DENO_PATH"
  LOG_LEVEL="${LOG_LEVEL:-info}"
)

# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
  end_run
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_gateway
API_URL="$(sed -n 's/^API_URL="\(.*\)"$/\1/p' <<<"$STATUS_ENV")"
[ -n "$API_URL" ] || die "no API_URL in 'cielo status -o env'"
# 127.0.0.1, the address the gateway listens on ("localhost" may resolve to ::1 first).
FUNCTIONS_URL="http://127.0.0.1:$API_PORT/functions/v1"
say "gateway is up (pid $GW_PID, $API_URL); relays forward to $FUNCTIONS_URL"

# ---------------------------------------------------------------- jest
say "running jest with node $("$NODE" --version)"
(
  cd "$PKGDIR" &&
    PATH="$PKG/node_modules/.bin:$PATH" CI=true \
      ORACLE_FUNCTIONS_URL="$FUNCTIONS_URL" ORACLE_RELAY_LOG="$LOGS/relay.log" \
      "$NODE" "$PKG/node_modules/jest/bin/jest.js" \
      --ci --runInBand \
      --json --outputFile="$RESULTS_JSON" \
      "$@"
) >"$LOGS/jest.log" 2>&1
JEST_RC=$?
grep -E '^(PASS|FAIL) |^Tests:|^Test Suites:|^Time:' "$LOGS/jest.log"

stop_gateway
[ -s "$RESULTS_JSON" ] || die "jest wrote no $RESULTS_JSON (exit $JEST_RC); see $LOGS/jest.log"

# ---------------------------------------------------------------- report
GW_DESC="$CIELO_BIN (built $(date -r "$CIELO_BIN" '+%Y-%m-%d %H:%M'))"
if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
  GW_DESC="$GW_DESC; repo HEAD $(git -C "$REPO" log -1 --format='%h %s' 2>/dev/null)"
fi
ORACLE_COMMIT="$(git -C "$SRC" log -1 --format='%h %cs' "$FULL_REV")" \
  ORACLE_GATEWAY="$GW_DESC" ORACLE_DENO="$("$DENO_PATH" --version | head -n 1)" \
  ORACLE_NODE="$("$NODE" --version)" ORACLE_STD="$STD_NOTE" \
  "$NODE" - "$RESULTS_JSON" "$PKGDIR" >"$RESULTS_MD" <<'EOF'
// Per-file table and every failing test with the first lines of its error, as Markdown.
const fs = require('node:fs')
const path = require('node:path')
const [results, root] = process.argv.slice(2)
const r = JSON.parse(fs.readFileSync(results, 'utf8'))
const env = process.env
const rows = []
const failures = []
const total = { passed: 0, failed: 0, skipped: 0 }
for (const file of r.testResults) {
  const name = path.relative(root, file.name)
  const tests = file.assertionResults || []
  const count = (...states) => tests.filter((t) => states.includes(t.status)).length
  const row = { name, passed: count('passed'), failed: count('failed'), skipped: count('pending', 'skipped', 'todo', 'disabled') }
  if (tests.length === 0 && file.status === 'failed') {
    row.failed = 1 // the file did not run (compile error, beforeAll failure)
    failures.push(`- ${name} (file): ${String(file.message || '').split('\n').find((l) => l.trim()) || ''}`)
  }
  for (const t of tests.filter((t) => t.status === 'failed')) {
    const lines = String(t.failureMessages[0] || '').replace(/\u001b\[[0-9;]*m/g, '').split('\n').map((l) => l.trim()).filter(Boolean)
    failures.push(`- ${name} › ${t.fullName}: ${lines.slice(0, 4).join(' ⏎ ').slice(0, 400)}`)
  }
  for (const k of Object.keys(total)) total[k] += row[k]
  rows.push(row)
}
rows.sort((a, b) => a.name.localeCompare(b.name))
const out = ['# functions-js oracle results', '']
out.push(`- supabase-js: ${env.ORACLE_COMMIT}`, `- Gateway: ${env.ORACLE_GATEWAY}`, `- ${env.ORACLE_DENO}; Node ${env.ORACLE_NODE}`)
out.push('- Functions: verify_jwt = false (the suite signs with a 10-character secret; JWT_SECRET needs 32)')
out.push(`- deno.land/std: ${env.ORACLE_STD}`, '')
out.push('| File | Passed | Failed | Skipped |', '|---|---:|---:|---:|')
for (const x of rows) out.push(`| ${x.name} | ${x.passed} | ${x.failed} | ${x.skipped} |`)
out.push(`| **Total** | **${total.passed}** | **${total.failed}** | **${total.skipped}** |`, '')
if (failures.length) out.push('## Failures', '', ...failures, '')
console.log(out.join('\n'))
EOF
cat "$RESULTS_MD"
say "wrote $RESULTS_JSON and $RESULTS_MD (logs in $LOGS/); jest exit status $JEST_RC"
exit "$JEST_RC"
