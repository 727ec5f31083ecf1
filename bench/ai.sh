#!/usr/bin/env bash
# `make bench-ai`: functions/v1 and AI generation against their targets, on this machine:
#
#   native       a trivial native function through the function host ≥ 0.8 × the same
#                handler answering directly from actix-web (bench/src/bin/functions_host.rs)
#   deno         a trivial Edge Function through the gateway ≥ 0.5 × Deno serving it alone;
#                nginx relaying to that same Deno (keep-alive upstream) is measured beside
#                it as the reference for any out-of-process relay (docs/decisions/0007)
#   generation   the default model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M) in the gateway:
#                skeleton ≤ 1 s, first model text ≤ 8 s, a whole single-class plan ≤ 90 s,
#                over BENCH_AI_PLANS plans across levels and subjects no OA code but the
#                requested ones and every zone present; tokens/s ≥ 0.9 × llama.cpp's own
#                llama-server (built from the llama.cpp that llama-cpp-python's sdist
#                vendors) doing the same plans with the same model file, through the same
#                gateway pipeline, compared on the same prompts (the embedded model's second
#                pass over the plans, loaded as the server is)
#
# Host loads: wrk (BENCH_SECONDS per run, BENCH_ROUNDS interleaved rounds, ratio = median of
# the rounds' ratios). Results: bench/results/ai-latest.{json,md}.
#
# Usage: bench/ai.sh [--help]. Environment: BENCH_SECONDS (8), BENCH_ROUNDS (3),
# BENCH_AI_PLANS (20), BENCH_AI_PEER_PLANS (5: the rate comparison), BENCH_AI_PARTS
# ("host generation"), BENCH_RESULTS_DIR (bench/results), BENCH_KEEP_WORKDIR=1.
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo pipefail$/{/^set /d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
  exit 0
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS_DIR=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
SECONDS_PER_RUN=${BENCH_SECONDS:-8}
ROUNDS=${BENCH_ROUNDS:-3}
PLANS=${BENCH_AI_PLANS:-20}
PEER_PLANS=${BENCH_AI_PEER_PLANS:-5}
# "host generation" (both); one of them measures that part alone, the report keeps the
# other part of the last full run.
PARTS=${BENCH_AI_PARTS:-host generation}
part() { [[ " $PARTS " == *" $1 "* ]]; }
THREADS=$(nproc)
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
[[ $TARGET_DIR == /* ]] || TARGET_DIR=$ROOT/$TARGET_DIR
JWT_SECRET=bench-secret-for-the-ai-benchmark-0123456789
USER_ID=0b000000-0000-4000-8000-00000000000b

log() { printf '[bench-ai] %s\n' "$*" >&2; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() {
  for _ in $(seq 1 600); do
    curl -s -o /dev/null "$1" && return 0
    sleep 0.2
  done
  log "nothing answered at $1"
  return 1
}

cd "$ROOT"
log "building the release gateway and the function host benchmark"
cargo build --release --locked -p cielo-gateway -p cielo-bench --bins >&2
if ! command -v nginx >/dev/null && [[ $(id -u) == 0 ]]; then
  log "installing nginx (the relay reference) with apt-get"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light >/dev/null 2>&1 || {
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light >/dev/null
  }
fi
scripts/npm-install.sh functions/runtime >&2
DENO=$(compgen -G "$ROOT/functions/runtime/node_modules/@deno/*/deno" | head -n 1)
CIELO=$TARGET_DIR/release/cielo

MODELS_DIR=${BENCH_MODELS_DIR:-$ROOT/.data/models}
log "the default model (fetched once into $MODELS_DIR)"
MODEL=$("$CIELO" model fetch --model qwen2.5-coder-1.5b --dir "$MODELS_DIR")

# llama.cpp's own server. The llama-cpp-sys-2 crate bundles llama.cpp without its tools, so
# the sources come from the llama-cpp-python sdist on PyPI (pinned below), which vendors the
# whole of llama.cpp; llama-server is built from them once.
LLAMA_SDIST_VERSION=${BENCH_LLAMA_CPP_PYTHON:-0.3.36}
LLAMA_BUILD=$TARGET_DIR/bench/llama.cpp
if [[ ! -x $LLAMA_BUILD/bin/llama-server ]]; then
  log "building llama-server from llama-cpp-python $LLAMA_SDIST_VERSION's llama.cpp (once)"
  SDIST_DIR=$TARGET_DIR/bench/sdist
  mkdir -p "$SDIST_DIR"
  python3 -m pip download --quiet --no-deps --no-binary :all: -d "$SDIST_DIR" \
    "llama-cpp-python==$LLAMA_SDIST_VERSION" >&2
  tar -xzf "$SDIST_DIR/llama_cpp_python-$LLAMA_SDIST_VERSION.tar.gz" -C "$SDIST_DIR"
  rm -rf "$LLAMA_BUILD"
  cmake -S "$SDIST_DIR/llama_cpp_python-$LLAMA_SDIST_VERSION/vendor/llama.cpp" -B "$LLAMA_BUILD" \
    -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON >&2
  cmake --build "$LLAMA_BUILD" --target llama-server -j "$THREADS" >&2
fi

WORK=$(mktemp -d /tmp/cielo-ai-bench.XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ ${BENCH_KEEP_WORKDIR:-0} == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# Each server in its own session (setsid), as services run (see bench/README.md). A
# gateway's ports and settings are kept in $WORK/NAME.env for `cielo status`.
start_gateway() { # name, extra env…
  local name=$1
  shift
  mkdir -p "$WORK/$name"
  printf '%s\n' DATA_DIR="$WORK/$name/data" API_HOST=127.0.0.1 API_PORT="$(free_port)" \
    DB_PORT="$(free_port)" JWT_SECRET="$JWT_SECRET" "$@" >"$WORK/$name.env"
  local settings
  mapfile -t settings <"$WORK/$name.env"
  (cd "$WORK/$name" && exec setsid env -i PATH="$PATH" HOME="${HOME:-/root}" LANG=C.UTF-8 \
    WEB_DIR="$WORK/no-web" SEED_DEMO=false LOG_LEVEL=warn FUNCTIONS_DIR="$WORK/functions" \
    DENO_PATH="$DENO" "${settings[@]}" "$CIELO") >"$WORK/$name.stdout" 2>"$WORK/$name.stderr" &
  PIDS+=($!)
  for _ in $(seq 1 600); do
    grep -q 'Secret key:' "$WORK/$name.stdout" 2>/dev/null && return 0
    kill -0 "${PIDS[-1]}" 2>/dev/null || break
    sleep 0.2
  done
  cat "$WORK/$name.stderr" >&2
  return 1
}
status_value() { # name, key
  local settings
  mapfile -t settings <"$WORK/$1.env"
  (cd "$WORK/$1" && env -i PATH="$PATH" "${settings[@]}" "$CIELO" status -o env) \
    | sed -n "s/^$2=\"\(.*\)\"$/\1/p"
}
port_of() { sed -n 's/^API_PORT=//p' "$WORK/$1.env"; }

# The trivial Edge Function, and the same handler for Deno alone.
mkdir -p "$WORK/functions/hello" "$WORK/no-web"
cat >"$WORK/functions/hello/index.ts" <<'EOF'
Deno.serve(() => new Response('{"message":"Hello"}', { headers: { 'content-type': 'application/json' } }))
EOF
printf '[functions.hello]\nverify_jwt = false\n' >"$WORK/config.toml"
DENO_PORT=$(free_port)
cat >"$WORK/deno-alone.ts" <<EOF
Deno.serve({ port: $DENO_PORT, hostname: '127.0.0.1' }, () => new Response('{"message":"Hello"}', { headers: { 'content-type': 'application/json' } }))
EOF
(exec setsid "$DENO" run --allow-net "$WORK/deno-alone.ts") >"$WORK/deno.log" 2>&1 &
PIDS+=($!)
# nginx in front of that Deno: what a relay with no logic of its own costs.
NGINX_PORT=$(free_port)
cat >"$WORK/nginx.conf" <<EOF
worker_processes $THREADS;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx-body;
  proxy_temp_path $WORK/nginx-proxy;
  upstream deno { server 127.0.0.1:$DENO_PORT; keepalive 64; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location / { proxy_pass http://deno; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
EOF
(exec setsid nginx -c "$WORK/nginx.conf") >>"$WORK/nginx.log" 2>&1 &
PIDS+=($!)

log "starting the gateways"
start_gateway local AI_MODEL_PATH="$MODEL"
GATEWAY_PID=${PIDS[-1]}
GW_PORT=$(port_of local)
ANON=$(status_value local ANON_KEY)
DB_URL=$(status_value local DB_URL)

HOST_PORT=$(free_port)
DIRECT_PORT=$(free_port)
(exec setsid env DATABASE_URL="$DB_URL" JWT_SECRET="$JWT_SECRET" API_HOST=127.0.0.1 API_PORT="$HOST_PORT" \
  LOG_LEVEL=warn "$TARGET_DIR/release/functions_host" --direct-port "$DIRECT_PORT") >"$WORK/host.log" 2>&1 &
PIDS+=($!)
HOST_PID=$!
wait_http "http://127.0.0.1:$DIRECT_PORT/"
wait_http "http://127.0.0.1:$DENO_PORT/"
wait_http "http://127.0.0.1:$NGINX_PORT/"
curl -sf -o /dev/null -H "apikey: $ANON" "http://127.0.0.1:$GW_PORT/functions/v1/hello"
curl -sf -o /dev/null -H "apikey: $ANON" "http://127.0.0.1:$HOST_PORT/functions/v1/hello"

load() { wrk -t 2 -c 16 -d "${SECONDS_PER_RUN}s" -H "apikey: $ANON" -H "authorization: Bearer $ANON" "$1" >"$WORK/$2.wrk"; }
if part host; then
  log "function host: $ROUNDS rounds of ${SECONDS_PER_RUN}s runs"
  for round in $(seq 1 "$ROUNDS"); do
    load "http://127.0.0.1:$HOST_PORT/functions/v1/hello" "native-$round"
    load "http://127.0.0.1:$DIRECT_PORT/" "actix-$round"
    load "http://127.0.0.1:$GW_PORT/functions/v1/hello" "deno-gw-$round"
    load "http://127.0.0.1:$DENO_PORT/" "deno-alone-$round"
    load "http://127.0.0.1:$NGINX_PORT/" "deno-nginx-$round"
  done
fi

add_user() {
  psql "$1" -X -q -v ON_ERROR_STOP=1 <<SQL
INSERT INTO auth.users (instance_id, id, aud, role, email, created_at, updated_at)
VALUES ('00000000-0000-0000-0000-000000000000', '$USER_ID', 'authenticated', 'authenticated',
        'bench@liceo.cl', now(), now()) ON CONFLICT DO NOTHING;
SQL
}
generate() { # name, gateway name, plans
  add_user "$(status_value "$2" DB_URL)"
  (cd "$ROOT/bench" && python3 -c "import sys; from cielo_bench import ai; ai.run_plans(*sys.argv[1:])" \
    "http://127.0.0.1:$(port_of "$2")" "$(status_value "$2" ANON_KEY)" "$JWT_SECRET" "$USER_ID" "$3" \
    "$WORK/$1.jsonl")
}

kill -TERM "$HOST_PID" 2>/dev/null || true
if part generation; then
  log "generation with the embedded model: $PLANS plans"
  generate local local "$PLANS"

  log "the same plans through llama.cpp's llama-server: $PEER_PLANS plans"
  kill -TERM "$GATEWAY_PID" 2>/dev/null || true # its model leaves the memory and the CPU
  LLAMA_PORT=$(free_port)
  (exec setsid "$LLAMA_BUILD/bin/llama-server" -m "$MODEL" -t "$THREADS" -c 4096 --host 127.0.0.1 \
    --port "$LLAMA_PORT") >"$WORK/llama-server.log" 2>&1 &
  PIDS+=($!)
  wait_http "http://127.0.0.1:$LLAMA_PORT/health"
  start_gateway peer AI_PROVIDER=openai AI_BASE_URL="http://127.0.0.1:$LLAMA_PORT/v1" \
    AI_MODEL="$(basename "$MODEL" .gguf)"
  generate llama-server peer "$PEER_PLANS"
fi

cd "$ROOT/bench"
python3 -m cielo_bench ai-report "$WORK" "$RESULTS_DIR" "$(basename "$MODEL")" "$THREADS" "$PARTS"
