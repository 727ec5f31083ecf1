#!/usr/bin/env bash
# The SQL test suite: pgTAP files in sql/tests/*.test.sql, run with pg_prove against a private
# PostgreSQL cluster that the gateway itself starts and migrates (the embedded database of
# `cielo serve`, exactly as in production, with the demo seed off). Each test file runs in one
# transaction and rolls back, so they share one migrated database.
#
#   scripts/test-sql.sh [sql/tests/06_courses.test.sql ...]   (default: every file)
#
# Needs pg_prove and the pgTAP extension of the server's version: `scripts/ensure-deps.sh test`
# installs them. CIELO_BIN picks the binary (default: the debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
bin="${CIELO_BIN:-$repo/${CARGO_TARGET_DIR:-target}/debug/cielo}"
[ -x "$bin" ] || { echo "$bin does not exist: build it first (cargo build --bin cielo)" >&2; exit 1; }
command -v pg_prove >/dev/null || { echo "pg_prove is missing: run scripts/ensure-deps.sh test" >&2; exit 1; }

if [ $# -gt 0 ]; then files=("$@"); else files=(sql/tests/*.test.sql); fi

free_port() {
  node -e "const s = require('net').createServer(); s.listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close() })"
}

work="$(mktemp -d "${TMPDIR:-/tmp}/cielo-sql-tests.XXXXXX")"
api_port="$(free_port)"
db_port="$(free_port)"
log="$work/gateway.log"

# A clean environment and a working directory without .env: nothing of the developer's own
# configuration (DATABASE_URL!) can leak in.
(cd "$work" && exec env -i PATH="$PATH" HOME="${HOME:-/tmp}" \
  DATA_DIR="$work/data" API_HOST=127.0.0.1 API_PORT="$api_port" DB_PORT="$db_port" \
  JWT_SECRET=sql-tests-secret-for-the-cielo-gateway-0123456789 SEED_DEMO=false \
  RUST_LOG=warn "$bin" serve) >"$log" 2>&1 &
gateway=$!
stop() {
  kill -TERM "$gateway" 2>/dev/null || true
  wait "$gateway" 2>/dev/null || true
  rm -rf "$work"
}
trap stop EXIT

for _ in $(seq 1 600); do
  grep -q "Secret key:" "$log" && break
  if ! kill -0 "$gateway" 2>/dev/null; then
    echo "The gateway did not start:" >&2
    cat "$log" >&2
    exit 1
  fi
  sleep 0.2
done
grep -q "Secret key:" "$log" || { echo "The gateway did not start in 120 s:" >&2; cat "$log" >&2; exit 1; }

db_url="postgresql://postgres:postgres@127.0.0.1:$db_port/postgres"
psql "$db_url" -X -q -v ON_ERROR_STOP=1 -f sql/tests/helpers.sql >/dev/null
pg_prove --dbname "$db_url" --failures "${files[@]}"
