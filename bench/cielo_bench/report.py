"""The results of a run: medians per scenario and connection count, same-round ratios, the
targets and their CPU budgets, written as JSON and Markdown (bench/results/<name>.{json,md})."""

import json
import os
import statistics

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


# (name, a, b, target): a's requests/s over b's in the same round; a target is the least ratio
# that passes at the target connection count.
RATIOS = [
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

# Latency targets: the most p99 (ms) that passes at the target connection count.
P99_LIMITS = (("gw_single", 15.0), ("gw_insert", 20.0))


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
            for key, front in zip(("actix_front_us", "minimal_front_us"), FRONTS[a], strict=True):
                if front in scenarios and scenarios[front]["rps"]:
                    rows[key].append(us(scenarios[front], "relay"))
        if rows["needed_rps"]:
            budgets.append({"target": f"{name} >= {target}x", "connections": conns,
                            **{k: None if med(v) is None else round(med(v), 1) for k, v in rows.items()}})
    return budgets



def summarise(runs):
    """scenario → connections (str) → medians over its rounds, CPU per request included."""
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
    return table


def paired(runs, a, b, conns):
    """Median over rounds of a/b within the same round (drift cancels within a round)."""
    by_round = {}
    for r in runs:
        if r["connections"] == conns and r["scenario"] in (a, b):
            by_round.setdefault(r["round"], {})[r["scenario"]] = r["rps"]
    ratios = [v[a] / v[b] for v in by_round.values() if a in v and b in v and v[b]]
    return (statistics.median(ratios) if ratios else None), ratios


def ratios_of(runs, ratio_defs=RATIOS):
    """name → its target and, per connection count, the median and each round's ratio."""
    conns_all = sorted({r["connections"] for r in runs})
    ratios = {}
    for name, a, b, target in ratio_defs:
        per_conns = {}
        for c in conns_all:
            value, each = paired(runs, a, b, c)
            if value is not None:
                per_conns[str(c)] = {"median": round(value, 3), "per_round": [round(x, 3) for x in each]}
        if per_conns:
            ratios[name] = {"target": target, "by_connections": per_conns}
    return ratios


def targets_of(ratios, table, target_conns, ratio_defs=RATIOS):
    """Every target with its value at `target_conns` and whether it passes (None: not measured)."""
    targets = []
    tc = str(target_conns)
    for name, _, _, target in ratio_defs:
        if target is None:
            continue
        value = ratios.get(name, {}).get("by_connections", {}).get(tc, {}).get("median")
        targets.append({"name": f"{name} at {tc} connections", "target": f">= {target}x",
                        "value": value, "pass": None if value is None else value >= target})
    for scenario, limit in P99_LIMITS:
        if scenario not in table:
            continue
        p99 = table[scenario].get(tc, {}).get("p99_ms_median")
        targets.append({"name": f"{scenario} p99 at {tc} connections", "target": f"<= {limit:.0f} ms",
                        "value": p99, "pass": None if p99 is None else p99 <= limit})
    return targets


def report(workdir, out_json, out_md, config_json, machine_json, target_conns):
    """Reads the run's runs.jsonl, config and machine description; writes the results."""
    runs = [json.loads(line) for line in open(os.path.join(workdir, "runs.jsonl"))]
    config = json.load(open(config_json))
    machine = json.load(open(machine_json))
    target_conns = int(target_conns)
    table = summarise(runs)
    ratios = ratios_of(runs)
    targets = targets_of(ratios, table, target_conns)
    budgets = cpu_budgets(runs, RATIOS, int(machine["nproc"]), target_conns)
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
    open(out_md, "w").write(markdown(result, target_conns))


def markdown(result, target_conns):
    """The results as bench/results/<name>.md shows them."""
    machine, config, table = result["machine"], result["config"], result["summary"]
    ratios, targets, budgets, runs = result["ratios"], result["targets"], result["cpu_budgets"], result["runs"]
    conns_all = sorted({r["connections"] for r in runs})
    tc = str(target_conns)

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
                  "inserts keep the machine at ~175–185 %), the budget is only approximate. "
                  "Where even the larger budget is below what a front "
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
            md.append(f"| {scenario} | {conns} | {cell['rps_median']:.0f} "
                      f"| {cell['rps_min']:.0f}–{cell['rps_max']:.0f} "
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
                  "(one single-threaded runtime per core with the gateway's per-worker pool, "
                  "one pipeline and one Sync per "
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
    return "\n".join(md) + "\n"
