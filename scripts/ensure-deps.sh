#!/usr/bin/env bash
# Installs (or explains how to install) what the stack needs on this machine.
#
#   scripts/ensure-deps.sh run    what `make run` needs: Rust, Node.js, PostgreSQL binaries,
#                                 cmake and clang (the embedded model's llama.cpp build)
#   scripts/ensure-deps.sh test   plus Chromium (browser tests), docker-compose (compose check),
#                                 pgTAP and pg_prove (SQL tests) for the server's major version,
#                                 Python 3, shellcheck and ruff (`make lint`, `make test-bench`)
#
# On Debian/Ubuntu as root, missing system packages are installed with apt-get, and ruff with
# pip; otherwise the exact command to run is printed and the script fails.
set -euo pipefail

mode="${1:-run}"
missing_packages=()
problems=()

have() { command -v "$1" >/dev/null 2>&1; }

postgres_binaries() {
  if [ -n "${PG_BIN_DIR:-}" ]; then
    [ -x "$PG_BIN_DIR/initdb" ] && [ -x "$PG_BIN_DIR/postgres" ]
    return
  fi
  have initdb && have postgres && return 0
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}

have cargo || problems+=("Rust is missing: install it from https://rustup.rs (cargo and rustc 1.88+).")
if have node; then
  major="$(node -p 'process.versions.node.split(".")[0]')"
  if [ "$major" -lt 20 ]; then
    problems+=("Node.js $(node --version) is too old: install Node.js 20.19 or newer.")
  fi
else
  problems+=("Node.js is missing: install Node.js 20.19 or newer (with npm).")
fi

# llama-cpp-2 builds its bundled llama.cpp with cmake; bindgen needs libclang.
have cmake || missing_packages+=(cmake)
have clang || missing_packages+=(clang)
compgen -G "/usr/lib/llvm-*/lib/libclang*.so*" >/dev/null || compgen -G "/usr/lib/*/libclang*.so*" >/dev/null \
  || [ -n "${LIBCLANG_PATH:-}" ] || missing_packages+=(libclang-dev)

# The embedded database is only needed without DATABASE_URL, but the tests always use it.
if [ -z "${DATABASE_URL:-}" ] || [ "$mode" = test ]; then
  postgres_binaries || missing_packages+=(postgresql postgresql-contrib)
fi
if [ "$mode" = test ]; then
  have chromium || missing_packages+=(chromium)
  have docker-compose || missing_packages+=(docker-compose)
  have pg_prove || missing_packages+=(libtap-parser-sourcehandler-pgtap-perl)
  have python3 || missing_packages+=(python3 python3-pip)
  have shellcheck || missing_packages+=(shellcheck)
fi

# Major version of the PostgreSQL server the embedded cluster runs (what PG_BIN_DIR or the
# search finds), or of the one apt would install.
postgres_major() {
  local postgres=""
  if [ -n "${PG_BIN_DIR:-}" ]; then
    postgres="$PG_BIN_DIR/postgres"
  elif have postgres; then
    postgres="$(command -v postgres)"
  else
    postgres="$(compgen -G "/usr/lib/postgresql/*/bin/postgres" | sort -V | tail -n 1 || true)"
  fi
  if [ -n "$postgres" ] && [ -x "$postgres" ]; then
    "$postgres" --version | sed -E 's/.* ([0-9]+)(\.[0-9]+)*.*/\1/'
  elif have apt-cache; then
    apt-cache depends postgresql 2>/dev/null | sed -nE 's/.*Depends: postgresql-([0-9]+)$/\1/p' | head -n 1
  fi
}
if [ "$mode" = test ]; then
  major="$(postgres_major)"
  if [ -n "$major" ] && [ ! -f "/usr/share/postgresql/$major/extension/pgtap.control" ]; then
    missing_packages+=("postgresql-$major-pgtap")
  fi
fi

if [ ${#missing_packages[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && have apt-get; then
    echo "Installing ${missing_packages[*]} with apt-get..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends "${missing_packages[@]}" >/dev/null 2>&1 \
      || { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing_packages[@]}" >/dev/null; }
  else
    problems+=("Missing system packages: run \`sudo apt-get install -y ${missing_packages[*]}\` (Debian/Ubuntu).")
  fi
fi

# ruff (the Python linter of `make lint`) comes from PyPI, into the Python that runs it. It is
# one self-contained wheel, so where the system Python is marked externally managed (PEP 668)
# it goes in beside the system's packages.
if [ "$mode" = test ] && have python3 && ! python3 -m ruff --version >/dev/null 2>&1; then
  echo "Installing ruff with pip..."
  python3 -m pip install --quiet --disable-pip-version-check ruff >/dev/null 2>&1 \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages ruff >/dev/null \
    || problems+=("ruff is missing: run \`python3 -m pip install ruff\`.")
fi

# The S3-compatible server the storage/v1 tests run against (moto's server mode), from PyPI
# like ruff.
if [ "$mode" = test ] && have python3 && ! python3 -c 'import moto.server, flask' >/dev/null 2>&1; then
  echo "Installing moto (an S3-compatible test server) with pip..."
  python3 -m pip install --quiet --disable-pip-version-check 'moto[server]' >/dev/null 2>&1 \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages 'moto[server]' >/dev/null \
    || problems+=("moto is missing: run \`python3 -m pip install 'moto[server]'\`.")
fi

if [ ${#problems[@]} -gt 0 ]; then
  printf 'Cannot continue:\n' >&2
  printf '  - %s\n' "${problems[@]}" >&2
  exit 1
fi
