#!/usr/bin/env bash
# postgrest-js compatibility oracle: runs the official postgrest-js integration suite
# (supabase/supabase-js monorepo, packages/core/postgrest-js/test) against a Cielo gateway.
#
#   scripts/oracle/postgrest-js.sh                       # whole suite
#   scripts/oracle/postgrest-js.sh test/rpc.test.ts      # extra args go to jest (path, -t NAME)
#
# Setup (when needed): takes packages/core/postgrest-js and the root tsconfig.base.json at
# SUPABASE_JS_REV from SUPABASE_JS_DIR (an existing clone, bare or not) or from a partial
# clone of SUPABASE_JS_URL made in the work directory, writes a standalone package.json
# (the monorepo's pinned test toolchain, Node 22) and npm-installs it, and installs PostGIS
# with apt-get when root (the fixture creates the extension). No upstream code enters the
# Cielo repository: everything lives in the work directory.
#
# Run: the gateway on a fresh embedded cluster (API 54321 / DB 54322, both hardcoded in the
# suite; refuses if busy), the suite's fixture (test/supabase/migrations/*.sql + seed.sql)
# loaded with psql, the recorded server's one non-default planner setting, a schema-cache
# reload, then Jest (--ci, never -u), skipping test/v12/ (needs PostgREST v12 on :3012).
# Writes results.json, results.md and logs/ to the work directory and prints the per-file
# table. Exit status: Jest's (0 only if everything passed); 2 for harness problems, 3 if the
# fixture does not load.
#
# Environment:
#   CIELO_BIN          gateway binary (default <repo>/target/debug/cielo; never built here)
#   CIELO_ORACLE_DIR   work directory (default $HOME/.cache/cielo-oracle)
#   SUPABASE_JS_DIR    existing supabase-js git repository to read from instead of cloning
#   SUPABASE_JS_URL    what to clone otherwise (default https://github.com/supabase/supabase-js)
#   SUPABASE_JS_REV    supabase-js revision (default: the pinned 381bded5, see DEFAULT_REV)
#   KEEP_DATA=1        keep the temporary gateway data directory
#   STARTUP_TIMEOUT    seconds to wait for the gateway (default 180)
#   CIELO_API_HOST     gateway API_HOST (default: the gateway's default)
#   LOG_LEVEL          gateway log level (default info)
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"

case "${1:-}" in
  -h | --help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
esac

# supabase-js master of 2026-08-07 (postgrest-js 2.112.2 + 5 commits), the revision the numbers
# in docs/compatibility.md come from.
DEFAULT_REV=381bded5ced48c4621830576bf8cbecc34edc85c
REV="${SUPABASE_JS_REV:-$DEFAULT_REV}"
UPSTREAM_URL="${SUPABASE_JS_URL:-https://github.com/supabase/supabase-js}"
WORK="${CIELO_ORACLE_DIR:-${HOME:?set HOME or CIELO_ORACLE_DIR}/.cache/cielo-oracle}"
CIELO_BIN="${CIELO_BIN:-$REPO/target/debug/cielo}"
SUB=packages/core/postgrest-js
API_PORT=54321   # hardcoded in the suite (http://localhost:54321/rest/v1)
DB_PORT=54322
JWT_SECRET="postgrest-js-oracle-jwt-secret-0123456789abcdef"   # fixed, >= 32 chars
STARTUP_TIMEOUT="${STARTUP_TIMEOUT:-180}"
EXCLUDE_PATTERN='test/v12/'

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

port_busy() {  # true if something listens on TCP port $1 (any address)
  if command -v ss >/dev/null && [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; then
    return 0
  fi
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
for p in $API_PORT $DB_PORT; do
  if port_busy "$p"; then
    die "port $p is busy (the suite needs $API_PORT and $DB_PORT); stop whatever listens there:
$(ss -ltnp "sport = :$p" 2>/dev/null)"
  fi
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

# ---------------------------------------------------------------- setup: test toolchain
# Versions: the monorepo's pnpm catalog (pnpm-workspace.yaml) and the package's own
# devDependencies, pinned to the exact releases the published numbers were measured with;
# tslib from its dependencies; ts-node lets Jest read jest.config.ts (the monorepo root has
# it). The npm package "node" provides Node 22 (the package declares engines.node >= 22).
PACKAGE_JSON='{
  "name": "postgrest-js-oracle",
  "private": true,
  "description": "Standalone test harness for supabase-js packages/core/postgrest-js (Cielo compatibility oracle)",
  "devDependencies": {
    "@jest/types": "30.5.1",
    "@types/jest": "30.0.0",
    "@types/node": "20.19.9",
    "jest": "30.4.2",
    "node": "22.23.3",
    "prettier": "3.10.1",
    "ts-jest": "29.4.15",
    "ts-node": "10.9.2",
    "tslib": "2.8.1",
    "type-fest": "4.41.0",
    "typescript": "5.8.3",
    "zod": "3.25.76"
  }
}'
CATALOG="$(git -C "$SRC" show "$FULL_REV:pnpm-workspace.yaml" 2>/dev/null || true)"
for want in "typescript: ~5.8.3" "jest: 30.4.2" "ts-jest: ^29.4.9" "'@types/jest': 30.0.0"; do
  grep -qF "  $want" <<<"$CATALOG" \
    || warn "the pnpm catalog at $REV no longer has '$want'; update the versions in $0"
done

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

# The fixture does `create extension postgis` (public.shops has a geometry column). PostGIS
# is not in postgresql-contrib; Debian ships it as postgresql-<major>-postgis-3, for the
# server major version the gateway's embedded cluster will use.
pg_version() {
  if command -v postgres >/dev/null; then
    postgres --version
  else
    find /usr/lib/postgresql -path '*/bin/postgres' 2>/dev/null | sort -V | tail -n 1 | xargs -r -I{} {} --version
  fi
}
PG_MAJOR="$(pg_version | grep -oE '[0-9]+' | head -n 1)"
if [ -n "$PG_MAJOR" ] && [ ! -f "/usr/share/postgresql/$PG_MAJOR/extension/postgis.control" ]; then
  pkg_name="postgresql-$PG_MAJOR-postgis-3"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing $pkg_name (the fixture needs the postgis extension)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "$pkg_name" >/dev/null \
      || { apt-get update -q >/dev/null && apt-get install -y -q "$pkg_name" >/dev/null; } \
      || warn "could not install $pkg_name; the fixture will fail at 'create extension postgis'"
  else
    warn "PostGIS is missing for PostgreSQL $PG_MAJOR; run: sudo apt-get install $pkg_name"
  fi
fi

# ---------------------------------------------------------------- gateway
# /tmp, not the work directory: when run as root the embedded cluster runs as the
# unprivileged postgres user, which must be able to reach its data directory.
RUN_DIR="$(mktemp -d /tmp/cielo-oracle.XXXXXX)" || die "mktemp failed"
chmod 755 "$RUN_DIR"
DATA_DIR="$RUN_DIR/data"
mkdir -p "$DATA_DIR" "$LOGS"
chmod 755 "$DATA_DIR"
rm -f "$LOGS"/* "$RESULTS_JSON" "$RESULTS_MD"

# A clean environment (no DATABASE_URL or keys from the caller), run from an empty directory
# so no .env file is picked up. The PGRST_* settings mirror test/supabase/config.toml [api].
GW_ENV=(
  env -i
  PATH="$PATH" HOME="${HOME:-/root}" LANG=C.UTF-8
  DATA_DIR="$DATA_DIR" API_PORT="$API_PORT" DB_PORT="$DB_PORT" JWT_SECRET="$JWT_SECRET"
  WEB_DIR="$RUN_DIR/no-web"
  SEED_DEMO=false          # the demo rows are not part of the suite's fixture
  PGRST_DB_SCHEMAS="public,personal"
  PGRST_DB_EXTRA_SEARCH_PATH="public,extensions"
  PGRST_DB_MAX_ROWS=1000
  API_KEY_REQUIRED=false   # the suite sends no apikey, like the Supabase CLI's local stack
  LOG_LEVEL="${LOG_LEVEL:-info}"
)
[ -n "${CIELO_API_HOST:-}" ] && GW_ENV+=(API_HOST="$CIELO_API_HOST")

# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
  end_run
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_gateway
DB_URL="$(sed -n 's/^DB_URL="\(.*\)"$/\1/p' <<<"$STATUS_ENV")"
API_URL="$(sed -n 's/^API_URL="\(.*\)"$/\1/p' <<<"$STATUS_ENV")"
[ -n "$DB_URL" ] || die "no DB_URL in 'cielo status -o env'"
say "API_URL=$API_URL DB_URL=$DB_URL"

# ---------------------------------------------------------------- fixture
# What `supabase db reset` does: the migrations in order, then the seed.
FIXTURE_FILES=("$PKGDIR"/test/supabase/migrations/*.sql "$PKGDIR/test/supabase/seed.sql")
for f in "${FIXTURE_FILES[@]}"; do
  rel="${f#"$PKGDIR"/}"
  if ! psql "$DB_URL" -X -q -v ON_ERROR_STOP=1 --single-transaction -f "$f" >>"$LOGS/fixture.log" 2>&1; then
    echo "oracle: FIXTURE FAILED at $rel:" >&2
    grep -E 'ERROR|psql:' "$LOGS/fixture.log" | tail -n 5 >&2
    exit 3
  fi
  say "loaded $rel"
done
# The Supabase objects and default privileges the fixture relies on (warn only).
if psql "$DB_URL" -X -q -A -F ' | ' -t -f "$HERE/fixture-check.sql" >"$LOGS/fixture-check.txt" 2>&1; then
  n_ok="$(grep -c '^ok' "$LOGS/fixture-check.txt")"
  n_fail="$(grep -c '^FAIL' "$LOGS/fixture-check.txt")"
  say "fixture check: $n_ok ok, $n_fail FAIL (see $LOGS/fixture-check.txt)"
  grep '^FAIL' "$LOGS/fixture-check.txt" | sed 's/^/oracle:   /' >&2
else
  warn "fixture check query failed: $(tail -n 2 "$LOGS/fixture-check.txt")"
fi
# The database server the snapshots were recorded on (the Supabase CLI's container) is tuned
# with effective_cache_size = 128MB, and `explain({ settings: true })` lists the settings that
# differ from PostgreSQL's defaults; tune this cluster the same way (server tuning, not a
# gateway setting).
psql "$DB_URL" -X -q -v ON_ERROR_STOP=1 -c "ALTER SYSTEM SET effective_cache_size = '128MB'" \
  -c "SELECT pg_reload_conf()" >>"$LOGS/fixture.log" 2>&1 \
  || die "could not set effective_cache_size (see $LOGS/fixture.log)"
psql "$DB_URL" -X -q -v ON_ERROR_STOP=1 -c "NOTIFY pgrst, 'reload schema'" >>"$LOGS/fixture.log" 2>&1 \
  || die "NOTIFY pgrst failed (see $LOGS/fixture.log)"
sleep 1   # let the schema cache listener pick the notification up

# ---------------------------------------------------------------- jest
say "running jest with node $("$NODE" --version)"
(
  cd "$PKGDIR" &&
    PATH="$PKG/node_modules/.bin:$PATH" CI=true \
      "$NODE" "$PKG/node_modules/jest/bin/jest.js" \
      --ci --runInBand \
      --testPathIgnorePatterns="$EXCLUDE_PATTERN" \
      --json --outputFile="$RESULTS_JSON" \
      "$@"
) 2>&1 | tee "$LOGS/jest.log" | grep -E '^(PASS|FAIL) |^Tests:|^Test Suites:|^Snapshots:|^Time:'
JEST_RC=${PIPESTATUS[0]}

stop_gateway

[ -s "$RESULTS_JSON" ] || die "jest wrote no $RESULTS_JSON (exit $JEST_RC); see $LOGS/jest.log"

# ---------------------------------------------------------------- report
DESCRIBE="$(git -C "$SRC" describe --tags "$FULL_REV" 2>/dev/null || true)"
CHANGELOG_VER="$(grep -m1 -oE '^## [0-9][^ ]*' "$PKGDIR/CHANGELOG.md" 2>/dev/null | cut -c4-)"
GW_DESC="$CIELO_BIN (built $(date -r "$CIELO_BIN" '+%Y-%m-%d %H:%M'))"
BIN_DIR="$(dirname "$CIELO_BIN")"
if git -C "$BIN_DIR" rev-parse --git-dir >/dev/null 2>&1; then
  GW_DESC="$GW_DESC; repo HEAD $(git -C "$BIN_DIR" log -1 --format='%h %s' 2>/dev/null)"
  [ -n "$(git -C "$BIN_DIR" status --porcelain --untracked-files=no 2>/dev/null)" ] \
    && GW_DESC="$GW_DESC (with uncommitted changes)"
fi
ORACLE_DATE="$(date '+%Y-%m-%d %H:%M:%S %Z')" \
  ORACLE_COMMIT="$(git -C "$SRC" log -1 --format='%h %cs' "$FULL_REV")" \
  ORACLE_PKG_VERSION="${CHANGELOG_VER:-?} (latest CHANGELOG entry; package.json says 0.0.0-automated; git describe: ${DESCRIBE:-?})" \
  ORACLE_GATEWAY="$GW_DESC" \
  ORACLE_NODE="$("$NODE" --version)" \
  ORACLE_JEST="$("$NODE" -p 'require(process.argv[1]).version' "$PKG/node_modules/jest/package.json")" \
  ORACLE_FIXTURE="test/supabase/migrations/*.sql + seed.sql loaded with psql; effective_cache_size = 128MB; NOTIFY pgrst 'reload schema'" \
  ORACLE_EXCLUDED="test/v12/ (needs PostgREST v12 on :3012); *.test-d.ts are type-only (tstyche, not Jest)" \
  ORACLE_PKG_DIR="$PKGDIR" \
  "$NODE" "$HERE/summarize.js" "$RESULTS_JSON" "$RESULTS_MD"
say "wrote $RESULTS_JSON and $RESULTS_MD (logs in $LOGS/); jest exit status $JEST_RC"
exit "$JEST_RC"
