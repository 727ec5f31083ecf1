"""One measured run: what wrk or pgbench printed, turned into a line of runs.jsonl."""

import glob
import json
import os
import re
import statistics


def percentile(sorted_values, q):
    if not sorted_values:
        return None
    k = (len(sorted_values) - 1) * q / 100.0
    f = int(k)
    c = min(f + 1, len(sorted_values) - 1)
    return sorted_values[f] + (sorted_values[c] - sorted_values[f]) * (k - f)


def parse_wrk(text, what):
    """The figures of the BENCH_JSON line that bench/wrk.lua prints when wrk is done."""
    m = re.search(r"^BENCH_JSON (.*)$", text, re.M)
    if not m:
        raise SystemExit(f"{what}: wrk printed no result:\n{text[-2000:]}")
    w = json.loads(m.group(1))
    return dict(rps=w["requests"] / (w["duration_us"] / 1e6), requests=w["requests"],
                p50_ms=w["p50_us"] / 1000, p99_ms=w["p99_us"] / 1000,
                mean_ms=w["mean_us"] / 1000, max_ms=w["max_us"] / 1000,
                errors=w["non2xx"] + w["socket_errors"], non2xx=w["non2xx"],
                socket_errors=w["socket_errors"])


def pgbench_latencies(lines):
    """Transaction latencies in µs from the lines of pgbench's per-transaction logs (-l)."""
    lat = []
    for line in lines:
        parts = line.split()
        if len(parts) >= 6 and parts[2].isdigit():
            lat.append(int(parts[2]))
    return lat


def parse_pgbench(text, latencies_us, what):
    """The figures of pgbench's summary, with percentiles from its per-transaction latencies."""
    tps = re.search(r"^tps = ([0-9.]+) \(without initial connection time\)", text, re.M)
    failed = re.search(r"number of failed transactions: (\d+)", text)
    if not tps:
        raise SystemExit(f"{what}: pgbench printed no tps:\n{text[-2000:]}")
    lat = sorted(latencies_us)
    processed = re.search(r"number of transactions actually processed: (\d+)", text)
    return dict(rps=float(tps.group(1)), requests=int(processed.group(1)) if processed else len(lat),
                p50_ms=percentile(lat, 50) / 1000 if lat else None,
                p99_ms=percentile(lat, 99) / 1000 if lat else None,
                mean_ms=statistics.fmean(lat) / 1000 if lat else None,
                max_ms=lat[-1] / 1000 if lat else None,
                errors=int(failed.group(1)) if failed else 0)


def record(kind, scenario, conns, rnd, output, cpu, log_prefix, runs_file, retries="0"):
    """Appends the run to `runs_file` and prints its line; pgbench's logs are consumed."""
    text = open(output).read()
    entry = {"scenario": scenario, "connections": int(conns), "round": int(rnd), "tool": kind,
             "retries": int(retries)}
    what = f"{scenario} c={conns}"
    if kind == "wrk":
        entry.update(parse_wrk(text, what))
    else:
        lat = []
        for path in glob.glob(log_prefix + ".*"):
            with open(path) as f:
                lat += pgbench_latencies(f)
            os.remove(path)
        entry.update(parse_pgbench(text, lat, what))
    if os.path.exists(cpu):
        entry["cpu_percent"] = json.load(open(cpu))
    with open(runs_file, "a") as f:
        f.write(json.dumps(entry) + "\n")
    p50 = "-" if entry["p50_ms"] is None else f"{entry['p50_ms']:.2f}"
    p99 = "-" if entry["p99_ms"] is None else f"{entry['p99_ms']:.2f}"
    cpu_s = " ".join(f"{k}={v:.0f}%" for k, v in entry.get("cpu_percent", {}).items())
    print(f"  r{rnd} {scenario:16s} c={int(conns):<3d} {entry['rps']:9.0f}/s  p50 {p50:>7s} ms"
          f"  p99 {p99:>7s} ms  err {entry['errors']}  cpu: {cpu_s}", flush=True)


def other_cpu_of(cpu_file):
    """The CPU (% of a core, whole) processes outside the benchmark used during a run; 0 if unknown."""
    try:
        return int(json.load(open(cpu_file)).get("other", 0))
    except (OSError, ValueError):
        return 0
