"""The gateway's own SQL, read back from the PostgreSQL log, as pgbench scripts and as the
statements bench_relay sends."""

import json
import os
import re

PARAM = re.compile(r"\$(\d+) = (?:'((?:[^']|'')*)'|(NULL))")
LINE = re.compile(r"^\S+ \S+ \S+ \[(\d+)\] (LOG|DETAIL):  (.*)$")


def logged_statements(log_path, marker):
    """(pid, sql, {n: value}) of every statement logged after `marker`."""
    with open(log_path, encoding="utf-8", errors="replace") as f:
        return parse_log(f.read(), marker)


def parse_log(text, marker):
    """(pid, sql, {n: value}) of every statement in the log text after the last occurrence of `marker`."""
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
        def var(m, s=s, params=params):
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

