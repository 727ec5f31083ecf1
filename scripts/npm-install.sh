#!/usr/bin/env bash
# Installs a package's npm dependencies exactly as locked, only when they changed.
#   scripts/npm-install.sh <dir>
set -euo pipefail
dir="$1"
stamp="$dir/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ "$dir/package-lock.json" -nt "$stamp" ]; then
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
