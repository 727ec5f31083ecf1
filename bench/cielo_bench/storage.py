"""The storage/v1 benchmark (bench/storage.sh): downloads against nginx serving the same files,
uploads against dd writing the same file to the same disk, 1 KiB authenticated downloads, the
gateway's RSS while 1 GiB streams in and out, and image transformations against libvips; every
pair interleaved in rounds, each ratio taken within a round and its median over the rounds
reported; storage-latest.{json,md} written."""

import datetime
import http.client
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import threading
import time
import urllib.parse

from . import cpu, runs
from .ai import user_token
from .environment import autogroup

MB = 1_000_000  # dd's and the report's MB/s
MIB = 1024 * 1024
SIZES = {"1k": 1024, "1m": MIB, "50m": 50 * MIB, "256m": 256 * MIB, "1g": 1024 * MIB}
RENDER_QUERY = "width=256&format=webp"

# (key of the summary, what, goal, comparison). A ratio's goal is against its peer; the others
# are absolute limits.
TARGETS = [
    ("download_1m", "1 MiB downloads, MB/s / nginx (sendfile on, same files)", 0.7, ">="),
    ("download_50m", "50 MiB downloads, MB/s / nginx (sendfile on, same files)", 0.7, ">="),
    ("upload_50m", "50 MiB uploads with mtime ETags, MB/s / dd bs=1M conv=fdatasync (same disk)", 0.6, ">="),
    ("upload_256m", "256 MiB uploads with mtime ETags, MB/s / dd bs=1M conv=fdatasync (same disk)", 0.6, ">="),
    ("small_user", "1 KiB authenticated downloads, user token under RLS (req/s)", 5000, ">="),
    ("memory", "RSS while 1 GiB streams in, then out: largest move from the baseline (MiB)", 20, "<="),
    ("render_cold", "1024 px JPEG → 256 px WebP, cold render p50 (ms)", 50, "<="),
]


def log(message):
    print(f"[bench-storage] {message}", flush=True)


# --- parsing and arithmetic (unit-tested) ------------------------------------------------------


def parse_dd(text):
    """(bytes, seconds) of dd's summary line (`… bytes (…) copied, 0.1 s, 494 MB/s`)."""
    match = re.search(r"^(\d+) bytes .*copied, ([0-9.,]+) s", text, re.M)
    if not match:
        raise SystemExit(f"dd printed no summary:\n{text[-2000:]}")
    return int(match.group(1)), float(match.group(2).replace(",", "."))


def parse_curl(text):
    """(HTTP status, seconds, bytes sent, bytes received) of `curl -w '%{http_code} %{time_total}
    %{size_upload} %{size_download}'`, the last line of its output."""
    code, seconds, sent, received = text.strip().splitlines()[-1].split()
    return int(code), float(seconds), int(float(sent)), int(float(received))


def vm_rss_kb(status_text):
    """VmRSS of a /proc/PID/status text, in kB."""
    match = re.search(r"^VmRSS:\s+(\d+) kB", status_text, re.M)
    return int(match.group(1)) if match else None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def rate_mb(bytes_moved, seconds):
    return bytes_moved / seconds / MB if seconds else None


def transfer_rate(runs_of_one_side):
    """MB/s of several transfers together: all their bytes over all their time."""
    total = sum(r["bytes"] for r in runs_of_one_side)
    return rate_mb(total, sum(r["seconds"] for r in runs_of_one_side))


def webp_kind(body):
    """"lossless" (a VP8L chunk), "lossy" (VP8) or "extended" (VP8X) for a WebP file's bytes."""
    if len(body) < 16 or body[:4] != b"RIFF" or body[8:12] != b"WEBP":
        return "not WebP"
    return {b"VP8L": "lossless", b"VP8 ": "lossy", b"VP8X": "extended"}.get(body[12:16], "unknown")


def per_image_ms(one_s, all_s, images):
    """Milliseconds per image of a tool run once on one image and once on `images`: the
    difference, so that its start is left out."""
    return max(0.0, all_s - one_s) * 1000 / (images - 1)


def rss_summary(baseline_kb, samples_kb):
    """The RSS samples of a transfer against the baseline before it (kB → MiB)."""
    top, bottom = max(samples_kb), min(samples_kb)
    return {"baseline_mib": baseline_kb / 1024, "max_mib": top / 1024, "min_mib": bottom / 1024,
            "delta_mib": (top - baseline_kb) / 1024,
            "deviation_mib": max(top - baseline_kb, baseline_kb - bottom) / 1024,
            "samples": len(samples_kb)}


def paired(rounds, key, ours, theirs, value):
    """Per-round ratios `value(ours) / value(theirs)` of one scenario and their median; rounds
    missing a side or a value are left out."""
    each = []
    for r in rounds:
        pair = r.get(key) or {}
        a = value(pair[ours]) if ours in pair else None
        b = value(pair[theirs]) if theirs in pair else None
        if a is not None and b:
            each.append(a / b)
    return median(each), each


def summarize(rounds, memory):
    """Medians over the rounds: rates, latencies and same-round ratios of every scenario."""
    def med(key, side, value):
        return median([value(r[key][side]) for r in rounds if side in r.get(key, {})])

    def mbps(run):
        return run.get("mb_per_s")

    def rps(run):
        return run.get("rps")

    summary = {}
    for size in ("1m", "50m"):
        key = f"download_{size}"
        ratio, each = paired(rounds, key, "gateway", "nginx", mbps)
        summary[key] = {"gateway_mb_per_s": med(key, "gateway", mbps), "nginx_mb_per_s": med(key, "nginx", mbps),
                        "ratio": ratio, "per_round": each,
                        "errors": sum(r[key]["gateway"].get("errors", 0) for r in rounds if key in r)}
    for size in ("50m", "256m"):
        # The target is taken with mtime ETags; the default (MD5 of the bytes) is reported beside.
        key = f"upload_{size}"
        ratio, each = paired(rounds, key, "gateway_mtime", "dd", mbps)
        md5_ratio, md5_each = paired(rounds, key, "gateway", "dd", mbps)
        summary[key] = {"gateway_mb_per_s": med(key, "gateway_mtime", mbps),
                        "dd_mb_per_s": med(key, "dd", mbps), "ratio": ratio, "per_round": each,
                        "md5_mb_per_s": med(key, "gateway", mbps), "md5_ratio": md5_ratio,
                        "md5_per_round": md5_each,
                        "errors": sum(r[key][side].get("errors", 0) for r in rounds if key in r
                                      for side in ("gateway", "gateway_mtime") if side in r[key])}
    small = "small_1k"
    user_vs_nginx, _ = paired(rounds, small, "gateway_user", "nginx", rps)
    service_vs_nginx, _ = paired(rounds, small, "gateway_service", "nginx", rps)
    summary["small_user"] = {
        "rps": med(small, "gateway_user", rps), "p50_ms": med(small, "gateway_user", lambda r: r["p50_ms"]),
        "p99_ms": med(small, "gateway_user", lambda r: r["p99_ms"]),
        "per_round": [r[small]["gateway_user"]["rps"] for r in rounds if small in r],
        "nginx_rps": med(small, "nginx", rps), "ratio_to_nginx": user_vs_nginx,
        "errors": sum(r[small]["gateway_user"].get("errors", 0) for r in rounds if small in r)}
    summary["small_service"] = {
        "rps": med(small, "gateway_service", rps), "p50_ms": med(small, "gateway_service", lambda r: r["p50_ms"]),
        "p99_ms": med(small, "gateway_service", lambda r: r["p99_ms"]),
        "per_round": [r[small]["gateway_service"]["rps"] for r in rounds if small in r],
        "ratio_to_nginx": service_vs_nginx,
        "errors": sum(r[small]["gateway_service"].get("errors", 0) for r in rounds if small in r)}
    renders = [r["render"] for r in rounds if "render" in r]
    cold = [ms for r in renders for ms in r["cold_ms"]]
    cached = [ms for r in renders for ms in r["cached_ms"]]
    vips = [r["vips"]["ms_per_image"] for r in renders if r.get("vips")]
    summary["render_cold"] = {
        "p50_ms": median([runs.percentile(sorted(r["cold_ms"]), 50) for r in renders]),
        "p99_ms": median([runs.percentile(sorted(r["cold_ms"]), 99) for r in renders]),
        "all_p50_ms": runs.percentile(sorted(cold), 50), "all_p99_ms": runs.percentile(sorted(cold), 99),
        "renders": len(cold), "per_round_p50": [runs.percentile(sorted(r["cold_ms"]), 50) for r in renders],
        "vips_ms_per_image": median(vips),
        "vips_lossy_ms_per_image": median([r["vips"]["lossy_ms_per_image"] for r in renders if r.get("vips")]),
        "ratio_to_vips": median([runs.percentile(sorted(r["cold_ms"]), 50) / r["vips"]["ms_per_image"]
                                 for r in renders if r.get("vips") and r["vips"]["ms_per_image"]]),
        "output_bytes": renders[-1].get("output_bytes") if renders else None,
        "output_kind": renders[-1].get("output_kind") if renders else None,
        "vips_output_bytes": renders[-1]["vips"]["output_bytes"] if renders and renders[-1].get("vips") else None,
        "vips_lossy_output_bytes": (renders[-1]["vips"]["lossy_output_bytes"]
                                    if renders and renders[-1].get("vips") else None),
        "errors": sum(r.get("errors", 0) for r in renders)}
    summary["render_cached"] = {
        "p50_ms": median([runs.percentile(sorted(r["cached_ms"]), 50) for r in renders]),
        "p99_ms": median([runs.percentile(sorted(r["cached_ms"]), 99) for r in renders]),
        "renders": len(cached)}
    if memory:
        up = rss_summary(memory["baseline_kb"], memory["upload"]["rss_kb"])
        down = rss_summary(memory["baseline_kb"], memory["download"]["rss_kb"])
        both = rss_summary(memory["baseline_kb"], memory["upload"]["rss_kb"] + memory["download"]["rss_kb"])
        summary["memory"] = {**both, "upload": up, "download": down,
                             "upload_mb_per_s": rate_mb(memory["upload"]["bytes"], memory["upload"]["seconds"]),
                             "download_mb_per_s": rate_mb(memory["download"]["bytes"], memory["download"]["seconds"]),
                             "errors": memory["upload"].get("errors", 0) + memory["download"].get("errors", 0)}
    return summary


def checks(summary):
    """Each target: its value, the value over the limit, the peer measured in the same rounds
    and the value over the peer's, and whether it is met (and nothing failed)."""
    out = []
    for key, what, goal, op in TARGETS:
        s = summary.get(key)
        if s is None:
            continue
        row = {"key": key, "what": what, "goal": f"{op.replace('>=', '≥').replace('<=', '≤')} {goal:g}"
               + ("×" if key.startswith(("download", "upload")) else "")}
        if key.startswith(("download", "upload")):
            peer = "nginx" if key.startswith("download") else "dd"
            row.update(value=s["ratio"], unit="×", peer=peer, peer_value=s[f"{peer}_mb_per_s"],
                       gateway_value=s["gateway_mb_per_s"], peer_unit="MB/s", ratio_to_peer=s["ratio"])
        elif key == "small_user":
            row.update(value=s["rps"], unit="req/s", p99_ms=s["p99_ms"], peer="nginx, the same 1 KiB file",
                       peer_value=s["nginx_rps"], peer_unit="req/s", ratio_to_peer=s["ratio_to_nginx"])
        elif key == "memory":
            row.update(value=s["deviation_mib"], unit="MiB", peer=None, peer_value=None, ratio_to_peer=None)
        elif key == "render_cold":
            row.update(value=s["p50_ms"], unit="ms", p99_ms=s["p99_ms"],
                       peer="libvips (vipsthumbnail, one thread, lossless WebP as the gateway writes)",
                       peer_value=s["vips_ms_per_image"], peer_unit="ms per image", ratio_to_peer=s["ratio_to_vips"])
        value = row["value"]
        row["ratio_to_limit"] = value / goal if value is not None else None
        met = value is not None and (value >= goal if op == ">=" else value <= goal)
        row["met"] = bool(met and not s.get("errors"))
        if s.get("errors"):
            row["errors"] = s["errors"]
        out.append(row)
    return out


# --- measuring ---------------------------------------------------------------------------------


def run_measured(cmd, groups, env=None):
    """Runs `cmd` to its end: its output, wall seconds, and the CPU (% of one core over that
    time) of each server group and of the command itself (its rusage), the machine's, and
    `other` (everything else)."""
    hz = os.sysconf("SC_CLK_TCK")
    before, machine_before, started = cpu.group_ticks(groups), cpu.machine_ticks(), time.monotonic()
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stdout.close()
    wall = time.monotonic() - started
    after, machine_after = cpu.group_ticks(groups), cpu.machine_ticks()
    percent = {name: round(100.0 * cpu.tick_delta(before[name], after[name]) / hz / wall, 1) for name in groups}
    percent["client"] = round(100.0 * (usage.ru_utime + usage.ru_stime) / wall, 1)
    busy = (machine_after[0] - machine_before[0]) / max(1, machine_after[1] - machine_before[1])
    percent["machine"] = round(100.0 * busy * os.cpu_count(), 1)
    percent["other"] = round(max(0.0, percent["machine"] - sum(v for k, v in percent.items() if k != "machine")), 1)
    return output, process.returncode, wall, percent


def settle(limit_s=30.0):
    """Waits (at most `limit_s`) until the machine is nearly idle: a server still finishing the
    last run's work would slow the next one."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        busy0, total0 = cpu.machine_ticks()
        time.sleep(0.5)
        busy1, total1 = cpu.machine_ticks()
        if (busy1 - busy0) / max(1, total1 - total0) < 0.1:
            return
    log("the machine did not settle; measuring anyway")


class Bench:
    def __init__(self, s):
        self.s = s
        self.gateway = s["gateway_url"]
        self.gateway_mtime = s["gateway_mtime_url"]
        self.nginx = s["nginx_url"]
        self.user = s["user_id"]
        self.token = user_token(s["jwt_secret"], self.user)
        self.service = s["service_key"]
        self.files = s["files_dir"]
        self.root = s["bench_dir"]
        self.seconds = int(s["seconds"])
        self.connections = int(s["connections"])
        self.download_connections = int(s["download_connections"])
        self.renders = int(s["renders"])
        self.groups = {"gateway": {"pid": int(s["gateway_pid"])},
                       "postgres": {"pid": int(s["postmaster_pid"]), "tree": True},
                       "nginx": {"pid": int(s["nginx_pid"]), "tree": True}}
        # While the second gateway (mtime ETags) uploads, it and its cluster are the servers.
        self.mtime_groups = {"gateway": {"pid": int(s["gateway_mtime_pid"])},
                             "postgres": {"pid": int(s["postmaster_mtime_pid"]), "tree": True}}
        self.transfers = 0

    def object_path(self, name):
        return f"/storage/v1/object/authenticated/bench/{self.user}/{urllib.parse.quote(name)}"

    # uploads -----------------------------------------------------------------------------------

    def upload(self, source, name, token=None, mtime=False):
        """A raw-body POST /object/bench/<user>/<name> with x-upsert, streamed by curl (to the
        gateway with mtime ETags if `mtime`)."""
        base, groups = (self.gateway_mtime, self.mtime_groups) if mtime else (self.gateway, self.groups)
        output, code, wall, percent = run_measured(
            ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total} %{size_upload} %{size_download}\n",
             "-X", "POST", "-T", source, "-H", f"Authorization: Bearer {token or self.token}",
             "-H", "x-upsert: true", "-H", "Content-Type: application/octet-stream", "-H", "Expect:",
             f"{base}/storage/v1/object/bench/{self.user}/{urllib.parse.quote(name)}"], groups)
        status, seconds, sent, _ = parse_curl(output)
        size = os.path.getsize(source)
        errors = int(code != 0 or status != 200 or sent != size)
        if errors:
            log(f"upload of {name}: curl exit {code}, HTTP {status}, {sent} of {size} bytes sent")
        return {"bytes": size, "seconds": seconds, "mb_per_s": rate_mb(size, seconds), "status": status,
                "errors": errors, "cpu_percent": percent}

    def dd(self, source):
        self.transfers += 1
        target = os.path.join(self.s["dd_dir"], f"out-{self.transfers}")
        output, code, _, percent = run_measured(
            ["dd", f"if={source}", f"of={target}", "bs=1M", "conv=fdatasync"], self.groups,
            env={**os.environ, "LC_ALL": "C"})
        os.remove(target)
        if code != 0:
            raise SystemExit(f"dd failed:\n{output}")
        size, seconds = parse_dd(output)
        return {"bytes": size, "seconds": seconds, "mb_per_s": rate_mb(size, seconds), "cpu_percent": percent}

    def uploads(self, size, repeats):
        """`repeats` triples (dd, the gateway, the gateway with mtime ETags) of the same file;
        each side's rate is its bytes over its time."""
        source = os.path.join(self.files, f"{size}.bin")
        sides = {"dd": [], "gateway": [], "gateway_mtime": []}
        for _ in range(repeats):
            settle()
            sides["dd"].append(self.dd(source))
            settle()
            sides["gateway"].append(self.upload(source, f"{size}.bin"))
            settle()
            sides["gateway_mtime"].append(self.upload(source, f"{size}.bin", mtime=True))
        result = {side: {"mb_per_s": transfer_rate(runs), "runs": runs} for side, runs in sides.items()}
        for side in ("gateway", "gateway_mtime"):
            result[side]["errors"] = sum(r["errors"] for r in sides[side])
        return result

    # downloads ---------------------------------------------------------------------------------

    def wrk(self, base, path, connections, size, headers=()):
        settle()
        threads = min(2, connections)
        cmd = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{self.seconds}s", "--timeout", "10s",
               "-s", os.path.join(self.root, "wrk.lua"), base, "--", "GET", path, "", "1", *headers]
        output, code, _, percent = run_measured(cmd, self.groups)
        if code != 0:
            raise SystemExit(f"wrk failed ({code}):\n{output[-2000:]}")
        result = runs.parse_wrk(output, f"{base}{path}")
        seconds = result["requests"] / result["rps"] if result["rps"] else 0
        result["mb_per_s"] = rate_mb((result["requests"] - result["errors"]) * size, seconds)
        result["cpu_percent"] = percent
        return result

    def downloads(self, size):
        auth = (f"Authorization: Bearer {self.token}",)
        return {"gateway": self.wrk(self.gateway, self.object_path(f"{size}.bin"), self.download_connections,
                                    SIZES[size], auth),
                "nginx": self.wrk(self.nginx, f"/{size}.bin", self.download_connections, SIZES[size])}

    def small(self):
        path = self.object_path("1k.bin")
        return {"gateway_user": self.wrk(self.gateway, path, self.connections, 1024,
                                         (f"Authorization: Bearer {self.token}",)),
                "gateway_service": self.wrk(self.gateway, path, self.connections, 1024,
                                            (f"Authorization: Bearer {self.service}",)),
                "nginx": self.wrk(self.nginx, "/1k.bin", self.connections, 1024)}

    # image transformations -----------------------------------------------------------------------

    def render_keys(self, round_number):
        return [f"aula-r{round_number}-{i}.jpg" for i in range(self.renders)]

    def render_times(self, names):
        """Renders each name once, one request at a time over one keep-alive connection: the
        milliseconds of each (request to the last byte)."""
        host = urllib.parse.urlsplit(self.gateway)
        connection = http.client.HTTPConnection(host.hostname, host.port, timeout=60)
        times, errors = [], 0
        for name in names:
            path = f"/storage/v1/render/image/authenticated/bench/{self.user}/{name}?{RENDER_QUERY}"
            started = time.perf_counter()
            connection.request("GET", path, headers={"Authorization": f"Bearer {self.token}"})
            response = connection.getresponse()
            body = response.read()
            times.append((time.perf_counter() - started) * 1000)
            if response.status != 200 or response.getheader("content-type") != "image/webp" or not body:
                errors += 1
                log(f"render of {name}: HTTP {response.status} {response.getheader('content-type')}")
        connection.close()
        return times, errors, body

    def vips_once(self, names, options):
        sources = [os.path.join(self.s["render_dir"], name) for name in names]
        out = os.path.join(self.s["render_dir"], "vips", f"%s.webp[{options}]")
        output, code, wall, _ = run_measured([self.s["vipsthumbnail"], "--size", "256x", "-o", out, *sources],
                                             self.groups, env={**os.environ, "VIPS_CONCURRENCY": "1"})
        if code != 0:
            raise SystemExit(f"vipsthumbnail failed:\n{output}")
        first = os.path.join(self.s["render_dir"], "vips", names[0].rsplit(".", 1)[0] + ".webp")
        return wall, os.path.getsize(first)

    def vips(self, names):
        """libvips' vipsthumbnail doing the same resize of the same images, one thread: the
        milliseconds per image of one process writing them all, less one writing the first
        alone (its start). Lossless WebP, as the gateway writes it; lossy (Q=80, what
        Supabase's renderer writes by default) beside it."""
        if not self.s.get("vipsthumbnail") or len(names) < 2:
            return None
        result = {"images": len(names)}
        for label, options in (("", "lossless"), ("lossy_", "Q=80")):
            one, _ = self.vips_once(names[:1], options)
            every, size = self.vips_once(names, options)
            result[f"{label}ms_per_image"] = per_image_ms(one, every, len(names))
            result[f"{label}output_bytes"] = size
        return result

    def render(self, round_number):
        names = self.render_keys(round_number)
        settle()
        started = time.monotonic()
        before, hz = cpu.group_ticks(self.groups), os.sysconf("SC_CLK_TCK")
        cold, errors, body = self.render_times(names)
        wall = time.monotonic() - started
        after = cpu.group_ticks(self.groups)
        gateway_cpu_ms = 1000 * cpu.tick_delta(before["gateway"], after["gateway"]) / hz / len(names)
        cached, cached_errors, _ = self.render_times(["aula-warm.jpg"] * self.renders)
        settle()
        return {"cold_ms": cold, "cached_ms": cached, "errors": errors + cached_errors, "output_bytes": len(body),
                "output_kind": webp_kind(body),
                "gateway_cpu_ms_per_cold_render": gateway_cpu_ms, "cold_seconds": wall,
                "vips": self.vips(names)}

    # the gateway's memory --------------------------------------------------------------------------

    def rss(self):
        with open(f"/proc/{self.groups['gateway']['pid']}/status") as status:
            return vm_rss_kb(status.read())

    def sampled(self, cmd):
        """Runs `cmd` while sampling the gateway's RSS every 20 ms."""
        samples, done = [], threading.Event()

        def sample():
            while not done.is_set():
                samples.append(self.rss())
                done.wait(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            output, code, wall, percent = run_measured(cmd, self.groups)
        finally:
            done.set()
            sampler.join()
        return output, code, wall, percent, samples

    def memory(self):
        source = os.path.join(self.files, "1g.bin")
        size = os.path.getsize(source)
        settle()
        baseline = []
        for _ in range(10):
            baseline.append(self.rss())
            time.sleep(0.05)
        url = f"{self.gateway}/storage/v1/object/bench/{self.user}/1g.bin"
        auth = f"Authorization: Bearer {self.token}"
        fmt = "%{http_code} %{time_total} %{size_upload} %{size_download}\n"
        output, code, _, percent, up = self.sampled(
            ["curl", "-sS", "-o", "/dev/null", "-w", fmt, "-X", "POST", "-T", source, "-H", auth,
             "-H", "x-upsert: true", "-H", "Content-Type: application/octet-stream", "-H", "Expect:", url])
        status, up_seconds, sent, _ = parse_curl(output)
        upload = {"bytes": size, "seconds": up_seconds, "status": status, "rss_kb": up, "cpu_percent": percent,
                  "errors": int(code != 0 or status != 200 or sent != size)}
        settle()
        output, code, _, percent, down = self.sampled(
            ["curl", "-sS", "-o", "/dev/null", "-w", fmt, "-H", auth,
             f"{self.gateway}{self.object_path('1g.bin')}"])
        status, down_seconds, _, received = parse_curl(output)
        download = {"bytes": received, "seconds": down_seconds, "status": status, "rss_kb": down,
                    "cpu_percent": percent, "errors": int(code != 0 or status != 200 or received != size)}
        return {"baseline_kb": median(baseline), "upload": upload, "download": download,
                "after_kb": self.rss()}

    # the run -----------------------------------------------------------------------------------

    def prepare(self):
        """Stores the benchmark's objects once (and checks every route answers)."""
        for size in ("1k", "1m", "50m"):
            result = self.upload(os.path.join(self.files, f"{size}.bin"), f"{size}.bin")
            if result["errors"]:
                raise SystemExit(f"could not store {size}.bin (HTTP {result['status']})")
        # One copy of the image per cold render, stored under its own key (the gateway caches
        # renders by object version and parameters) and kept on disk for vipsthumbnail.
        names = ["aula-warm.jpg"] + [n for r in range(1, int(self.s["rounds"]) + 1) for n in self.render_keys(r)]
        os.makedirs(os.path.join(self.s["render_dir"], "vips"), exist_ok=True)
        for name in names:
            copy = os.path.join(self.s["render_dir"], name)
            shutil.copyfile(self.s["image"], copy)
            if self.upload(copy, name)["errors"]:
                raise SystemExit(f"could not store {name}")
        # The first render, and one request of every kind, before anything is measured.
        _, errors, _ = self.render_times(["aula-warm.jpg"])
        if errors:
            raise SystemExit("the image transformation failed")
        for token in (self.token, self.service):
            output, code, _, _ = run_measured(
                ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total} %{size_upload} %{size_download}\n",
                 "-H", f"Authorization: Bearer {token}", f"{self.gateway}{self.object_path('1k.bin')}"], {})
            if parse_curl(output)[0] != 200:
                raise SystemExit(f"GET {self.object_path('1k.bin')} answered {output}")

    def round(self, number):
        log(f"round {number}: downloads")
        result = {"round": number, "download_1m": self.downloads("1m"), "download_50m": self.downloads("50m")}
        log(f"round {number}: 1 KiB downloads")
        result["small_1k"] = self.small()
        log(f"round {number}: uploads")
        result["upload_50m"] = self.uploads("50m", int(self.s["upload_repeats_50m"]))
        result["upload_256m"] = self.uploads("256m", int(self.s["upload_repeats_256m"]))
        log(f"round {number}: image transformations")
        result["render"] = self.render(number)
        log(f"round {number}: " + round_line(result))
        return result


def round_line(r):
    def mbps(x):
        return f"{x:.0f}" if x is not None else "-"
    render = r["render"]
    return (f"1 MiB {mbps(r['download_1m']['gateway']['mb_per_s'])} vs {mbps(r['download_1m']['nginx']['mb_per_s'])}"
            f" MB/s; 50 MiB {mbps(r['download_50m']['gateway']['mb_per_s'])} vs "
            f"{mbps(r['download_50m']['nginx']['mb_per_s'])} MB/s; 1 KiB {r['small_1k']['gateway_user']['rps']:.0f} "
            f"req/s (service {r['small_1k']['gateway_service']['rps']:.0f}, nginx {r['small_1k']['nginx']['rps']:.0f});"
            f" uploads (mtime / md5 / dd) 50 MiB {mbps(r['upload_50m']['gateway_mtime']['mb_per_s'])} / "
            f"{mbps(r['upload_50m']['gateway']['mb_per_s'])} / {mbps(r['upload_50m']['dd']['mb_per_s'])}, 256 MiB "
            f"{mbps(r['upload_256m']['gateway_mtime']['mb_per_s'])} / {mbps(r['upload_256m']['gateway']['mb_per_s'])}"
            f" / {mbps(r['upload_256m']['dd']['mb_per_s'])} MB/s; render p50 "
            f"{runs.percentile(sorted(render['cold_ms']), 50):.1f} ms")


# --- environment ------------------------------------------------------------------------------------


def version_of(*cmd):
    """The first line a tool prints about its version (stdout or stderr), or "unknown"."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        return ((done.stdout or "") + (done.stderr or "")).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return "unknown"


def device_of(path):
    """The mount source and file system of `path` (df)."""
    try:
        lines = subprocess.run(["df", "--output=source,fstype,target", path], capture_output=True,
                               text=True).stdout.splitlines()
        source, fstype, target = lines[1].split()[:3]
        return {"source": source, "fstype": fstype, "mount": target}
    except (OSError, IndexError, ValueError):
        return {"source": "unknown"}


def environment_of(s):
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                  if line.startswith("model name")), "unknown")
    osname = next((line.split("=", 1)[1].strip().strip('"') for line in open("/etc/os-release")
                   if line.startswith("PRETTY_NAME=")), platform.system())
    mem = next((int(line.split()[1]) // 1024 for line in open("/proc/meminfo") if line.startswith("MemTotal")), 0)
    return {
        "nproc": os.cpu_count(), "cpu_model": model, "memory_mib": mem, "os": osname,
        "kernel": platform.release(), "cielo": s.get("commit", "unknown"),
        "disk": {"storage": device_of(s["storage_dir"]), "dd": device_of(s["dd_dir"]),
                 "same_device": os.stat(s["storage_dir"]).st_dev == os.stat(s["dd_dir"]).st_dev},
        "servers": "the gateway and nginx each in its own session (setsid), wrk, curl, dd and vipsthumbnail in "
                   f"the harness's; kernel.sched_autogroup_enabled={autogroup()}",
        "versions": {"postgresql": s.get("postgresql", "unknown"), "nginx": version_of("nginx", "-v"),
                     "wrk": version_of("wrk", "-v").split(" Copyright")[0], "curl": version_of("curl", "--version"),
                     "dd": version_of("dd", "--version"),
                     "vipsthumbnail": version_of(s["vipsthumbnail"], "--vips-version") if s.get("vipsthumbnail")
                     else "not run", "python": platform.python_version()},
    }


# --- the report ------------------------------------------------------------------------------------


def fmt(value, digits=2):
    if value is None:
        return "—"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def cpu_split(run):
    c = run.get("cpu_percent") or {}
    return ", ".join(f"{k} {c[k]:.0f}" for k in ("gateway", "postgres", "nginx", "client", "other") if c.get(k))


def markdown(g):
    s, env = g["summary"], g["environment"]
    md = ["# storage/v1 benchmark", "",
          f"{g['date']}, commit {env['cielo']}, {env['nproc']} cores ({env['cpu_model']}), {g['rounds_count']} rounds "
          f"interleaved (medians of the rounds; ratios taken within each round); {g['seconds']} s per wrk run; "
          "everything on loopback.", "",
          "| Target | Goal | Measured | Ratio to the limit | Peer (same rounds) | Peer's value | Ratio to the peer "
          "| Met |", "|---|---|---:|---:|---|---:|---:|---|"]
    for t in g["targets"]:
        if t["unit"] == "×":
            measured = f"{fmt(t['value'])}×"
        else:
            measured = f"{fmt(t['value'], 0 if 'req' in t['unit'] else 2)} {t['unit']}"
        if t.get("gateway_value") is not None:
            measured += f" ({fmt(t['gateway_value'], 0)} MB/s)"
        if t.get("p99_ms") is not None:
            measured += f", p99 {fmt(t['p99_ms'], 1)} ms"
        digits = 1 if t.get("peer_unit", "").startswith("ms") else 0
        peer_value = f"{fmt(t['peer_value'], digits)} {t['peer_unit']}" if t.get("peer_value") is not None else "—"
        ratio_peer = f"{fmt(t['ratio_to_peer'])}×" if t.get("ratio_to_peer") is not None else "—"
        met = "yes" if t["met"] else "**no**" + (f" ({t['errors']} errors)" if t.get("errors") else "")
        md.append(f"| {t['what']} | {t['goal']} | {measured} | {fmt(t['ratio_to_limit'])}× | {t['peer'] or '—'} "
                  f"| {peer_value} | {ratio_peer} | {met} |")
    small, service = s["small_user"], s["small_service"]
    cold, cached = s["render_cold"], s["render_cached"]
    md += ["", "## Per round", "",
           "| Round | 1 MiB gw / nginx MB/s | 50 MiB gw / nginx MB/s | 1 KiB user / service / nginx req/s "
           "| upload 50 MiB mtime / md5 / dd MB/s | upload 256 MiB mtime / md5 / dd MB/s | cold render p50 / p99 ms "
           "| vips ms/image |",
           "|---|---|---|---|---|---|---|---|"]
    for r in g["rounds"]:
        d1, d50, k = r["download_1m"], r["download_50m"], r["small_1k"]
        u50, u256, render = r["upload_50m"], r["upload_256m"], r["render"]
        vips = fmt(render["vips"]["ms_per_image"], 1) if render.get("vips") else "—"
        md.append(f"| {r['round']} | {fmt(d1['gateway']['mb_per_s'], 0)} / {fmt(d1['nginx']['mb_per_s'], 0)} "
                  f"| {fmt(d50['gateway']['mb_per_s'], 0)} / {fmt(d50['nginx']['mb_per_s'], 0)} "
                  f"| {fmt(k['gateway_user']['rps'], 0)} / {fmt(k['gateway_service']['rps'], 0)} / "
                  f"{fmt(k['nginx']['rps'], 0)} | {fmt(u50['gateway_mtime']['mb_per_s'], 0)} / "
                  f"{fmt(u50['gateway']['mb_per_s'], 0)} / {fmt(u50['dd']['mb_per_s'], 0)} "
                  f"| {fmt(u256['gateway_mtime']['mb_per_s'], 0)} / {fmt(u256['gateway']['mb_per_s'], 0)} / "
                  f"{fmt(u256['dd']['mb_per_s'], 0)} "
                  f"| {fmt(runs.percentile(sorted(render['cold_ms']), 50), 1)} / "
                  f"{fmt(runs.percentile(sorted(render['cold_ms']), 99), 1)} | {vips} |")
    last = g["rounds"][len(g["rounds"]) // 2] if g["rounds"] else None
    md += ["", "## Context", "",
           f"- 1 KiB downloads (the same object): user token under RLS {fmt(small['rps'], 0)} req/s, p50 "
           f"{fmt(small['p50_ms'], 1)} ms, p99 {fmt(small['p99_ms'], 1)} ms; the service key "
           f"{fmt(service['rps'], 0)} req/s, p50 {fmt(service['p50_ms'], 1)} ms, p99 {fmt(service['p99_ms'], 1)} ms "
           f"({fmt(service['ratio_to_nginx'], 3)}× nginx); nginx {fmt(small['nginx_rps'], 0)} req/s.",
           "- Uploads with the default ETags (MD5 of the bytes, as Supabase and S3 give; "
           "STORAGE_FILE_ETAG_ALGORITHM=md5): 50 MiB "
           f"{fmt(s['upload_50m']['md5_mb_per_s'], 0)} MB/s ({fmt(s['upload_50m']['md5_ratio'])}× dd), 256 MiB "
           f"{fmt(s['upload_256m']['md5_mb_per_s'], 0)} MB/s ({fmt(s['upload_256m']['md5_ratio'])}× dd): the hash "
           "runs on the writer thread, one core at most.",
           f"- Image transformations: cold renders p50 {fmt(cold['p50_ms'], 1)} ms, p99 {fmt(cold['p99_ms'], 1)} ms "
           f"({cold['renders']} renders, each of an object not rendered before); cached renders (the same object and "
           f"parameters again) p50 {fmt(cached['p50_ms'], 2)} ms, p99 {fmt(cached['p99_ms'], 2)} ms. The gateway "
           f"writes {cold['output_bytes']} bytes of {cold['output_kind']} WebP (256 px wide); vipsthumbnail "
           f"{fmt(cold['vips_ms_per_image'], 1)} ms per image lossless ({cold['vips_output_bytes']} bytes), "
           f"{fmt(cold['vips_lossy_ms_per_image'], 1)} ms lossy at Q=80 ({cold['vips_lossy_output_bytes']} bytes), its "
           "start left out (one run of one image taken from one run of all); the gateway's time is a whole request "
           "(token, metadata lookup, reading the source, decoding, resizing, encoding).",
           ]
    if "memory" in s:
        m = s["memory"]
        md.append(f"- RSS: baseline {fmt(m['baseline_mib'], 1)} MiB; during the 1 GiB upload max "
                  f"{fmt(m['upload']['max_mib'], 1)} MiB ({m['upload']['delta_mib']:+.1f}), during the 1 GiB "
                  f"download max {fmt(m['download']['max_mib'], 1)} MiB ({m['download']['delta_mib']:+.1f}); "
                  f"lowest {fmt(m['min_mib'], 1)} MiB; {m['upload']['samples'] + m['download']['samples']} samples "
                  f"every 20 ms. The upload ran at {fmt(m['upload_mb_per_s'], 0)} MB/s, the download at "
                  f"{fmt(m['download_mb_per_s'], 0)} MB/s.")
    if last:
        md += ["", f"CPU in % of one core during round {last['round']}'s runs (gateway, postgres and its backends, "
               "nginx, the client, other processes):", ""]
        rows = [("1 MiB, gateway", last["download_1m"]["gateway"]), ("1 MiB, nginx", last["download_1m"]["nginx"]),
                ("50 MiB, gateway", last["download_50m"]["gateway"]),
                ("50 MiB, nginx", last["download_50m"]["nginx"]),
                ("1 KiB, user token", last["small_1k"]["gateway_user"]),
                ("1 KiB, service key", last["small_1k"]["gateway_service"]),
                ("1 KiB, nginx", last["small_1k"]["nginx"]),
                ("upload 256 MiB, gateway (md5)", last["upload_256m"]["gateway"]["runs"][-1]),
                ("upload 256 MiB, gateway (mtime)", last["upload_256m"]["gateway_mtime"]["runs"][-1]),
                ("upload 256 MiB, dd", last["upload_256m"]["dd"]["runs"][-1])]
        md += [f"- {name}: {cpu_split(run)}" for name, run in rows]
    disk = env["disk"]
    md += ["", "## Environment", "",
           f"- {env['os']}, kernel {env['kernel']}, {env['memory_mib']} MiB of memory; {env['servers']}.",
           f"- Disk: the gateway's storage and dd's target on {disk['storage'].get('source')} "
           f"({disk['storage'].get('fstype')}), same device: {'yes' if disk['same_device'] else '**no**'}.",
           "- " + "; ".join(f"{k} {v}" for k, v in env["versions"].items()) + ".",
           f"- {g['config']}", ""]
    return "\n".join(md)


def report(raw, results_dir):
    """The summary and the targets of a run's raw results: storage-latest.{json,md}."""
    g = dict(raw)
    g["summary"] = summarize(raw["rounds"], raw.get("memory"))
    g["targets"] = checks(g["summary"])
    os.makedirs(results_dir, exist_ok=True)
    with open(os.path.join(results_dir, "storage-latest.json"), "w") as out:
        json.dump(g, out, indent=1)
        out.write("\n")
    text = markdown(g)
    with open(os.path.join(results_dir, "storage-latest.md"), "w") as out:
        out.write(text)
    print(text, end="")
    return g


def storage_report(raw_json, results_dir):
    with open(raw_json) as text:
        report(json.load(text), results_dir)


def storage_run(work, results_dir, *settings):
    """Every scenario in `rounds` interleaved rounds, then the memory run; the raw results go to
    WORK/raw.json, the report to `results_dir`. Settings are KEY=VALUE words (bench/storage.sh)."""
    s = dict(word.split("=", 1) for word in settings)
    bench = Bench(s)
    log("storing the objects")
    bench.prepare()
    rounds = [bench.round(number) for number in range(1, int(s["rounds"]) + 1)]
    log("RSS while 1 GiB streams in, then out")
    memory = bench.memory()
    for part in ("upload", "download"):
        m = rss_summary(memory["baseline_kb"], memory[part]["rss_kb"])
        log(f"  {part}: baseline {m['baseline_mib']:.1f} MiB, max {m['max_mib']:.1f} MiB, "
            f"{rate_mb(memory[part]['bytes'], memory[part]['seconds']):.0f} MB/s")
    for r in rounds:
        for pair in r["upload_50m"], r["upload_256m"]:
            for run in pair["gateway"]["runs"] + pair["gateway_mtime"]["runs"] + pair["dd"]["runs"]:
                run.pop("status", None)
    raw = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "rounds_count": int(s["rounds"]), "rounds": rounds, "memory": memory,
        "seconds": int(s["seconds"]),
        "config": (f"wrk -t 2: {s['download_connections']} connections for the 1 and 50 MiB downloads, "
                   f"{s['connections']} for 1 KiB; uploads: curl -T (raw body, x-upsert, a user token under RLS), "
                   f"{s['upload_repeats_50m']}× 50 MiB and {s['upload_repeats_256m']}× 256 MiB per round, "
                   "alternating dd, the gateway and a second gateway with STORAGE_FILE_ETAG_ALGORITHM=mtime; "
                   f"{s['renders']} cold renders per round (each a distinct object uploaded before the "
                   f"rounds), then {s['renders']} of one rendered object; gateway: {s['gateway_env']}"),
        "environment": environment_of(s),
    }
    with open(os.path.join(work, "raw.json"), "w") as out:
        json.dump(raw, out)
    report(raw, results_dir)
