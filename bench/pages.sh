#!/usr/bin/env bash
# `make bench-pages`: the web app's main pages in headless Chromium on the seeded demo:
#
#   /dashboard, /courses, /schedule, /calendar,  interactive ≤ 1.0 s after sign-in on a warm
#   /planner/create?plan=… (a demo plan)         stack, initial download ≤ 250 KB (gzip)
#   the planner (bench/pages/planner.mjs)        first generated text ≤ 1.5 s, autosave round
#                                                trip p95 ≤ 300 ms, no task > 50 ms while typing
#                                                in a 5,000-word plan
#
# One release gateway on a private embedded cluster with the demo seeded (SEED_DEMO, the
# default) serving the built app (frontend/dist) and generating with the tests' model
# (SmolLM2-135M, fetched once into the target directory); the landing page, loaded the same
# way in the same rounds, is the pages' peer. Results: bench/results/pages-latest.{json,md}
# and planner-latest.{json,md}.
#
# Usage: bench/pages.sh [--help]. Environment: BENCH_ROUNDS (7), BENCH_RESULTS_DIR
# (bench/results), CIELO_BIN (a gateway binary to use instead of building the release one),
# CHROMIUM_PATH, BENCH_KEEP_WORKDIR=1.
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo pipefail$/{/^set /d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
  exit 0
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS_DIR=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
[[ $TARGET_DIR == /* ]] || TARGET_DIR=$ROOT/$TARGET_DIR  # make exports a relative CARGO_TARGET_DIR

log() { printf '[bench-pages] %s\n' "$*" >&2; }

cd "$ROOT"
if [[ -z ${CIELO_BIN:-} ]]; then
  log "building the release gateway"
  cargo build --release --locked -p cielo-gateway --bins >&2
  CIELO_BIN=$TARGET_DIR/release/cielo
fi
log "building the app"
(cd frontend && npm run build >&2)
MODEL=$("$CIELO_BIN" model fetch --model smollm2-135m --dir "$TARGET_DIR/tmp/models")

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
WORK=$(mktemp -d /tmp/cielo-pages-bench.XXXXXX)
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
  WEB_DIR="$ROOT/frontend/dist" API_EXTERNAL_URL="http://127.0.0.1:$API_PORT"
  SITE_URL="http://127.0.0.1:$API_PORT" LOG_LEVEL=warn
  AI_PROVIDER=local AI_MODEL_PATH="$MODEL" AI_ZONE_MAX_TOKENS=16
)
# Its own session, as a service runs (see bench/run.sh on autogroup scheduling).
(cd "$WORK" && exec setsid "${GATEWAY_ENV[@]}" "$CIELO_BIN") >"$WORK/gateway.stdout" 2>"$WORK/gateway.stderr" &
GATEWAY_PID=$!
for _ in $(seq 1 600); do
  grep -q 'Secret key:' "$WORK/gateway.stdout" 2>/dev/null && break
  kill -0 "$GATEWAY_PID" 2>/dev/null || { cat "$WORK/gateway.stderr" >&2; exit 1; }
  sleep 0.2
done
STATUS=$(cd "$WORK" && "${GATEWAY_ENV[@]}" "$CIELO_BIN" status -o env)
value() { sed -n "s/^$1=\"\(.*\)\"$/\1/p" <<<"$STATUS"; }
ANON_KEY=$(value ANON_KEY)
# The seeded demo teacher, as the status block names her.
export BENCH_DEMO_EMAIL BENCH_DEMO_PASSWORD
BENCH_DEMO_EMAIL=$(value DEMO_TEACHER_EMAIL)
BENCH_DEMO_PASSWORD=$(value DEMO_PASSWORD)

log "measuring ${BENCH_ROUNDS:-7} rounds"
mkdir -p "$RESULTS_DIR"
status=0
node "$ROOT/bench/pages/measure.mjs" "http://127.0.0.1:$API_PORT" "$ANON_KEY" "$RESULTS_DIR" || status=$?
log "measuring the planner"
node "$ROOT/bench/pages/planner.mjs" "http://127.0.0.1:$API_PORT" "$ANON_KEY" "$RESULTS_DIR" || status=$?
[[ $status -eq 0 ]]
