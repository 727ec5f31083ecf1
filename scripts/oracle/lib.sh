# Shared by the oracle scripts (sourced): messages, and the pinned supabase-js sources.
# shellcheck shell=bash

say() { echo "oracle: $*"; }
warn() { echo "oracle: WARNING: $*" >&2; }
die() { echo "oracle: $*" >&2; exit 2; }

# True if $1 is the top of a git repository (bare or not), not just somewhere inside one.
is_repo() {
  local gd top
  gd="$(git -C "$1" rev-parse --absolute-git-dir 2>/dev/null)" || return 1
  [ "$gd" -ef "$1" ] || [ "$gd" -ef "$1/.git" ] && return 0
  top="$(git -C "$1" rev-parse --show-toplevel 2>/dev/null)" && [ "$top" -ef "$1" ]
}
has_rev() { git -C "$1" rev-parse --verify -q "$REV^{commit}" >/dev/null 2>&1; }

# Sets SRC (a supabase-js repository holding $REV: $SUPABASE_JS_DIR, or a blobless sparse
# clone of $UPSTREAM_URL under $WORK) and FULL_REV. Only the package $SUB is checked out:
# its blobs come in one batch (git archive would fetch them one by one); root files come with
# cone mode.
checkout_upstream() {
  if [ -n "${SUPABASE_JS_DIR:-}" ] && is_repo "$SUPABASE_JS_DIR"; then
    SRC="$SUPABASE_JS_DIR"
    has_rev "$SRC" || die "revision $REV not found in $SRC (fetch it there, or unset SUPABASE_JS_DIR)"
  else
    [ -n "${SUPABASE_JS_DIR:-}" ] && warn "SUPABASE_JS_DIR=$SUPABASE_JS_DIR is not a git repository; cloning instead"
    SRC="$WORK/supabase-js"
    if ! is_repo "$SRC"; then
      say "cloning $UPSTREAM_URL (blobless, sparse) into $SRC"
      rm -rf "$SRC"
      git clone -q --filter=blob:none --no-checkout --sparse "$UPSTREAM_URL" "$SRC" \
        || die "git clone $UPSTREAM_URL failed"
    fi
    if ! has_rev "$SRC"; then
      say "fetching $REV from origin"
      git -C "$SRC" fetch -q origin "$REV" || git -C "$SRC" fetch -q origin \
        || die "git fetch in $SRC failed"
      has_rev "$SRC" || die "revision $REV not found in $UPSTREAM_URL"
    fi
    git -C "$SRC" sparse-checkout set "$SUB" >/dev/null || die "git sparse-checkout in $SRC failed"
    git -C "$SRC" checkout -q --detach "$REV" || die "checkout of $REV in $SRC failed"
  fi
  FULL_REV="$(git -C "$SRC" rev-parse "$REV^{commit}")"
  say "using $SUB at $(git -C "$SRC" log -1 --format='%h %cs' "$FULL_REV") from $SRC"
}

# The gateway under test: $CIELO_BIN run in $RUN_DIR with the environment GW_ENV (an env
# command line), its output in $LOGS, its data in $DATA_DIR.
GW_PID=""

# Stops the gateway (SIGTERM, SIGKILL after 30 s).
stop_gateway() {
  [ -n "$GW_PID" ] || return 0
  if kill -0 "$GW_PID" 2>/dev/null; then
    say "stopping gateway (SIGTERM to pid $GW_PID)"
    kill -TERM "$GW_PID" 2>/dev/null
    for _ in $(seq 1 60); do kill -0 "$GW_PID" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$GW_PID" 2>/dev/null; then
      warn "gateway still running after 30 s, sending SIGKILL"
      kill -KILL "$GW_PID" 2>/dev/null
    fi
  fi
  wait "$GW_PID" 2>/dev/null
  say "gateway exited with status $?"
  GW_PID=""
}

# The end of a run (from the scripts' EXIT traps): the gateway stopped, PostgreSQL's log
# kept, the run directory removed unless KEEP_DATA=1.
end_run() {
  stop_gateway
  [ -f "$DATA_DIR/postgres.log" ] && cp "$DATA_DIR/postgres.log" "$LOGS/postgres.log"
  if [ "${KEEP_DATA:-0}" = 1 ]; then say "kept $RUN_DIR"; else rm -rf "$RUN_DIR"; fi
}

# Starts the gateway and waits (STARTUP_TIMEOUT seconds) for its status block; sets GW_PID
# and STATUS_ENV (`cielo status -o env`). Exits with 2 if it dies or stays silent.
start_gateway() {
  say "starting $CIELO_BIN (API :${API_PORT:-default}, DB :${DB_PORT:-default}, DATA_DIR=$DATA_DIR)"
  (cd "$RUN_DIR" && exec "${GW_ENV[@]}" "$CIELO_BIN") >"$LOGS/gateway.stdout" 2>"$LOGS/gateway.stderr" &
  GW_PID=$!
  local deadline=$((SECONDS + STARTUP_TIMEOUT)) rc
  until grep -q 'Secret key:' "$LOGS/gateway.stdout" 2>/dev/null; do
    if ! kill -0 "$GW_PID" 2>/dev/null; then
      wait "$GW_PID"
      rc=$?
      GW_PID=""
      echo "oracle: gateway exited during start-up (status $rc). stderr tail:" >&2
      tail -n 30 "$LOGS/gateway.stderr" >&2
      exit 2
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "oracle: gateway did not print its status block within ${STARTUP_TIMEOUT}s. stderr tail:" >&2
      tail -n 30 "$LOGS/gateway.stderr" >&2
      exit 2
    fi
    sleep 0.5
  done
  # shellcheck disable=SC2034  # read by the scripts that source this file
  STATUS_ENV="$(cd "$RUN_DIR" && "${GW_ENV[@]}" "$CIELO_BIN" status -o env)" || die "'cielo status -o env' failed"
  say "gateway is up (pid $GW_PID)"
}
