#!/usr/bin/env bash
# auth-js compatibility oracle: runs the official auth-js server tests (supabase/supabase-js
# monorepo, packages/core/auth-js/test) against Cielo gateways.
#
#   scripts/oracle/auth-js.sh                          # both suites (CLI config + docker-tests)
#   scripts/oracle/auth-js.sh test/GoTrueApi.test.ts   # extra args go to jest (path, -t NAME)
#
# Setup: takes packages/core/auth-js and tsconfig.base.json at SUPABASE_JS_REV from
# SUPABASE_JS_DIR (an existing clone, bare or not) or a partial clone of SUPABASE_JS_URL in
# the work directory, writes a standalone package.json (the monorepo's pinned test
# toolchain, Node 22) and npm-installs it, and generates the suite's RSA signing key with
# its own test/generate-signing-keys.js. Nothing of it enters the Cielo repository.
#
# Gateways, configured like the suite's servers:
#   127.0.0.1:54321/auth/v1  like test/supabase/config.toml (Supabase CLI): JWT_KEYS = the
#                            generated RS256 key, autoconfirm, anonymous and phone sign-ups
#                            on, the CLI's rate limits; the embedded cluster on :54322.
#   localhost:9999 … :9996   like infra/docker-compose.yml (autoconfirm off; autoconfirm on
#                            with an HS256 key; signups disabled; RS256 signing), each a
#                            gateway on its own database behind scripts/oracle/auth-proxy.mjs
#                            (GoTrue's paths at the root).
# As root, everything runs in a private network namespace (unshare -n), so these fixed ports
# never clash with anything else on the machine; otherwise the ports must be free.
#
# Jest runs with --ci --runInBand (never -u): jest.config.cli.js (skipping
# passkey.e2e.test.ts and the WebAuthn-MFA, Web3, SSO and OAuth-server admin describes:
# those features are not offered) and jest.config.docker.js. GoTrue limits requests per IP
# only behind a proxy header; Cielo limits every client by its address, so the per-IP
# request limits are raised for the suite's hundreds of sign-ups from one address. Writes results-cli.json, results-docker.json,
# results.md and logs/ to the work directory and prints the per-file table. Exit status: 0
# only if every test that ran passed; 2 for harness problems.
#
# Environment:
#   CIELO_BIN          gateway binary (default <repo>/target/debug/cielo; never built here)
#   CIELO_ORACLE_DIR   work directory (default $HOME/.cache/cielo-oracle-auth-js)
#   SUPABASE_JS_DIR    existing supabase-js git repository to read from instead of cloning
#   SUPABASE_JS_URL    what to clone otherwise (default https://github.com/supabase/supabase-js)
#   SUPABASE_JS_REV    supabase-js revision (default: the pinned 381bded5)
#   ORACLE_SUITES      "cli docker" (default), "cli" or "docker"
#   KEEP_DATA=1        keep the temporary gateway data directories
#   STARTUP_TIMEOUT    seconds to wait for each gateway (default 180)
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"

case "${1:-}" in
  -h | --help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
esac

DEFAULT_REV=381bded5ced48c4621830576bf8cbecc34edc85c
REV="${SUPABASE_JS_REV:-$DEFAULT_REV}"
UPSTREAM_URL="${SUPABASE_JS_URL:-https://github.com/supabase/supabase-js}"
WORK="${CIELO_ORACLE_DIR:-${HOME:?set HOME or CIELO_ORACLE_DIR}/.cache/cielo-oracle-auth-js}"
CIELO_BIN="${CIELO_BIN:-$REPO/target/debug/cielo}"
SUITES="${ORACLE_SUITES:-cli docker}"
SUB=packages/core/auth-js
STARTUP_TIMEOUT="${STARTUP_TIMEOUT:-180}"
CLI_SECRET="super-secret-jwt-token-with-at-least-32-characters-long"
DOCKER_SECRET="37c304f8-51aa-419a-a1af-06154e63707a"
SKIP_NAMES='^(?!.*(WebAuthn MFA|Web3 Authentication|SSO Authentication|OAuth Admin)).*'

# shellcheck source=scripts/oracle/lib.sh
source "$HERE/lib.sh"

# ---------------------------------------------------------------- phase 1: setup (network)
if [ -z "${CIELO_ORACLE_IN_NETNS:-}" ]; then
  [ -x "$CIELO_BIN" ] || die "gateway binary not found: $CIELO_BIN
Build it first:  (cd $REPO && cargo build --bin cielo)   or set CIELO_BIN=/path/to/cielo"
  # Absolute: each gateway starts from its own directory.
  CIELO_BIN="$(cd "$(dirname "$CIELO_BIN")" && pwd)/$(basename "$CIELO_BIN")"
  for tool in git npm tar psql node; do
    command -v "$tool" >/dev/null || die "$tool not found (psql: apt-get install postgresql-client)"
  done
  mkdir -p "$WORK" || die "cannot create $WORK"
  WORK="$(cd "$WORK" && pwd)"
  PKG="$WORK/pkg"

  checkout_upstream
  rm -rf "$PKG/packages" "$PKG/tsconfig.base.json"
  mkdir -p "$PKG"
  git -C "$SRC" archive "$FULL_REV" "$SUB" tsconfig.base.json | tar -x -C "$PKG" \
    || die "extracting $SUB failed"
  echo "$FULL_REV" >"$PKG/SUPABASE_JS_COMMIT"

  # The monorepo's pnpm catalog and the package's devDependencies, pinned.
  PACKAGE_JSON='{
  "name": "auth-js-oracle",
  "private": true,
  "description": "Standalone test harness for supabase-js packages/core/auth-js (Cielo compatibility oracle)",
  "devDependencies": {
    "@faker-js/faker": "9.9.0",
    "@types/jest": "30.0.0",
    "@types/jsonwebtoken": "8.5.9",
    "@types/node": "20.19.9",
    "jest": "30.4.2",
    "jest-environment-jsdom": "30.4.1",
    "jest-mock-server": "0.1.0",
    "jsonwebtoken": "9.0.2",
    "node": "22.23.3",
    "prettier": "3.10.1",
    "ts-jest": "29.4.15",
    "tslib": "2.8.1",
    "typescript": "5.8.3"
  }
}'
  STAMP="$PKG/node_modules/.cielo-oracle-package.json"
  if [ ! -d "$PKG/node_modules/jest" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$PACKAGE_JSON" ]; then
    printf '%s\n' "$PACKAGE_JSON" >"$PKG/package.json"
    say "npm install in $PKG"
    (cd "$PKG" && npm install --no-audit --no-fund --loglevel=error) || die "npm install failed"
    printf '%s' "$PACKAGE_JSON" >"$STAMP"
  fi
  NODE="$PKG/node_modules/.bin/node"
  [ -x "$NODE" ] || NODE="$(command -v node)"
  # The suite's own key generator (fresh RSA key per run, as upstream CI does).
  (cd "$PKG/$SUB/test" && "$NODE" generate-signing-keys.js >/dev/null) || die "generate-signing-keys.js failed"

  export WORK PKG NODE CIELO_BIN FULL_REV SRC
  if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
    say "running the gateways and jest in a private network namespace"
    exec env CIELO_ORACLE_IN_NETNS=1 unshare -n "${BASH_SOURCE[0]}" "$@"
  fi
  port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
  for p in 54321 54322 9996 9997 9998 9999; do
    port_busy "$p" && die "port $p is busy (the suite needs 54321, 54322, 9996-9999)"
  done
  export CIELO_ORACLE_IN_NETNS=0
fi

# ---------------------------------------------------------------- phase 2: run (offline)
[ "$CIELO_ORACLE_IN_NETNS" = 1 ] && ip link set lo up
PKGDIR="$PKG/$SUB"
LOGS="$WORK/logs"
mkdir -p "$LOGS"
rm -f "$LOGS"/* "$WORK"/results-*.json "$WORK/results.md"
RUN_DIR="$(mktemp -d /tmp/cielo-auth-oracle.XXXXXX)" || die "mktemp failed"
chmod 755 "$RUN_DIR"

PIDS=()
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  for pid in "${PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null
  done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  if [ "${KEEP_DATA:-0}" = 1 ]; then say "kept $RUN_DIR"; else rm -rf "$RUN_DIR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_gateway NAME KEY=VALUE… : starts a gateway in its own data directory, waits for it.
start_gateway() {
  local name="$1"
  shift
  local dir="$RUN_DIR/$name"
  mkdir -p "$dir"
  chmod 755 "$dir"
  (cd "$dir" && exec env -i PATH="$PATH" HOME="${HOME:-/root}" LANG=C.UTF-8 DATA_DIR="$dir/data" \
    API_HOST=127.0.0.1 WEB_DIR="$dir/no-web" LOG_LEVEL="${LOG_LEVEL:-info}" API_KEY_REQUIRED=false \
    "$@" "$CIELO_BIN") >"$LOGS/$name.stdout" 2>"$LOGS/$name.stderr" &
  local pid=$!
  PIDS+=("$pid")
  local deadline=$((SECONDS + STARTUP_TIMEOUT))
  until grep -q 'Secret key:' "$LOGS/$name.stdout" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 20 "$LOGS/$name.stderr" >&2
      die "gateway $name exited during start-up"
    fi
    [ "$SECONDS" -ge "$deadline" ] && die "gateway $name did not start within ${STARTUP_TIMEOUT}s"
    sleep 0.3
  done
  say "gateway $name is up"
}

KEYS_FILE="$PKGDIR/test/supabase/signing_keys.json"
start_gateway cli \
  API_PORT=54321 DB_PORT=54322 JWT_SECRET="$CLI_SECRET" JWT_KEYS="@$KEYS_FILE" \
  API_EXTERNAL_URL=http://127.0.0.1:54321 SITE_URL=http://127.0.0.1:3000 \
  ADDITIONAL_REDIRECT_URLS="https://127.0.0.1:3000,http://localhost:5173" \
  ENABLE_EMAIL_AUTOCONFIRM=true ENABLE_ANONYMOUS_USERS=true ENABLE_PHONE_SIGNUP=true \
  ENABLE_PHONE_AUTOCONFIRM=true SECURITY_REFRESH_TOKEN_REUSE_INTERVAL=10 \
  SMTP_MAX_FREQUENCY=1s MAILER_OTP_EXP=3600 MAILER_OTP_LENGTH=6 PASSWORD_MIN_LENGTH=6 \
  RATE_LIMIT_EMAIL_SENT=100 RATE_LIMIT_ANONYMOUS_USERS=100000 RATE_LIMIT_TOKEN_REFRESH=100000 \
  RATE_LIMIT_OTP=100000 RATE_LIMIT_VERIFY=100000

DB_BASE="postgresql://postgres:postgres@127.0.0.1:54322"
for db in docker_9999 docker_9998 docker_9997 docker_9996; do
  psql "$DB_BASE/postgres" -X -q -c "CREATE DATABASE $db" >>"$LOGS/psql.log" 2>&1 || die "CREATE DATABASE $db failed"
done

# infra/docker-compose.yml's four GoTrue services.
DOCKER_HS_KEYS='[{"kty":"oct","k":"Z7-AyPyChGNcQsX16cPBV-pPBo4q-zckDxkq1VZjATo","kid":"12580317-221c-49b6-894a-f4473b8afe39","key_ops":["sign","verify"],"alg":"HS256"}]'
DOCKER_RS_KEYS="$("$NODE" -e '
  const jwk = require(process.argv[1])[0];
  const hs = {kty:"oct",k:"Z7-AyPyChGNcQsX16cPBV-pPBo4q-zckDxkq1VZjATo",kid:"12580317-221c-49b6-894a-f4473b8afe39",key_ops:["verify"],alg:"HS256"};
  console.log(JSON.stringify([hs, {...jwk, key_ops:["sign","verify"]}]))' "$KEYS_FILE")"
start_gateway docker-9999 DATABASE_URL="$DB_BASE/docker_9999" API_PORT=19999 \
  JWT_SECRET="$DOCKER_SECRET" API_EXTERNAL_URL=http://localhost:9999 SITE_URL=http://localhost:9999 \
  ADDITIONAL_REDIRECT_URLS=https://supabase.io/docs MAILER_URLPATHS_CONFIRMATION=/verify \
  ENABLE_PHONE_SIGNUP=true SMTP_MAX_FREQUENCY=1s
start_gateway docker-9998 DATABASE_URL="$DB_BASE/docker_9998" API_PORT=19998 \
  JWT_SECRET="$DOCKER_SECRET" JWT_KEYS="$DOCKER_HS_KEYS" API_EXTERNAL_URL=http://localhost:9998 \
  SITE_URL=http://localhost:9998 ENABLE_EMAIL_AUTOCONFIRM=true ENABLE_PHONE_SIGNUP=true \
  ENABLE_PHONE_AUTOCONFIRM=true ENABLE_ANONYMOUS_USERS=true
start_gateway docker-9997 DATABASE_URL="$DB_BASE/docker_9997" API_PORT=19997 \
  JWT_SECRET="$DOCKER_SECRET" API_EXTERNAL_URL=http://localhost:9997 SITE_URL=http://localhost:9997 \
  DISABLE_SIGNUP=true ENABLE_EMAIL_SIGNUP=false ENABLE_PHONE_SIGNUP=false
start_gateway docker-9996 DATABASE_URL="$DB_BASE/docker_9996" API_PORT=19996 \
  JWT_SECRET="Z7-AyPyChGNcQsX16cPBV-pPBo4q-zckDxkq1VZjATo" JWT_KEYS="$DOCKER_RS_KEYS" \
  API_EXTERNAL_URL=http://localhost:9996 SITE_URL=http://localhost:9996 \
  ENABLE_EMAIL_AUTOCONFIRM=true ENABLE_PHONE_SIGNUP=true ENABLE_PHONE_AUTOCONFIRM=true

"$NODE" "$HERE/auth-proxy.mjs" 9999 19999 9998 19998 9997 19997 9996 19996 >"$LOGS/proxy.log" 2>&1 &
PIDS+=("$!")
sleep 0.5

# ---------------------------------------------------------------- jest
JEST_RC=0
run_jest() {
  local suite="$1"
  shift
  say "jest ($suite) with node $("$NODE" --version)"
  (
    cd "$PKGDIR" &&
      PATH="$PKG/node_modules/.bin:$PATH" CI=true \
        "$NODE" "$PKG/node_modules/jest/bin/jest.js" --ci --runInBand \
        --json --outputFile="$WORK/results-$suite.json" "$@"
  ) >"$LOGS/jest-$suite.log" 2>&1
  local rc=$?
  grep -E '^(PASS|FAIL) |^Tests:' "$LOGS/jest-$suite.log"
  [ "$rc" = 0 ] || JEST_RC=$rc
}
case " $SUITES " in
  *" cli "*)
    run_jest cli --config jest.config.cli.js \
      --testPathIgnorePatterns /node_modules/ /docker-tests/ /example/ 'passkey\.e2e' \
      --testNamePattern "$SKIP_NAMES" "$@" ;;
esac
case " $SUITES " in
  *" docker "*) run_jest docker --config jest.config.docker.js "$@" ;;
esac

ORACLE_COMMIT="$(git -C "$SRC" log -1 --format='%h %cs' "$FULL_REV" 2>/dev/null)" \
  ORACLE_GATEWAY="$CIELO_BIN (built $(date -r "$CIELO_BIN" '+%Y-%m-%d %H:%M'))" \
  "$NODE" "$HERE/auth-js-summary.mjs" "$WORK" | tee "$WORK/results.md"
say "results in $WORK (results.md, results-*.json, logs/)"
exit "$JEST_RC"
