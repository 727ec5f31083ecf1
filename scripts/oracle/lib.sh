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
