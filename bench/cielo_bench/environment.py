"""What a result was measured on and how: machine.json and config.json of a run."""

import json
import os
import platform
import subprocess
import time


def first_line(*cmd):
    """The first line a command prints, or "unknown"."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()[0]
    except Exception:
        return "unknown"


def machine(out, cielo, postgresql, pgbench, pocketbase=""):
    """The machine, the commit measured and every tool's version."""
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                  if line.startswith("model name")), "unknown")
    osname = next((line.split("=", 1)[1].strip().strip('"') for line in open("/etc/os-release")
                   if line.startswith("PRETTY_NAME=")), platform.system())
    mem = next((int(line.split()[1]) // 1024 for line in open("/proc/meminfo") if line.startswith("MemTotal")), 0)
    json.dump({
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "nproc": os.cpu_count(), "cpu_model": model, "memory_mib": mem, "os": osname,
        "kernel": platform.release(), "cielo": cielo,
        "versions": {
            "postgresql": postgresql, "pgbench": first_line(pgbench, "--version"),
            "wrk": first_line("wrk", "-v").split(" Copyright")[0], "rustc": first_line("rustc", "--version"),
            "pocketbase": first_line(pocketbase, "--version") if pocketbase else "not run",
            "python": platform.python_version(),
        },
    }, open(out, "w"), indent=1)


def autogroup():
    try:
        return open("/proc/sys/kernel/sched_autogroup_enabled").read().strip()
    except OSError:
        return "unknown"


def config(out, *settings):
    """The run's settings, from KEY=VALUE words: rounds, seconds, max_other_cpu, retries,
    connections, threads, rows, gateway_env, pg_settings, pgbench_transport, pgbench_scale,
    pocketbase (its path, empty when not run) and pocketbase_settings (JSON)."""
    s = dict(word.split("=", 1) for word in settings)
    json.dump({
        "rounds": int(s["rounds"]), "seconds": int(s["seconds"]),
        "max_other_cpu": int(s["max_other_cpu"]), "retries": int(s["retries"]),
        "connections": s["connections"], "threads": int(s["threads"]), "rows": int(s["rows"]),
        "servers": "each in its own session (setsid), the load generators in the harness's; "
                   f"kernel.sched_autogroup_enabled={autogroup()}",
        "gateway": "release build, embedded PostgreSQL, defaults (DB_POOL_SIZE 10 unless set, DB_GROUP_COMMIT "
                   "true); gw_insert_flush_each: a second one with DB_GROUP_COMMIT=false over the same cluster "
                   "(DATABASE_URL through the same Unix socket), started for each of its runs and stopped after"
                   + (f"; extra env: {s['gateway_env']}" if s["gateway_env"] else ""),
        "postgresql settings": s["pg_settings"],
        "pgbench": f"-M prepared (pg_insert_simple: -M simple), -j min(threads, connections), over "
                   f"{s['pgbench_transport']}; -S on a scale-{s['pgbench_scale']} "
                   "database on the same cluster; the transaction scripts log in as authenticator like the gateway, "
                   "the *_nosettings ones as bench_anon_login (a login member of anon)",
        "wrk": "-t min(threads, connections), each thread cycles through a ring of requests with random ids and "
               "amounts, formatted before the run; closed loop",
        "pocketbase": json.loads(s["pocketbase_settings"]) if s["pocketbase"] else "not run",
    }, open(out, "w"), indent=1)
