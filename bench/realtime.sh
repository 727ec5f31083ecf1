#!/usr/bin/env bash
# `make bench-realtime`: realtime/v1 under load (bench/realtime/), ~5 min plus the build:
#
#   broadcast 1 sender → 1,000 subscribers, 64 B   ≥ 150,000 deliveries/s, p99 ≤ 50 ms,
#                                                  ≥ 2× a plain Node `ws` fan-out server
#   10,000 idle joined sockets                     ≤ 30 KB of gateway RSS each
#   channel joins                                  ≥ 2,000/s
#   1,000 presence clients                         converge in ≤ 2 s
#   postgres_changes, 100 subscribers              1,000 inserts/s, p99 commit→client ≤ 100 ms,
#                                                  none lost (≥ 500/s with 100 distinct claims)
#
# One release gateway on a private embedded cluster and the Node peer (bench/realtime/peer.mjs),
# each scenario in a fresh load-generator process on the same machine; broadcast runs in
# interleaved rounds against both. Results: bench/results/realtime-latest.{json,md}.
#
# Usage: bench/realtime.sh [--help]. Environment: BENCH_ROUNDS (3), BENCH_SCALE (1),
# BENCH_RESULTS_DIR (bench/results), CIELO_BIN (a gateway binary instead of the release build).
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo pipefail$/{/^set /d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
  exit 0
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
[[ $TARGET_DIR == /* ]] || TARGET_DIR=$ROOT/$TARGET_DIR

log() { printf '[bench-realtime] %s\n' "$*" >&2; }

cd "$ROOT"
if [[ -z ${CIELO_BIN:-} ]]; then
  log "building the release gateway"
  cargo build --release --locked -p cielo-gateway --bins >&2
  export CIELO_BIN=$TARGET_DIR/release/cielo
fi
(cd bench/realtime && npm ci --no-audit --no-fund >&2)
# 10,000 sockets in the load generator and as many in the gateway.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
if (($(ulimit -n) < 10500)); then
  log "only $(ulimit -n) open files allowed per process: the idle-socket scenario needs 10,500"
fi
node bench/realtime/run.mjs
