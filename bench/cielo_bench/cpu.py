"""CPU of the benchmark's process groups, sampled from /proc, in % of one core."""

import glob
import json
import os
import time


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


def group_ticks(groups):
    """name → {pid: utime+stime} for each process group ({"pid"|"pids", "tree"}: a tree takes
    in every descendant)."""
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
    return snap


def tick_delta(before, after):
    """Ticks a group spent between two group_ticks snapshots (processes alive at both)."""
    return sum(v - before.get(p, v) for p, v in after.items() if p in before)


def measure_cpu(groups, seconds):
    """CPU of each process group over `seconds`, in % of one core, plus the machine's and the rest."""
    def snapshot():
        return time.time(), group_ticks(groups), machine_ticks()

    t0, s0, m0 = snapshot()
    time.sleep(seconds)
    t1, s1, m1 = snapshot()
    hz = os.sysconf("SC_CLK_TCK")
    elapsed = t1 - t0
    result = {}
    for name in groups:
        ticks = tick_delta(s0[name], s1[name])
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

