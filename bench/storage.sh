#!/usr/bin/env bash
# `make bench-storage`: storage/v1 against its targets and its peers, on this machine (~6 min
# plus the build):
#
#   downloads    1 MiB and 50 MiB objects through GET /object/authenticated/… (token check and
#                metadata lookup included), MB/s ≥ 0.7 × nginx serving the same files with
#                sendfile on (wrk, the same connections for both)
#   uploads      50 MiB and 256 MiB raw-body POST /object/… with x-upsert (curl -T), MB/s
#                ≥ 0.6 × `dd bs=1M conv=fdatasync` writing the same file on the same disk;
#                with `mtime` ETags (STORAGE_FILE_ETAG_ALGORITHM) on a second gateway, and
#                with the default MD5 ETags beside them
#   small        1 KiB authenticated downloads ≥ 5,000 req/s with a user token under an RLS
#                policy (p99 reported; the service key and nginx measured beside it)
#   memory       the gateway's RSS flat (±20 MiB) while a 1 GiB upload, then a 1 GiB
#                download stream (VmRSS every 20 ms)
#   transforms   a 1024 px JPEG → 256 px WebP, p50 ≤ 50 ms for cold renders (each of an object
#                never rendered: the gateway caches renders by object version and
#                parameters), against libvips' vipsthumbnail resizing the same images (the
#                library of Supabase's own renderer, imgproxy); cached renders reported too
#
# One release gateway on a private embedded cluster (a second one for the mtime uploads; free ports, SEED_DEMO=false,
# FILE_SIZE_LIMIT raised to 2 GiB for the 1 GiB object) and nginx, each in its own session
# (setsid); the files are random bytes made for the run, on the disk that holds the gateway's
# storage. The pairs are interleaved in BENCH_ROUNDS rounds (gateway, then its peer), each
# ratio taken within a round, and the median over the rounds reported. The harness
# (`python3 -m cielo_bench storage-run`, bench/cielo_bench/storage.py) runs the rounds, samples
# CPU and RSS, and writes bench/results/storage-latest.{json,md}.
#
# Usage: bench/storage.sh [--help]. Environment: BENCH_ROUNDS (3), BENCH_SECONDS (8, per wrk
# run), BENCH_CONNECTIONS (32, the 1 KiB downloads), BENCH_DOWNLOAD_CONNECTIONS (4, the 1 and
# 50 MiB downloads), BENCH_RENDERS (20 cold renders per round), BENCH_RESULTS_DIR
# (bench/results), BENCH_KEEP_WORKDIR=1, CIELO_BIN (a gateway binary instead of the release
# build).
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo pipefail$/{/^set /d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
  exit 0
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS_DIR=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
ROUNDS=${BENCH_ROUNDS:-3}
SECONDS_PER_RUN=${BENCH_SECONDS:-8}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
DOWNLOAD_CONNECTIONS=${BENCH_DOWNLOAD_CONNECTIONS:-4}
RENDERS=${BENCH_RENDERS:-20}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
[[ $TARGET_DIR == /* ]] || TARGET_DIR=$ROOT/$TARGET_DIR  # make exports a relative CARGO_TARGET_DIR
JWT_SECRET=bench-secret-for-the-storage-benchmark-0123456789
USER_ID=0b000000-0000-4000-8000-0000000000b5
# The 1 GiB object of the memory run needs more than the default 50 MiB.
FILE_SIZE_LIMIT=2147483648

log() { printf '[bench-storage] %s\n' "$*" >&2; }
die() { printf '[bench-storage] error: %s\n' "$*" >&2; exit 1; }

apt_install() {
  [[ $(id -u) == 0 ]] || die "missing $*: install with: sudo apt-get install -y $*"
  log "installing $* with apt-get"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 || {
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
  }
}

command -v python3 >/dev/null || die "python3 is required"
command -v curl >/dev/null || apt_install curl
command -v wrk >/dev/null || apt_install wrk
command -v nginx >/dev/null || apt_install nginx
command -v setsid >/dev/null || apt_install util-linux
command -v psql >/dev/null || apt_install postgresql-client
# The transformation peer; without it (not root, no package) that ratio is left out.
if ! command -v vipsthumbnail >/dev/null && [[ $(id -u) == 0 ]]; then
  apt_install libvips-tools || log "libvips-tools could not be installed: no transformation peer"
fi
VIPSTHUMBNAIL=$(command -v vipsthumbnail || true)

[[ -z ${CIELO_BIN:-} ]] || CIELO_BIN=$(realpath "$CIELO_BIN")  # the gateway starts in its own directory
cd "$ROOT"
if [[ -z ${CIELO_BIN:-} ]]; then
  log "building the release gateway"
  cargo build --release --locked -p cielo-gateway --bins >&2
  CIELO_BIN=$TARGET_DIR/release/cielo
fi
[[ -x $CIELO_BIN ]] || die "no gateway binary at $CIELO_BIN"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
WORK=$(mktemp -d /tmp/cielo-storage-bench.XXXXXX)
chmod 755 "$WORK"  # nginx's workers read the files as nobody
GATEWAY_PIDS=()
NGINX_PID=""
stop_pid() { # pid signal
  [[ -n $1 ]] && kill -0 "$1" 2>/dev/null || return 0
  kill "-$2" "$1" 2>/dev/null || true
  for _ in $(seq 1 300); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  local status=$?
  set +e
  stop_pid "$NGINX_PID" TERM
  # SIGINT: a gateway stops at once and takes its PostgreSQL cluster down with it.
  local pid
  for pid in "${GATEWAY_PIDS[@]}"; do stop_pid "$pid" INT; done
  if [[ $status != 0 ]]; then
    for f in "$WORK"/gateway*.stderr "$WORK/nginx/error.log"; do
      [[ -s $f ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
    done
  fi
  if [[ ${BENCH_KEEP_WORKDIR:-0} == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the files: random bytes, on the disk of the gateway's storage and dd's target ----------------

mkdir -p "$WORK/files" "$WORK/dd" "$WORK/render" "$WORK/nginx" "$WORK/gateway" "$WORK/no-web"
log "making the files (1 KiB, 1 MiB, 50 MiB, 256 MiB, 1 GiB of random bytes)"
for spec in 1k:1 1m:1024 50m:51200 256m:262144 1g:1048576; do
  head -c "$((${spec#*:} * 1024))" /dev/urandom >"$WORK/files/${spec%%:*}.bin"
done
[[ $(stat -c %s "$WORK/files/1k.bin") == 1024 ]] || die "the 1 KiB file came out wrong"
# Written back now: the kernel writing 1.3 GB back during the first runs would be measured.
sync

# --- nginx: the same files, sendfile on -----------------------------------------------------------

NGINX_PORT=$(free_port)
cat >"$WORK/nginx/nginx.conf" <<EOF
worker_processes $(nproc);
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000000;
  client_body_temp_path $WORK/nginx/body;
  proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
  types { application/octet-stream bin; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $WORK/files;
  }
}
EOF
# Its own session, as a service runs (bench/README.md).
(exec setsid nginx -c "$WORK/nginx/nginx.conf") >"$WORK/nginx/stdout.log" 2>&1 &
NGINX_PID=$!

# --- the gateways ---------------------------------------------------------------------------------

# start_gateway <name> [VAR=value...]: a gateway on its own embedded cluster in $WORK/<name>,
# with a private bucket and the policies that let the user read and write its own folder.
# Sets STARTED_PID, STARTED_PORT, STARTED_DB_URL, STARTED_SERVICE_KEY, STARTED_POSTMASTER_PID.
start_gateway() {
  local name=$1 port db_port status
  shift
  port=$(free_port)
  db_port=$(free_port)
  mkdir -p "$WORK/$name"
  local env=(
    env -i PATH="$PATH" HOME="${HOME:-/root}" LANG=C.UTF-8
    DATA_DIR="$WORK/$name/data" API_HOST=127.0.0.1 API_PORT="$port" DB_PORT="$db_port"
    JWT_SECRET="$JWT_SECRET" WEB_DIR="$WORK/no-web" SEED_DEMO=false LOG_LEVEL=warn
    FILE_SIZE_LIMIT="$FILE_SIZE_LIMIT" "$@"
  )
  log "starting $name on 127.0.0.1:$port${*:+ ($*)}"
  (cd "$WORK/$name" && exec setsid "${env[@]}" "$CIELO_BIN") >"$WORK/$name.stdout" 2>"$WORK/$name.stderr" &
  STARTED_PID=$!
  GATEWAY_PIDS+=("$STARTED_PID")
  for _ in $(seq 1 600); do
    grep -q 'Secret key:' "$WORK/$name.stdout" 2>/dev/null && break
    kill -0 "$STARTED_PID" 2>/dev/null || die "$name exited during start-up"
    sleep 0.2
  done
  grep -q 'Secret key:' "$WORK/$name.stdout" || die "$name did not start in 120 s"
  status=$(cd "$WORK/$name" && "${env[@]}" "$CIELO_BIN" status -o env)
  STARTED_PORT=$port
  STARTED_DB_URL=$(sed -n 's/^DB_URL="\(.*\)"$/\1/p' <<<"$status")
  STARTED_SERVICE_KEY=$(sed -n 's/^SERVICE_ROLE_KEY="\(.*\)"$/\1/p' <<<"$status")
  [[ -n $STARTED_DB_URL && -n $STARTED_SERVICE_KEY ]] || die "cielo status -o env gave no DB_URL / SERVICE_ROLE_KEY"
  STARTED_POSTMASTER_PID=$(head -n 1 "$WORK/$name/data/postgres/postmaster.pid")
  local code
  code=$(curl -s -o "$WORK/$name.bucket.json" -w '%{http_code}' -H "Authorization: Bearer $STARTED_SERVICE_KEY" \
    -H 'Content-Type: application/json' -d '{"id":"bench","name":"bench","public":false}' \
    "http://127.0.0.1:$port/storage/v1/bucket")
  [[ $code == 200 ]] || die "creating the bucket answered $code: $(cat "$WORK/$name.bucket.json")"
  psql "$STARTED_DB_URL" -X -q -v ON_ERROR_STOP=1 -f "$ROOT/bench/sql/storage.sql"
}

# Everything is measured on the defaults; uploads are also measured with `mtime` ETags (no
# MD5 of the bytes), on a second gateway used for nothing else.
start_gateway gateway
API_PORT=$STARTED_PORT GATEWAY_PID=$STARTED_PID POSTMASTER_PID=$STARTED_POSTMASTER_PID
DB_URL=$STARTED_DB_URL SERVICE_KEY=$STARTED_SERVICE_KEY
start_gateway gateway-mtime STORAGE_FILE_ETAG_ALGORITHM=mtime
MTIME_PORT=$STARTED_PORT MTIME_PID=$STARTED_PID MTIME_POSTMASTER_PID=$STARTED_POSTMASTER_PID
for _ in $(seq 1 100); do
  [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$NGINX_PORT/1k.bin" || true) == 200 ]] && break
  kill -0 "$NGINX_PID" 2>/dev/null || die "nginx exited during start-up"
  sleep 0.1
done

git_rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ -n $(git -C "$ROOT" status --porcelain -- gateway sql Cargo.toml Cargo.lock 2>/dev/null) ]] && git_rev+="+dirty"
log "$ROUNDS rounds: wrk ${SECONDS_PER_RUN}s runs (7 a round), uploads against dd, $RENDERS cold renders"
mkdir -p "$RESULTS_DIR"
cd "$ROOT/bench"
python3 -m cielo_bench storage-run "$WORK" "$RESULTS_DIR" \
  gateway_url="http://127.0.0.1:$API_PORT" gateway_mtime_url="http://127.0.0.1:$MTIME_PORT" nginx_url="http://127.0.0.1:$NGINX_PORT" \
  user_id="$USER_ID" jwt_secret="$JWT_SECRET" service_key="$SERVICE_KEY" \
  files_dir="$WORK/files" dd_dir="$WORK/dd" storage_dir="$WORK/gateway/data/storage" \
  render_dir="$WORK/render" image="$ROOT/gateway/tests/fixtures/storage/aula-1024.jpg" \
  bench_dir="$ROOT/bench" vipsthumbnail="$VIPSTHUMBNAIL" \
  gateway_pid="$GATEWAY_PID" postmaster_pid="$POSTMASTER_PID" nginx_pid="$NGINX_PID" \
  gateway_mtime_pid="$MTIME_PID" postmaster_mtime_pid="$MTIME_POSTMASTER_PID" \
  rounds="$ROUNDS" seconds="$SECONDS_PER_RUN" connections="$CONNECTIONS" \
  download_connections="$DOWNLOAD_CONNECTIONS" renders="$RENDERS" \
  upload_repeats_50m=3 upload_repeats_256m=2 commit="$git_rev" \
  postgresql="$(psql "$DB_URL" -X -At -c 'SHOW server_version')" \
  gateway_env="release build, embedded PostgreSQL, defaults but FILE_SIZE_LIMIT=$FILE_SIZE_LIMIT"
