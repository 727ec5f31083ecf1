# shellcheck shell=bash
# Sourced by the benchmark scripts: pgbench reaches the cluster the way the gateway does.
#
# pg_socket_url URL DATA_DIR PORT prints URL rewritten to the embedded cluster's Unix socket
# (DATA_DIR/run, where the gateway connects) when that socket exists, else URL unchanged.
pg_socket_url() {
  local url=$1 dir=$2/run port=$3
  if [[ -S $dir/.s.PGSQL.$port ]]; then
    sed -E 's#@127\.0\.0\.1:[0-9]+/([^?]*)$#@/\1?host='"$dir"'\&port='"$port"'#' <<<"$url"
  else
    printf '%s\n' "$url"
  fi
}

# pg_transport DATA_DIR PORT describes the path pg_socket_url chose, for the results.
pg_transport() {
  if [[ -S $1/run/.s.PGSQL.$2 ]]; then
    echo "the Unix socket in DATA_DIR/run, as the gateway connects"
  else
    echo "TCP 127.0.0.1, as the gateway connects"
  fi
}
