#!/usr/bin/env bash
# `make bench-auth`: auth/v1 against its targets, on this machine:
#
#   sign-ins     password sign-ins/s ≥ 0.95 × raw bcrypt cost-10 verifications/s (all cores)
#   storm        REST p99 while 32 sign-ins and 32 REST connections run ≤ 2 × REST p99 alone
#   refresh      refresh-token grants/s (with rotation) ≥ 0.8 × pgbench doing the same
#                database work (bench/results: refresh.pgbench), and their p99 ≤ 25 ms
#
# One release gateway on a private embedded cluster (loopback, free ports), the load from
# bench/src/bin/auth_bench.rs (BENCH_CONNECTIONS concurrent loops), pgbench -M prepared
# with the same connection count. Results: bench/results/auth-latest.{json,md}.
#
# The SQL is in bench/sql/auth-*.sql, the report in the harness (`python3 -m cielo_bench
# auth-report`, bench/cielo_bench/auth.py).
#
# Usage: bench/auth.sh [--help]. Environment: BENCH_SECONDS (10), BENCH_CONNECTIONS (32),
# BENCH_RESULTS_DIR (bench/results), BENCH_KEEP_WORKDIR=1.
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo pipefail$/{/^set /d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
  exit 0
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/pg-socket.sh
source "$ROOT/bench/pg-socket.sh"
RESULTS_DIR=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
SECONDS_PER_RUN=${BENCH_SECONDS:-10}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
[[ $TARGET_DIR == /* ]] || TARGET_DIR=$ROOT/$TARGET_DIR  # make exports a relative CARGO_TARGET_DIR

log() { printf '[bench-auth] %s\n' "$*" >&2; }

cd "$ROOT"
log "building the release gateway and the load generator"
cargo build --release --locked -p cielo-gateway -p cielo-bench --bins >&2

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
WORK=$(mktemp -d /tmp/cielo-auth-bench.XXXXXX)
chmod 755 "$WORK"
API_PORT=$(free_port)
DB_PORT=$(free_port)
GATEWAY_PID=""
cleanup() {
  if [[ -n $GATEWAY_PID ]] && kill -0 "$GATEWAY_PID" 2>/dev/null; then
    kill -TERM "$GATEWAY_PID"
    wait "$GATEWAY_PID" 2>/dev/null || true
  fi
  if [[ ${BENCH_KEEP_WORKDIR:-0} == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

GATEWAY_ENV=(
  env -i PATH="$PATH" HOME="${HOME:-/root}" LANG=C.UTF-8
  DATA_DIR="$WORK/data" API_HOST=127.0.0.1 API_PORT="$API_PORT" DB_PORT="$DB_PORT"
  JWT_SECRET=bench-secret-for-the-auth-benchmark-0123456789 WEB_DIR="$WORK/no-web"
  ENABLE_EMAIL_AUTOCONFIRM=true LOG_LEVEL=warn
  # The load comes from one address: per-IP limits would cut it short.
  RATE_LIMIT_TOKEN_REFRESH=1000000000 RATE_LIMIT_OTP=1000000000 RATE_LIMIT_VERIFY=1000000000
)
# Its own session (setsid), as a service runs: with autogroup scheduling a gateway sharing the
# load generator's session starves its database backends (see bench/run.sh).
(cd "$WORK" && exec setsid "${GATEWAY_ENV[@]}" "$TARGET_DIR/release/cielo") >"$WORK/gateway.stdout" 2>"$WORK/gateway.stderr" &
GATEWAY_PID=$!
for _ in $(seq 1 600); do
  grep -q 'Secret key:' "$WORK/gateway.stdout" 2>/dev/null && break
  kill -0 "$GATEWAY_PID" 2>/dev/null || { cat "$WORK/gateway.stderr" >&2; exit 1; }
  sleep 0.2
done
STATUS=$(cd "$WORK" && "${GATEWAY_ENV[@]}" "$TARGET_DIR/release/cielo" status -o env)
value() { sed -n "s/^$1=\"\(.*\)\"$/\1/p" <<<"$STATUS"; }
DB_URL=$(value DB_URL)

psql "$DB_URL" -X -q -v ON_ERROR_STOP=1 -f "$ROOT/bench/sql/auth-notes.sql"
sleep 1

log "gateway load: $CONNECTIONS connections, ${SECONDS_PER_RUN}s per run"
BENCH_URL="http://127.0.0.1:$API_PORT" BENCH_ANON_KEY=$(value ANON_KEY) \
  BENCH_SERVICE_KEY=$(value SERVICE_ROLE_KEY) BENCH_SECONDS="$SECONDS_PER_RUN" \
  BENCH_CONNECTIONS="$CONNECTIONS" BENCH_OUT="$WORK" \
  "$TARGET_DIR/release/auth_bench" >/dev/null

log "pgbench: the database work of a refresh grant"
psql "$DB_URL" -X -q -v ON_ERROR_STOP=1 -f "$ROOT/bench/sql/auth-sessions.sql"
TOKENS_BEFORE=$(psql "$DB_URL" -X -Atq -c 'SELECT count(*) FROM auth.refresh_tokens')
# pgbench reaches the cluster the way the gateway does (bench/pg-socket.sh).
pgbench "$(pg_socket_url "$DB_URL" "$WORK/data" "$DB_PORT")" -n -M prepared -c "$CONNECTIONS" -j 2 -T "$SECONDS_PER_RUN" \
  -f "$WORK/refresh.pgbench" >"$WORK/pgbench.out" 2>&1 || { cat "$WORK/pgbench.out" >&2; exit 1; }
PGBENCH_TPS=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$WORK/pgbench.out" | head -n 1)
PGBENCH_LATENCY=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' "$WORK/pgbench.out")
# Every pgbench transaction must have rotated a token, or it measured less work.
PGBENCH_COUNT=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$WORK/pgbench.out")
TOKENS_AFTER=$(psql "$DB_URL" -X -Atq -c 'SELECT count(*) FROM auth.refresh_tokens')
if (( TOKENS_AFTER - TOKENS_BEFORE != PGBENCH_COUNT )); then
  log "pgbench rotated $((TOKENS_AFTER - TOKENS_BEFORE)) tokens in $PGBENCH_COUNT transactions"
  exit 1
fi

mkdir -p "$RESULTS_DIR"
cp "$WORK/refresh.pgbench" "$RESULTS_DIR/refresh.pgbench"
PYTHONPATH="$ROOT/bench" python3 -m cielo_bench auth-report "$WORK/gateway.json" "$PGBENCH_TPS" "$PGBENCH_LATENCY" \
  "$RESULTS_DIR" "$(pg_transport "$WORK/data" "$DB_PORT")"
