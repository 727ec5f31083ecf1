#!/usr/bin/env bash
# supabase-js integration oracle: runs the official cross-service test of the supabase-js
# monorepo (packages/core/supabase-js/test/integration.test.ts: rest/v1 under RLS, auth/v1,
# realtime/v1 with vsn 1.0.0 and 2.0.0, private channels under RLS, HTTP broadcast, trace
# propagation, storage/v1) against one Cielo gateway.
#
#   scripts/oracle/supabase-js-integration.sh                     # the whole file
#   scripts/oracle/supabase-js-integration.sh -t 'Realtime'       # extra args go to jest
#
# Setup: takes packages/core/supabase-js at SUPABASE_JS_REV from SUPABASE_JS_DIR (an existing
# clone, bare or not) or a partial clone of SUPABASE_JS_URL in the work directory, writes a
# standalone package.json (the monorepo's pinned test toolchain, Node 22, the OpenTelemetry
# packages of pnpm-lock.yaml, and the published @supabase/supabase-js of that revision) and
# npm-installs it. Nothing of it enters the Cielo repository.
#
# The client: the test imports the package's own source (`../src/index`, `../src/tracing`),
# which the monorepo resolves against its workspace packages. Here those two imports are
# mapped (Jest moduleNameMapper, given on the command line) to the real @supabase/supabase-js
# from npm (SUPABASE_JS_NPM_VERSION, default 2.112.2: the pinned revision is v2.112.2 plus
# five commits that change no package source), whose auth-js, postgrest-js, realtime-js,
# storage-js and functions-js come with it. The script checks that the npm package's src/ is
# the revision's src/ (but for src/lib/version.ts, which the release writes) and says so in
# results.md. No test line is changed.
#
# Database: what the package's scripts/setup-supabase.sh does after `supabase start`: the
# migrations of supabase/migrations/ in order (as `supabase db reset`), no seed (the CLI's
# default seed path supabase/seed.sql does not exist, and the script empties public.todos),
# `truncate public.todos cascade`, and the storage bucket. (A storage migration or the bucket
# insert is skipped, and reported, on a cluster without a storage.buckets table.)
#
# Gateway: like the Supabase CLI's local stack the test was written for: 127.0.0.1:54321 (the
# test hardcodes it), the CLI's JWT secret and demo anon key (both read from the test file),
# the service_role key signed the same way, e-mail autoconfirm (the CLI's
# enable_confirmations = false), supabase/config.toml's [auth] (anonymous sign-ins, site_url,
# additional_redirect_urls), API_KEY_REQUIRED=false; a fresh embedded cluster in /tmp (port
# 54322). As root, the gateway and Jest run in a private network namespace (unshare -n), so
# the fixed ports clash with nothing else on the machine; otherwise both must be free.
#
# Jest: the package's jest.config.ts, with upstream's test:integration flags (--runInBand
# --detectOpenHandles) and --ci (never -u). Jest exits by itself only when the client left
# nothing open; if it is still running JEST_EXIT_GRACE seconds after writing its results,
# the connections still open to the gateway and Node's active handles are written to logs/
# and it is stopped. Writes results.json, results.md (per-describe table, every failure with
# its first lines, the hang if any) and logs/ to the work directory. Exit status: Jest's (0
# only if every test passed); 2 for harness problems, 3 if the migrations fail, 4 if Jest
# had to be stopped.
#
# Environment:
#   CIELO_BIN                gateway binary (default <repo>/target/debug/cielo; never built here)
#   CIELO_ORACLE_DIR         work directory (default $HOME/.cache/cielo-oracle-supabase-js)
#   SUPABASE_JS_DIR          existing supabase-js git repository to read from instead of cloning
#   SUPABASE_JS_URL          what to clone otherwise (default https://github.com/supabase/supabase-js)
#   SUPABASE_JS_REV          supabase-js revision (default: the pinned 381bded5, see DEFAULT_REV)
#   SUPABASE_JS_NPM_VERSION  @supabase/supabase-js from npm (default 2.112.2, the pinned revision's)
#   JEST_TIMEOUT             seconds before a Jest that has not finished is stopped (default 900)
#   JEST_EXIT_GRACE          seconds Jest gets to exit after writing its results (default 30)
#   KEEP_DATA=1              keep the temporary gateway data directory
#   STARTUP_TIMEOUT          seconds to wait for the gateway (default 180)
#   LOG_LEVEL                gateway log level (default info)
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"

case "${1:-}" in
  -h | --help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
esac

# supabase-js master of 2026-08-07 (v2.112.2 + 5 commits), the revision of the other oracles.
DEFAULT_REV=381bded5ced48c4621830576bf8cbecc34edc85c
REV="${SUPABASE_JS_REV:-$DEFAULT_REV}"
NPM_VERSION="${SUPABASE_JS_NPM_VERSION:-2.112.2}"
UPSTREAM_URL="${SUPABASE_JS_URL:-https://github.com/supabase/supabase-js}"
WORK="${CIELO_ORACLE_DIR:-${HOME:?set HOME or CIELO_ORACLE_DIR}/.cache/cielo-oracle-supabase-js}"
CIELO_BIN="${CIELO_BIN:-$REPO/target/debug/cielo}"
SUB=packages/core/supabase-js
TEST_FILE=test/integration.test.ts
API_PORT=54321   # hardcoded in the test (http://127.0.0.1:54321)
DB_PORT=54322    # the CLI's database port (the test does not use it)
STARTUP_TIMEOUT="${STARTUP_TIMEOUT:-180}"
JEST_TIMEOUT="${JEST_TIMEOUT:-900}"

# shellcheck source=scripts/oracle/lib.sh
source "$HERE/lib.sh"

# ---------------------------------------------------------------- phase 1: setup (network)
if [ -z "${CIELO_ORACLE_IN_NETNS:-}" ]; then
  if [ ! -f "$CIELO_BIN" ] || [ ! -x "$CIELO_BIN" ]; then
    die "gateway binary not found: $CIELO_BIN
Build it first:  (cd $REPO && cargo build --bin cielo)   or set CIELO_BIN=/path/to/cielo"
  fi
  CIELO_BIN="$(cd "$(dirname "$CIELO_BIN")" && pwd)/$(basename "$CIELO_BIN")"
  for tool in git npm tar psql; do
    command -v "$tool" >/dev/null || die "$tool not found (psql: apt-get install postgresql-client)"
  done
  mkdir -p "$WORK" || die "cannot create $WORK"
  WORK="$(cd "$WORK" && pwd)"
  PKG="$WORK/pkg"
  PKGDIR="$PKG/$SUB"

  checkout_upstream
  # Re-extracted on every run, so the test is always pristine (node_modules is kept).
  rm -rf "$PKG/packages"
  mkdir -p "$PKG"
  git -C "$SRC" archive "$FULL_REV" "$SUB/package.json" "$SUB/jest.config.ts" "$SUB/jest.setup.ts" \
    "$SUB/tsconfig.json" "$SUB/CHANGELOG.md" "$SUB/src" "$SUB/test" "$SUB/supabase" "$SUB/scripts" \
    | tar -x -C "$PKG" || die "extracting $SUB from $SRC failed"
  echo "$FULL_REV" >"$PKG/SUPABASE_JS_COMMIT"
  [ -f "$PKGDIR/$TEST_FILE" ] || die "$SUB/$TEST_FILE not found at $REV"
  CHANGELOG_VER="$(grep -m1 -oE '^## [0-9][^ ]*' "$PKGDIR/CHANGELOG.md" 2>/dev/null | cut -c4-)"
  [ "$CHANGELOG_VER" = "$NPM_VERSION" ] \
    || warn "the package's latest CHANGELOG entry at $REV is ${CHANGELOG_VER:-?}, not $NPM_VERSION (set SUPABASE_JS_NPM_VERSION)"

  # ---------------------------------------------------------------- setup: test toolchain
  # The versions pnpm-lock.yaml resolves for packages/core/supabase-js at the pinned revision
  # (jest, ts-jest, the OpenTelemetry SDK, jsonwebtoken), ts-node (Jest reads jest.config.ts
  # with it), Node 22 from npm's "node" package (engines.node >= 22; its global WebSocket is
  # the realtime transport, as the test expects), and the published client.
  PACKAGE_JSON='{
  "name": "supabase-js-integration-oracle",
  "private": true,
  "description": "Standalone test harness for supabase-js packages/core/supabase-js/test/integration.test.ts (Cielo compatibility oracle)",
  "devDependencies": {
    "@jest/globals": "30.4.1",
    "@jest/types": "30.4.1",
    "@opentelemetry/api": "1.9.1",
    "@opentelemetry/context-async-hooks": "2.10.0",
    "@opentelemetry/core": "2.10.0",
    "@opentelemetry/sdk-trace-node": "2.10.0",
    "@supabase/supabase-js": "'"$NPM_VERSION"'",
    "@types/jest": "30.0.0",
    "@types/jsonwebtoken": "8.5.9",
    "@types/node": "20.19.9",
    "jest": "30.4.2",
    "jsonwebtoken": "9.0.3",
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

  # The npm client is the revision's source: compare the package's shipped src/ with it
  # (src/lib/version.ts is written by the release: '0.0.0-automated' in git).
  NPM_PKG="$PKG/node_modules/@supabase/supabase-js"
  if diff -r -x version.ts "$NPM_PKG/src" "$PKGDIR/src" >"$WORK/src-diff.txt" 2>&1 \
    && grep -qF "version = '$NPM_VERSION'" "$NPM_PKG/src/lib/version.ts"; then
    CLIENT_NOTE="@supabase/supabase-js@$NPM_VERSION from npm; its src/ is $SUB/src at ${FULL_REV:0:8} (but for the version string)"
  else
    CLIENT_NOTE="@supabase/supabase-js@$NPM_VERSION from npm; its src/ DIFFERS from $SUB/src at ${FULL_REV:0:8} (see src-diff.txt)"
    warn "$CLIENT_NOTE"
  fi
  say "$CLIENT_NOTE"

  export WORK PKG PKGDIR NODE CIELO_BIN FULL_REV SRC CLIENT_NOTE
  if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
    say "running the gateway and jest in a private network namespace"
    exec env CIELO_ORACLE_IN_NETNS=1 unshare -n "${BASH_SOURCE[0]}" "$@"
  fi
  port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
  for p in $API_PORT $DB_PORT; do
    port_busy "$p" && die "port $p is busy (the test needs $API_PORT; the cluster uses $DB_PORT)"
  done
  export CIELO_ORACLE_IN_NETNS=0
fi

# ---------------------------------------------------------------- phase 2: run (offline)
[ "$CIELO_ORACLE_IN_NETNS" = 1 ] && ip link set lo up
LOGS="$WORK/logs"
RESULTS_JSON="$WORK/results.json"
RESULTS_MD="$WORK/results.md"
mkdir -p "$LOGS"
rm -f "$LOGS"/* "$RESULTS_JSON" "$RESULTS_MD"

# The CLI's JWT secret and demo anon key, as the test file has them.
read -r JWT_SECRET ANON_KEY SERVICE_ROLE_KEY < <("$NODE" -e '
  const crypto = require("node:crypto")
  const text = require("node:fs").readFileSync(process.argv[1], "utf8")
  const pick = (name) => (text.match(new RegExp("const " + name + " =\\s*\x27([^\x27]+)\x27")) || [])[1]
  const secret = pick("JWT_SECRET"), anon = pick("PUBLISHABLE_KEY")
  if (!secret || !anon) process.exit(1)
  const b64 = (x) => Buffer.from(x).toString("base64url")
  const sign = (head, body) => crypto.createHmac("sha256", secret).update(head + "." + body).digest("base64url")
  const [head, body, sig] = anon.split(".")
  if (sign(head, body) !== sig) process.exit(2)
  const claims = JSON.parse(Buffer.from(body, "base64url").toString())
  const service = b64(JSON.stringify({ ...claims, role: "service_role" }))
  console.log(secret, anon, head + "." + service + "." + sign(head, service))
' "$PKGDIR/$TEST_FILE") || die "could not read JWT_SECRET and PUBLISHABLE_KEY from $TEST_FILE (or the key is not signed with the secret)"

RUN_DIR="$(mktemp -d /tmp/cielo-supabase-js-oracle.XXXXXX)" || die "mktemp failed"
chmod 755 "$RUN_DIR"
DATA_DIR="$RUN_DIR/data"
mkdir -p "$DATA_DIR"
chmod 755 "$DATA_DIR"

# A clean environment (no DATABASE_URL or keys from the caller), run from an empty directory
# so no .env file is picked up. The [auth] settings are supabase/config.toml's.
GW_ENV=(
  env -i
  PATH="$PATH" HOME="${HOME:-/root}" LANG=C.UTF-8
  DATA_DIR="$DATA_DIR" API_HOST=127.0.0.1 API_PORT="$API_PORT" DB_PORT="$DB_PORT"
  WEB_DIR="$RUN_DIR/no-web" SEED_DEMO=false LOG_LEVEL="${LOG_LEVEL:-info}"
  JWT_SECRET="$JWT_SECRET" ANON_KEY="$ANON_KEY" SERVICE_ROLE_KEY="$SERVICE_ROLE_KEY"
  API_EXTERNAL_URL="http://127.0.0.1:$API_PORT"
  API_KEY_REQUIRED=false           # like the Supabase CLI's local stack
  ENABLE_EMAIL_AUTOCONFIRM=true    # the CLI's [auth.email] enable_confirmations = false
  ENABLE_ANONYMOUS_USERS=true      # config.toml [auth] enable_anonymous_sign_ins
  SITE_URL=http://localhost:5173 ADDITIONAL_REDIRECT_URLS=http://localhost:5173
)

# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
  [ -n "${JEST_PID:-}" ] && kill -TERM "$JEST_PID" 2>/dev/null
  end_run
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_gateway
DB_URL="$(sed -n 's/^DB_URL="\(.*\)"$/\1/p' <<<"$STATUS_ENV")"
GW_ANON="$(sed -n 's/^ANON_KEY="\(.*\)"$/\1/p' <<<"$STATUS_ENV")"
[ -n "$DB_URL" ] || die "no DB_URL in 'cielo status -o env'"
[ -z "$GW_ANON" ] || [ "$GW_ANON" = "$ANON_KEY" ] || die "the gateway's ANON_KEY is not the test's PUBLISHABLE_KEY"
say "gateway is up (pid $GW_PID); DB_URL=$DB_URL"

# ---------------------------------------------------------------- database
# scripts/setup-supabase.sh: `supabase start` applies the migrations (no seed), then the
# script empties public.todos and creates the storage bucket.
psql_run() { psql "$DB_URL" -X -q -v ON_ERROR_STOP=1 "$@" >>"$LOGS/fixture.log" 2>&1; }
has_buckets() {
  [ "$(psql "$DB_URL" -X -q -A -t -c "select to_regclass('storage.buckets') is not null" 2>>"$LOGS/fixture.log")" = t ]
}
FIXTURE_NOTES=()
for f in "$PKGDIR"/supabase/migrations/*.sql; do
  rel="${f#"$PKGDIR"/}"
  if psql_run --single-transaction -f "$f"; then
    say "applied $rel"
  elif [[ "$(basename "$f")" == *storage* ]] && ! has_buckets; then
    FIXTURE_NOTES+=("skipped $rel: no storage.buckets table (storage/v1 is not served)")
    warn "${FIXTURE_NOTES[-1]}"
  else
    echo "oracle: MIGRATION FAILED at $rel:" >&2
    grep -E 'ERROR|psql:' "$LOGS/fixture.log" | tail -n 5 >&2
    exit 3
  fi
done
psql_run -c "truncate public.todos cascade" || { echo "oracle: truncate public.todos failed" >&2; exit 3; }
if has_buckets; then
  psql_run -c "insert into storage.buckets (id, name, public) values ('test-bucket','test-bucket', false) on conflict (id) do nothing" \
    || { echo "oracle: creating the storage bucket failed" >&2; exit 3; }
else
  FIXTURE_NOTES+=("skipped the 'test-bucket' insert of setup-supabase.sh: no storage.buckets table")
fi
psql_run -c "NOTIFY pgrst, 'reload schema'" || die "NOTIFY pgrst failed (see $LOGS/fixture.log)"
sleep 1   # let the schema cache listener pick the notification up

# ---------------------------------------------------------------- jest
# The test's imports of the package source resolve to the npm client (see the header).
# Jest resolves a mapped name without the package's export conditions: the files themselves.
NPM_DIST="$PKG/node_modules/@supabase/supabase-js/dist"
MAPPER='{"^\\.\\./src/index$":"'"$NPM_DIST"'/index.cjs","^\\.\\./src/tracing$":"'"$NPM_DIST"'/tracing.cjs"}'
# Jest exits by itself once nothing holds Node's event loop: against a server that leaves
# client sockets open (a realtime client that reconnected after its disconnect) it never
# does, as upstream runs it (no --forceExit). So once Jest has written its results it gets
# JEST_EXIT_GRACE seconds; if it is still running then, the connections still open to the
# gateway and Node's active handles (a SIGUSR2 listener loaded with --require, which does
# nothing else) are written to logs/, Jest is stopped, and the run is reported as hung.
HANDLES_JS="$WORK/open-handles.js"
cat >"$HANDLES_JS" <<'JS'
// Written by scripts/oracle/supabase-js-integration.sh: on SIGUSR2, list Node's active
// handles (sockets with their ports) in $ORACLE_HANDLES_FILE. Signal listeners do not keep
// Node alive, so this changes nothing else.
process.on('SIGUSR2', () => {
  const lines = process._getActiveHandles().map((h) => {
    const kind = h && h.constructor ? h.constructor.name : typeof h
    return h && h.remotePort ? `${kind} 127.0.0.1:${h.localPort} -> ${h.remoteAddress}:${h.remotePort}` : kind
  })
  require('node:fs').writeFileSync(process.env.ORACLE_HANDLES_FILE, lines.join('\n') + '\n')
})
JS
JEST_EXIT_GRACE="${JEST_EXIT_GRACE:-30}"
say "running jest ($TEST_FILE) with node $("$NODE" --version)"
(
  cd "$PKGDIR" &&
    exec env PATH="$PKG/node_modules/.bin:$PATH" CI=true \
      NODE_OPTIONS="--require $HANDLES_JS" ORACLE_HANDLES_FILE="$LOGS/open-handles.txt" \
      "$NODE" "$PKG/node_modules/jest/bin/jest.js" \
      --ci --runInBand --detectOpenHandles \
      --moduleNameMapper="$MAPPER" \
      --json --outputFile="$RESULTS_JSON" \
      "$TEST_FILE" "$@"
) >"$LOGS/jest.log" 2>&1 &
JEST_PID=$!
JEST_HUNG=""
finished_at=""
deadline=$((SECONDS + JEST_TIMEOUT))
while kill -0 "$JEST_PID" 2>/dev/null; do
  if [ -z "$finished_at" ] && grep -q '^Test results written to' "$LOGS/jest.log"; then
    finished_at=$SECONDS
  fi
  if [ -n "$finished_at" ] && [ $((SECONDS - finished_at)) -ge "$JEST_EXIT_GRACE" ]; then
    JEST_HUNG="Jest did not exit within ${JEST_EXIT_GRACE} s of the end of the run"
  elif [ "$SECONDS" -ge "$deadline" ]; then
    JEST_HUNG="Jest did not finish within ${JEST_TIMEOUT} s"
  fi
  if [ -n "$JEST_HUNG" ]; then
    warn "$JEST_HUNG; stopping it (open connections and handles in $LOGS/)"
    ss -tnp state established "( dport = :$API_PORT )" >"$LOGS/open-connections.txt" 2>&1
    kill -USR2 "$JEST_PID" 2>/dev/null
    sleep 1
    kill -TERM "$JEST_PID" 2>/dev/null
    for _ in $(seq 1 20); do kill -0 "$JEST_PID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$JEST_PID" 2>/dev/null
    break
  fi
  sleep 1
done
wait "$JEST_PID"
JEST_RC=$?
JEST_PID=""
grep -E '^(PASS|FAIL) |^Tests:|^Test Suites:|^Time:' "$LOGS/jest.log"
OPEN_CONNECTIONS=0
if [ -n "$JEST_HUNG" ]; then
  OPEN_CONNECTIONS="$(grep -c "127.0.0.1:$API_PORT" "$LOGS/open-connections.txt")"
  JEST_RC=4
fi

stop_gateway
[ -s "$RESULTS_JSON" ] || die "jest wrote no $RESULTS_JSON (exit $JEST_RC); see $LOGS/jest.log"

# ---------------------------------------------------------------- report
GW_DESC="$CIELO_BIN (built $(date -r "$CIELO_BIN" '+%Y-%m-%d %H:%M'))"
if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
  GW_DESC="$GW_DESC; repo HEAD $(git -C "$REPO" log -1 --format='%h %s' 2>/dev/null)"
fi
ORACLE_COMMIT="$(git -C "$SRC" log -1 --format='%h %cs' "$FULL_REV" 2>/dev/null)" \
  ORACLE_GATEWAY="$GW_DESC" ORACLE_NODE="$("$NODE" --version)" ORACLE_CLIENT="$CLIENT_NOTE" \
  ORACLE_HUNG="$JEST_HUNG" ORACLE_OPEN="$OPEN_CONNECTIONS" ORACLE_HANDLES="$LOGS/open-handles.txt" \
  ORACLE_FIXTURE="$(printf '%s; ' "supabase/migrations/*.sql applied with psql, truncate public.todos" "${FIXTURE_NOTES[@]}")" \
  "$NODE" - "$RESULTS_JSON" >"$RESULTS_MD" <<'EOF'
// Per-describe table and every failing test with the first lines of its error, as Markdown.
const fs = require('node:fs')
const r = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const env = process.env
const groups = new Map()
const failures = []
const total = { passed: 0, failed: 0, skipped: 0 }
for (const file of r.testResults) {
  const tests = file.assertionResults || []
  if (tests.length === 0 && file.status === 'failed') {
    // The file did not run (compile error, a failing beforeAll at the top).
    total.failed += 1
    failures.push(`- (file): ${String(file.message || '').replace(/\u001b\[[0-9;]*m/g, '').split('\n').find((l) => l.trim()) || ''}`)
  }
  for (const t of tests) {
    const group = t.ancestorTitles.slice(0, 3).filter((x) => x !== 'Supabase Integration Tests').join(' › ') || '(top level)'
    const row = groups.get(group) || { passed: 0, failed: 0, skipped: 0 }
    const state = t.status === 'passed' ? 'passed' : t.status === 'failed' ? 'failed' : 'skipped'
    row[state] += 1
    total[state] += 1
    groups.set(group, row)
    if (state === 'failed') {
      const lines = String(t.failureMessages[0] || '').replace(/\u001b\[[0-9;]*m/g, '').split('\n').map((l) => l.trim()).filter(Boolean)
      failures.push(`- ${t.fullName}: ${lines.slice(0, 4).join(' ⏎ ').slice(0, 400)}`)
    }
  }
}
const out = ['# supabase-js integration oracle results', '']
out.push(`- Test: packages/core/supabase-js/test/integration.test.ts at supabase-js ${env.ORACLE_COMMIT}`)
out.push(`- Client: ${env.ORACLE_CLIENT}`, `- Gateway: ${env.ORACLE_GATEWAY}`, `- Node ${env.ORACLE_NODE}`)
out.push(`- Database: ${env.ORACLE_FIXTURE.replace(/; $/, '')}`, '')
out.push('| Describe | Passed | Failed | Skipped |', '|---|---:|---:|---:|')
for (const [name, x] of groups) out.push(`| ${name} | ${x.passed} | ${x.failed} | ${x.skipped} |`)
out.push(`| **Total** | **${total.passed}** | **${total.failed}** | **${total.skipped}** |`, '')
if (failures.length) out.push('## Failures', '', ...failures, '')
if (env.ORACLE_HUNG) {
  let handles = ''
  try { handles = fs.readFileSync(env.ORACLE_HANDLES, 'utf8').trim() } catch {}
  out.push('## Jest did not exit', '', `${env.ORACLE_HUNG}, and was stopped: ${env.ORACLE_OPEN} client connection(s) to the gateway were still open (logs/open-connections.txt). Active handles:`, '', '```', handles || '(none written)', '```', '')
}
console.log(out.join('\n'))
EOF
cat "$RESULTS_MD"
say "wrote $RESULTS_JSON and $RESULTS_MD (logs in $LOGS/); jest exit status $JEST_RC"
exit "$JEST_RC"
