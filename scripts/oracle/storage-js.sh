#!/usr/bin/env bash
# storage-js compatibility oracle: runs the official storage-js test suite (supabase/supabase-js
# monorepo, packages/core/storage-js/test) against a Cielo gateway's storage/v1.
#
#   scripts/oracle/storage-js.sh                                # whole suite
#   scripts/oracle/storage-js.sh test/storageFileApi.test.ts    # extra args go to jest (path, -t NAME)
#
# Setup: takes packages/core/storage-js and tsconfig.base.json (the package's tsconfig extends
# it) at SUPABASE_JS_REV from SUPABASE_JS_DIR (an existing clone, bare or not) or a partial
# clone of SUPABASE_JS_URL in the work directory, writes a standalone package.json (the
# versions pnpm-lock.yaml resolves for the package: Jest, ts-jest, TypeScript, iceberg-js,
# tslib; Node 22) and npm-installs it. Nothing of it enters the Cielo repository.
#
# The suite is what upstream's `nx test:storage` runs after `supabase start` + `supabase db
# reset` in test/: `jest --runInBand` over the whole test/ directory, the package's own
# jest.config.js (ts-jest, tsconfig.test.json, coverage on). Most files mock fetch and need no
# server; storageApi, storageBucketApi (one test), storageFileApi and storageFileApiNode talk
# to http://127.0.0.1:54321/storage/v1 with the Supabase CLI's demo service_role key.
#
# Gateway: a fresh embedded cluster in /tmp, SEED_DEMO=false, API_HOST=127.0.0.1, configured
# like the CLI's local stack the suite was written for: the CLI's JWT secret (the test files'
# service_role key is signed with it; the script checks the signature), that key as
# SERVICE_ROLE_KEY and the CLI's demo anon key (same claims, role anon) as ANON_KEY,
# API_KEY_REQUIRED=false (the suite sends no apikey, and the CLI's gateway asks for none on
# storage/v1), storage defaults equal to test/supabase/config.toml's [storage] (50 MiB file
# size limit, image transformation on). Then test/supabase/seed.sql, as `supabase db reset`
# loads it (psql, one transaction, as the cluster's superuser): 3 auth.users, buckets
# bucket2..5 and bucket-move, 20 object rows, RLS policies.
#
# Environment adaptations, reported in results.md (no test, assertion or snapshot is changed):
#   - Port: the gateway listens on a free port (ORACLE_API_PORT, else any free one) so the run
#     never collides with a dev server on 54321; in the extracted copy (re-extracted on every
#     run), the files' `const URL = 'http://127.0.0.1:54321/storage/v1'` is rewritten to that
#     port with sed. Every URL the tests compare against is built from that constant. With
#     ORACLE_API_PORT=54321 nothing is rewritten.
#   - Seed session: seed.sql calls pgcrypto's crypt() and gen_salt() unqualified, which on
#     Supabase's database resolve through the extensions schema on the postgres role's
#     search_path. Cielo's cluster has pgcrypto in `extensions` too, but not on that path: psql
#     loads the seed with PGOPTIONS search_path = "$user", public, extensions (that session
#     only; nothing in the cluster is changed).
#
# Jest runs with --ci --runInBand (never -u). Writes results.json, results.md (per-file table,
# every failure with its expected/received lines) and logs/ (gateway, postgres.log, seed.log,
# jest.log) to the work directory and prints the per-file table. Exit status: Jest's (0 only
# if every test passed); 2 for harness problems, 3 if the seed does not load.
#
# Environment:
#   CIELO_BIN          gateway binary (default <repo>/target/debug/cielo; never built here)
#   CIELO_ORACLE_DIR   work directory (default $HOME/.cache/cielo-oracle-storage-js)
#   SUPABASE_JS_DIR    existing supabase-js git repository to read from instead of cloning
#   SUPABASE_JS_URL    what to clone otherwise (default https://github.com/supabase/supabase-js)
#   SUPABASE_JS_REV    supabase-js revision (default: the pinned 381bded5, see DEFAULT_REV)
#   ORACLE_API_PORT    gateway API port (default: a free port; 54321 needs no URL rewrite)
#   ORACLE_DB_PORT     embedded cluster port (default: a free port)
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
WORK="${CIELO_ORACLE_DIR:-${HOME:?set HOME or CIELO_ORACLE_DIR}/.cache/cielo-oracle-storage-js}"
CIELO_BIN="${CIELO_BIN:-$REPO/target/debug/cielo}"
SUB=packages/core/storage-js
# The Supabase CLI's default JWT secret: the demo keys in the test files are signed with it.
JWT_SECRET="super-secret-jwt-token-with-at-least-32-characters-long"
SUITE_URL="http://127.0.0.1:54321/storage/v1"   # hardcoded in the test files
STARTUP_TIMEOUT="${STARTUP_TIMEOUT:-180}"

# shellcheck source=scripts/oracle/lib.sh
source "$HERE/lib.sh"

# ---------------------------------------------------------------- preflight
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
[ -f "$PKGDIR/test/supabase/seed.sql" ] || die "$SUB/test/supabase/seed.sql not found at $REV"
[ -f "$PKGDIR/test/storageApi.test.ts" ] || die "$SUB/test/storageApi.test.ts not found at $REV"

# ---------------------------------------------------------------- setup: test toolchain
# The versions pnpm-lock.yaml resolves for packages/core/storage-js at the pinned revision
# (the pnpm catalog's jest, ts-jest, typescript, @types/*, and the package's dependencies
# iceberg-js and tslib), @jest/types as the lock has it, and Node 22 from npm's "node" package
# (the package declares engines.node >= 22). jest.config.js is plain JavaScript: no ts-node.
# tsdown and typedoc (build and docs) are not used by the tests.
PACKAGE_JSON='{
  "name": "storage-js-oracle",
  "private": true,
  "description": "Standalone test harness for supabase-js packages/core/storage-js (Cielo compatibility oracle)",
  "devDependencies": {
    "@jest/types": "30.4.1",
    "@types/jest": "30.0.0",
    "@types/node": "20.19.9",
    "iceberg-js": "0.8.1",
    "jest": "30.4.2",
    "node": "22.23.3",
    "ts-jest": "29.4.9",
    "tslib": "2.8.1",
    "typescript": "5.8.3"
  }
}'
CATALOG="$(git -C "$SRC" show "$FULL_REV:pnpm-workspace.yaml" 2>/dev/null || true)"
for want in "typescript: ~5.8.3" "jest: 30.4.2" "ts-jest: ^29.4.9" "'@types/jest': 30.0.0" "'@types/node': 20.19.9"; do
  grep -qF "  $want" <<<"$CATALOG" \
    || warn "the pnpm catalog at $REV no longer has '$want'; update the versions in $0"
done
grep -qF '"iceberg-js": "^0.8.1"' "$PKGDIR/package.json" \
  || warn "$SUB/package.json at $REV no longer depends on iceberg-js ^0.8.1; update the versions in $0"

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

# ---------------------------------------------------------------- keys
# The service_role key of the test files (all the same: the CLI's demo key), checked against
# the CLI's secret; the CLI's demo anon key is the same token with role anon.
read -r SERVICE_ROLE_KEY ANON_KEY < <(JWT_SECRET="$JWT_SECRET" "$NODE" -e '
  const crypto = require("node:crypto")
  const fs = require("node:fs")
  const keys = new Set()
  for (const file of process.argv.slice(2)) {
    const m = fs.readFileSync(file, "utf8").match(/const KEY =\s*\x27(eyJ[^\x27]+)\x27/)
    if (m) keys.add(m[1])
  }
  if (keys.size !== 1) process.exit(1)
  const [key] = keys
  const secret = process.env.JWT_SECRET
  const sign = (head, body) => crypto.createHmac("sha256", secret).update(head + "." + body).digest("base64url")
  const [head, body, sig] = key.split(".")
  if (sign(head, body) !== sig) process.exit(2)
  const claims = JSON.parse(Buffer.from(body, "base64url").toString())
  if (claims.role !== "service_role") process.exit(3)
  const anon = Buffer.from(JSON.stringify({ ...claims, role: "anon" })).toString("base64url")
  console.log(key, head + "." + anon + "." + sign(head, anon))
' "$PKGDIR"/test/*.test.ts) \
  || die "could not read one service_role KEY from $SUB/test/*.test.ts signed with the CLI's JWT secret"

# ---------------------------------------------------------------- gateway
free_port() {
  "$NODE" -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })'
}
API_PORT="${ORACLE_API_PORT:-$(free_port)}"
DB_PORT="${ORACLE_DB_PORT:-$(free_port)}"
[ "$API_PORT" != "$DB_PORT" ] || DB_PORT="$(free_port)"
ORACLE_URL="http://127.0.0.1:$API_PORT/storage/v1"

# The URL adaptation (see the header): only the `const URL = '<suite URL>'` lines.
URL_NOTES=()
if [ "$ORACLE_URL" != "$SUITE_URL" ]; then
  mapfile -t url_files < <(grep -rlF "const URL = '$SUITE_URL'" "$PKGDIR/test" | sort)
  [ "${#url_files[@]}" -gt 0 ] || die "no test file has const URL = '$SUITE_URL' at $REV"
  for f in "${url_files[@]}"; do
    sed -i "s#^const URL = '$SUITE_URL'\$#const URL = '$ORACLE_URL'#" "$f" || die "sed on $f failed"
    URL_NOTES+=("${f#"$PKGDIR"/}")
  done
  left="$(grep -rnF '127.0.0.1:54321' "$PKGDIR/test" --include='*.ts')"
  [ -z "$left" ] || warn "the suite still names 127.0.0.1:54321 after the URL rewrite:
$left"
  say "URL constant rewritten to $ORACLE_URL in: ${URL_NOTES[*]}"
fi

# /tmp, not the work directory: when run as root the embedded cluster runs as the
# unprivileged postgres user, which must be able to reach its data directory.
RUN_DIR="$(mktemp -d /tmp/cielo-storage-oracle.XXXXXX)" || die "mktemp failed"
chmod 755 "$RUN_DIR"
DATA_DIR="$RUN_DIR/data"
mkdir -p "$DATA_DIR" "$LOGS"
chmod 755 "$DATA_DIR"
rm -f "$LOGS"/* "$RESULTS_JSON" "$RESULTS_MD"

# A clean environment (no DATABASE_URL or keys from the caller), run from an empty directory
# so no .env file is picked up.
GW_ENV=(
  env -i
  PATH="$PATH" HOME="${HOME:-/root}" LANG=C.UTF-8
  DATA_DIR="$DATA_DIR" API_HOST=127.0.0.1 API_PORT="$API_PORT" DB_PORT="$DB_PORT"
  API_EXTERNAL_URL="http://127.0.0.1:$API_PORT"
  WEB_DIR="$RUN_DIR/no-web" SEED_DEMO=false LOG_LEVEL="${LOG_LEVEL:-info}"
  JWT_SECRET="$JWT_SECRET" ANON_KEY="$ANON_KEY" SERVICE_ROLE_KEY="$SERVICE_ROLE_KEY"
  API_KEY_REQUIRED=false   # like the Supabase CLI's local stack
)

# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
  end_run
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_gateway
DB_URL="$(sed -n 's/^DB_URL="\(.*\)"$/\1/p' <<<"$STATUS_ENV")"
API_URL="$(sed -n 's/^API_URL="\(.*\)"$/\1/p' <<<"$STATUS_ENV")"
GW_SERVICE="$(sed -n 's/^SERVICE_ROLE_KEY="\(.*\)"$/\1/p' <<<"$STATUS_ENV")"
[ -n "$DB_URL" ] || die "no DB_URL in 'cielo status -o env'"
[ -z "$GW_SERVICE" ] || [ "$GW_SERVICE" = "$SERVICE_ROLE_KEY" ] \
  || die "the gateway's SERVICE_ROLE_KEY is not the test files' KEY"
say "gateway is up (pid $GW_PID, $API_URL); DB_URL=$DB_URL"

# ---------------------------------------------------------------- seed
# What `supabase db reset` does in test/: no migrations (there are none), then seed.sql, with
# the extensions schema on the search_path as on Supabase's database (crypt, gen_salt).
SEED_REL=test/supabase/seed.sql
# shellcheck disable=SC2016  # a literal $user
SEED_SEARCH_PATH='"$user", public, extensions'
if ! PGOPTIONS="-c search_path=${SEED_SEARCH_PATH// /}" \
  psql "$DB_URL" -X -q -v ON_ERROR_STOP=1 --single-transaction -f "$PKGDIR/$SEED_REL" \
  >>"$LOGS/seed.log" 2>&1; then
  echo "oracle: SEED FAILED at $SEED_REL:" >&2
  grep -E 'ERROR|DETAIL|HINT|psql:' "$LOGS/seed.log" | tail -n 5 >&2
  exit 3
fi
SEED_COUNTS="$(psql "$DB_URL" -X -q -A -t -F ' ' -c "select
  (select count(*) from auth.users), (select count(*) from storage.buckets),
  (select count(*) from storage.objects),
  (select count(*) from pg_policies where schemaname = 'storage')" 2>>"$LOGS/seed.log")"
say "loaded $SEED_REL (auth.users, buckets, objects, storage policies: ${SEED_COUNTS:-?})"

# ---------------------------------------------------------------- jest
say "running jest with node $("$NODE" --version)"
(
  cd "$PKGDIR" &&
    PATH="$PKG/node_modules/.bin:$PATH" CI=true \
      "$NODE" "$PKG/node_modules/jest/bin/jest.js" \
      --ci --runInBand \
      --json --outputFile="$RESULTS_JSON" \
      "$@"
) >"$LOGS/jest.log" 2>&1
JEST_RC=$?
grep -E '^(PASS|FAIL) |^Tests:|^Test Suites:|^Snapshots:|^Time:' "$LOGS/jest.log"

stop_gateway
[ -s "$RESULTS_JSON" ] || die "jest wrote no $RESULTS_JSON (exit $JEST_RC); see $LOGS/jest.log"

# ---------------------------------------------------------------- report
GW_DESC="$CIELO_BIN (built $(date -r "$CIELO_BIN" '+%Y-%m-%d %H:%M'))"
if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
  GW_DESC="$GW_DESC; repo HEAD $(git -C "$REPO" log -1 --format='%h %s' 2>/dev/null)"
  [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ] \
    && GW_DESC="$GW_DESC (with uncommitted changes)"
fi
if [ "${#URL_NOTES[@]}" -gt 0 ]; then
  URL_NOTE="const URL = '$SUITE_URL' rewritten to '$ORACLE_URL' in ${URL_NOTES[*]}"
else
  URL_NOTE="none (the gateway listens on 127.0.0.1:54321, the suite's URL)"
fi
ORACLE_COMMIT="$(git -C "$SRC" log -1 --format='%h %cs' "$FULL_REV")" \
  ORACLE_GATEWAY="$GW_DESC" ORACLE_NODE="$("$NODE" --version)" \
  ORACLE_JEST="$("$NODE" -p 'require(process.argv[1]).version' "$PKG/node_modules/jest/package.json")" \
  ORACLE_URL_NOTE="$URL_NOTE" ORACLE_SEED="$SEED_REL loaded with psql, search_path $SEED_SEARCH_PATH (auth.users, buckets, objects, storage policies: ${SEED_COUNTS:-?})" \
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
const clean = (text) => String(text || '').replace(/\u001b\[[0-9;]*m/g, '').split('\n')
  .map((l) => l.trimEnd()).filter((l) => l.trim() && !/^\s+at /.test(l))
for (const file of r.testResults) {
  const name = path.relative(root, file.name)
  const tests = file.assertionResults || []
  const count = (...states) => tests.filter((t) => states.includes(t.status)).length
  const row = { name, passed: count('passed'), failed: count('failed'), skipped: count('pending', 'skipped', 'todo', 'disabled') }
  if (tests.length === 0 && file.status === 'failed') {
    row.failed = 1 // the file did not run (compile error, beforeAll failure)
    failures.push(`- ${name} (file): ${clean(file.message).slice(0, 6).join(' ⏎ ').slice(0, 600)}`)
  }
  for (const t of tests.filter((t) => t.status === 'failed')) {
    const lines = clean(t.failureMessages[0]).map((l) => l.trim())
    failures.push(`- ${name} › ${t.fullName}:`, '  ```', ...lines.slice(0, 12).map((l) => '  ' + l.slice(0, 300)), '  ```')
  }
  for (const k of Object.keys(total)) total[k] += row[k]
  rows.push(row)
}
rows.sort((a, b) => a.name.localeCompare(b.name))
const out = ['# storage-js oracle results', '']
out.push(`- supabase-js: ${env.ORACLE_COMMIT}`, `- Gateway: ${env.ORACLE_GATEWAY}`, `- Node ${env.ORACLE_NODE}, Jest ${env.ORACLE_JEST} (--ci --runInBand)`)
out.push(`- Database: ${env.ORACLE_SEED}`)
out.push(`- URL adaptation: ${env.ORACLE_URL_NOTE}`, '')
out.push('| File | Passed | Failed | Skipped |', '|---|---:|---:|---:|')
for (const x of rows) out.push(`| ${x.name} | ${x.passed} | ${x.failed} | ${x.skipped} |`)
out.push(`| **Total** | **${total.passed}** | **${total.failed}** | **${total.skipped}** |`, '')
if (failures.length) out.push('## Failures', '', ...failures, '')
console.log(out.join('\n'))
EOF
cat "$RESULTS_MD"
say "wrote $RESULTS_JSON and $RESULTS_MD (logs in $LOGS/); jest exit status $JEST_RC"
exit "$JEST_RC"
