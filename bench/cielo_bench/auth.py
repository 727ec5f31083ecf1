"""The auth/v1 benchmark's results: its targets checked and auth-latest.{json,md} written."""

import datetime
import json
import os


def checks(g, pg_tps):
    """Each target as (name, value, target, op): value passes when `value op target`."""
    return [
        ("sign-ins ≥ 0.95 × raw bcrypt", g["sign_ins"]["per_second"] / g["bcrypt_raw"]["per_second"], 0.95, ">="),
        ("REST p99 in a storm ≤ 2 × alone", g["rest_during_storm"]["p99_ms"] / g["rest_alone"]["p99_ms"], 2.0, "<="),
        ("refresh ≥ 0.8 × pgbench", g["refresh"]["per_second"] / pg_tps, 0.8, ">="),
        ("refresh p99 ≤ 25 ms", g["refresh"]["p99_ms"], 25.0, "<="),
    ]


def verdicts(g, pg_tps):
    return [{"name": n, "value": v, "target": t, "met": (v >= t) if op == ">=" else (v <= t)}
            for n, v, t, op in checks(g, pg_tps)]


def markdown(g, pg_tps, pg_latency):
    rows = [
        ("raw bcrypt cost 10 (all cores)", g["bcrypt_raw"]),
        ("password sign-ins", g["sign_ins"]),
        ("REST reads alone", g["rest_alone"]),
        ("REST reads during sign-in storm", g["rest_during_storm"]),
        ("sign-ins during the storm", g["sign_ins_during_storm"]),
        ("refresh grants (rotation)", g["refresh"]),
    ]
    md = [f"# auth/v1 benchmark ({g['date']}, {g['cpus']} CPUs, {g['connections']} connections, "
          f"{g['seconds']} s per run)", "",
          "| Load | per second | p50 ms | p99 ms |", "|---|---:|---:|---:|"]
    for name, r in rows:
        md.append(f"| {name} | {r['per_second']:.0f} | {r.get('p50_ms', 0):.1f} | {r.get('p99_ms', 0):.1f} |")
    md.append(f"| pgbench, a refresh grant's database work | {pg_tps:.0f} | avg {pg_latency:.1f} | — |")
    md += ["", f"pgbench connects over {g['pgbench_transport']}."]
    md += ["", "| Target | Value | Met |", "|---|---:|---|"]
    for c in g["checks"]:
        md.append(f"| {c['name']} | {c['value']:.2f} | {'yes' if c['met'] else 'NO'} |")
    return "\n".join(md) + "\n"


def auth_report(gateway_json, pg_tps, pg_latency, out, transport):
    """auth_bench's figures with pgbench's: auth-latest.json and auth-latest.md in `out`."""
    g = json.load(open(gateway_json))
    g["pgbench_transport"] = transport
    pg_tps, pg_latency = float(pg_tps), float(pg_latency)
    g["pgbench_refresh"] = {"per_second": pg_tps, "latency_avg_ms": pg_latency}
    g["checks"] = verdicts(g, pg_tps)
    g["date"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    g["cpus"] = os.cpu_count()
    json.dump(g, open(os.path.join(out, "auth-latest.json"), "w"), indent=2)
    md = markdown(g, pg_tps, pg_latency)
    open(os.path.join(out, "auth-latest.md"), "w").write(md)
    print(md, end="")
