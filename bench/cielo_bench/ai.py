"""The functions/v1 and AI benchmark's client and report: plan generations streamed from a
gateway (`generate-plan` with `Accept: text/event-stream`), timed from the request to the
skeleton, to the first text a model wrote and to the answer; every answer checked for its
zones and OA codes; the targets checked and ai-latest.{json,md} written."""

import base64
import datetime
import hashlib
import hmac
import json
import os
import re
import time
import urllib.request

# Requests across levels and subjects: (level, subject, OA codes, blocks). Every code is one
# of that level's and subject's objectives in sql/data/curriculum.
PLANS = [
    ("1B", "matematica", ["MA01 OA 01"], 1),
    ("2B", "lenguaje_y_comunicacion", ["LE02 OA 01"], 2),
    ("3B", "ciencias_naturales", ["CN03 OA 01"], 2),
    ("4B", "historia_geografia_y_ciencias_sociales", ["HI04 OA 01"], 2),
    ("5B", "matematica", ["MA05 OA 01"], 2),
    ("6B", "lenguaje_y_comunicacion", ["LE06 OA 01"], 2),
    ("7B", "matematica", ["MA07 OA 03"], 2),
    ("8B", "ciencias_naturales", ["CN08 OA 01"], 2),
    ("1M", "matematica", ["MA1M OA 01"], 2),
    ("2M", "lengua_y_literatura", ["LE2M OA 01"], 2),
]

EXPECTED_ZONES = ["objetivo", "inicio", "desarrollo", "cierre", "evaluacion", "recursos",
                  "adecuaciones", "evaluacion"]

CODE = re.compile(r"(?i)\b(?:[A-Z]{2,4}(?:-[A-Z0-9]+)*-OA[A-Z]?-[0-9]{1,2}"
                  r"|[A-Z]{2,4}[0-9][0-9A-Z][\s-]*OA[A-Z]?[\s-]*[0-9]{1,2}|OA[A-Z]?[\s-]*[0-9]{1,2})\b")


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def user_token(secret, user_id, now=None):
    """An HS256 access token for `user_id`, as auth/v1 issues them."""
    now = int(now if now is not None else time.time())
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = b64url(json.dumps({"sub": user_id, "role": "authenticated", "aud": "authenticated",
                                "iat": now, "exp": now + 7200}).encode())
    signature = hmac.new(secret.encode(), f"{header}.{claims}".encode(), hashlib.sha256).digest()
    return f"{header}.{claims}.{b64url(signature)}"


def sse_events(lines):
    """(event, data) pairs of a server-sent event stream given as text lines."""
    event, data = None, []
    for line in lines:
        line = line.rstrip("\r\n")
        if not line:
            if event is not None:
                yield event, json.loads("\n".join(data))
            event, data = None, []
        elif line.startswith("event: "):
            event = line[len("event: "):]
        elif line.startswith("data: "):
            data.append(line[len("data: "):])
    if event is not None:
        yield event, json.loads("\n".join(data))


def plain_text(node):
    return (node.get("text") or "") + "".join(plain_text(child) for child in node.get("content") or [])


def text_blocks(node):
    """The text of each paragraph or heading, as a reader sees it: a code cannot run from
    one block into the next (a line ending in "OA" and a list starting "1." are not "OA1")."""
    if node.get("type") in ("paragraph", "heading"):
        yield plain_text(node)
    else:
        for child in node.get("content") or []:
            yield from text_blocks(child)


def codes_in(zones):
    return {match.group(0) for zone in zones for block in text_blocks(zone["content"])
            for match in CODE.finditer(block)}


def check_answer(answer, requested):
    """What is wrong with one answer: zones missing or out of order, codes not requested."""
    problems = []
    types = [zone["zone_type"] for zone in answer.get("zones", [])]
    if types != EXPECTED_ZONES:
        problems.append(f"zones {types}")
    foreign = sorted(codes_in(answer.get("zones", [])) - set(requested))
    if foreign:
        problems.append(f"codes not requested: {foreign}")
    return problems


def generate(base_url, anon_key, token, level, subject, codes, blocks):
    """One streamed generate-plan: its timings (s), answer and the problems found."""
    body = json.dumps({"level_code": level, "subject_code": subject, "objective_codes": codes,
                       "blocks": blocks}).encode()
    request = urllib.request.Request(
        f"{base_url}/functions/v1/generate-plan", data=body, method="POST",
        headers={"apikey": anon_key, "authorization": f"Bearer {token}",
                 "content-type": "application/json", "accept": "text/event-stream"})
    started = time.monotonic()
    timings = {"skeleton_s": None, "first_text_s": None, "done_s": None}
    answer = None
    with urllib.request.urlopen(request, timeout=900) as response:
        lines = (raw.decode() for raw in response)
        for event, data in sse_events(lines):
            elapsed = time.monotonic() - started
            if event == "skeleton" and timings["skeleton_s"] is None:
                timings["skeleton_s"] = elapsed
            elif event == "zone_delta" and timings["first_text_s"] is None and data.get("text", "").strip():
                timings["first_text_s"] = elapsed
            elif event == "done":
                timings["done_s"] = elapsed
                answer = data
            elif event == "error":
                raise RuntimeError(f"generation failed: {data}")
    if answer is None:
        raise RuntimeError("the stream ended without an answer")
    usage = answer["usage"]
    return {
        "level": level, "subject": subject, "codes": codes, "blocks": blocks, **timings,
        "prompt_tokens": usage["prompt_tokens"], "completion_tokens": usage["completion_tokens"],
        "source": answer["source"], "model": answer["model"],
        "problems": check_answer(answer, codes),
        # Kept in the run's files (BENCH_KEEP_WORKDIR=1) to read what a problem refers to.
        "zones": answer["zones"],
    }


def run_plans(base_url, anon_key, secret, user_id, count, out_file):
    """`count` plans over PLANS in turn, written to `out_file` as JSON lines."""
    token = user_token(secret, user_id)
    with open(out_file, "w") as out:
        for index in range(int(count)):
            level, subject, codes, blocks = PLANS[index % len(PLANS)]
            result = generate(base_url, anon_key, token, level, subject, codes, blocks)
            out.write(json.dumps(result) + "\n")
            out.flush()
            print(f"[bench-ai] {level} {subject}: skeleton {result['skeleton_s']:.2f}s, first text "
                  f"{result['first_text_s'] or 0:.1f}s, done {result['done_s']:.1f}s, "
                  f"{result['completion_tokens']} tokens, problems {result['problems']}", flush=True)


def tokens_per_second(results):
    """Completion tokens over wall time, all plans together."""
    tokens = sum(r["completion_tokens"] for r in results)
    seconds = sum(r["done_s"] for r in results)
    return tokens / seconds if seconds else 0.0


def median(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def load(path):
    with open(path) as lines:
        return [json.loads(line) for line in lines if line.strip()]


def checks(g):
    """Each target as (name, value, target, op)."""
    local, peer = g["local"], g["llama_server"]
    rows = [
        ("native function ≥ 0.8 × actix-web directly", g["native"]["ratio"], 0.8, ">="),
        ("Deno function ≥ 0.5 × Deno alone", g["deno"]["ratio"], 0.5, ">="),
        ("skeleton streamed ≤ 1 s (worst)", local["skeleton_s_max"], 1.0, "<="),
        ("first model text ≤ 8 s (worst)", local["first_text_s_max"], 8.0, "<="),
        ("single-class plan ≤ 90 s (worst)", local["done_s_max"], 90.0, "<="),
        ("tokens/s ≥ 0.9 × llama.cpp's server (same prompts)",
         g.get("local_same_prompts", local)["tokens_per_s"] / peer["tokens_per_s"], 0.9, ">="),
        ("OA codes not requested", local["foreign_code_answers"], 0, "<="),
        ("answers with a zone missing", local["zone_problem_answers"], 0, "<="),
    ]
    return rows


def same_prompts(local, peer):
    """The embedded model's plans for the prompts the peer wrote: from the second pass over
    PLANS when there is one (the model loaded, as the peer's was before it was measured),
    else the first."""
    start = len(PLANS) if len(local) >= len(PLANS) + len(peer) else 0
    chosen = local[start:start + len(peer)]
    for mine, theirs in zip(chosen, peer, strict=True):
        if (mine["level"], mine["subject"]) != (theirs["level"], theirs["subject"]):
            raise SystemExit("the embedded and peer runs did not write the same plans")
    return chosen


def generation_summaries(local, peer):
    """Quality and latency over every embedded plan; the rate ratio on the same prompts."""
    return {"local": summarize(local), "llama_server": summarize(peer),
            "local_same_prompts": summarize(same_prompts(local, peer))}


def summarize(results):
    return {
        "plans": len(results),
        "skeleton_s_max": max(r["skeleton_s"] for r in results),
        "first_text_s_max": max(r["first_text_s"] or float("inf") for r in results),
        "done_s_max": max(r["done_s"] for r in results),
        "done_s_median": median([r["done_s"] for r in results]),
        "first_text_s_median": median([r["first_text_s"] for r in results]),
        "tokens_per_s": tokens_per_second(results),
        "completion_tokens_median": median([r["completion_tokens"] for r in results]),
        "foreign_code_answers": sum(any("codes" in p for p in r["problems"]) for r in results),
        "zone_problem_answers": sum(any("zones" in p for p in r["problems"]) for r in results),
        "sources": sorted({r["source"] for r in results}),
    }


def wrk_rate(path):
    """Requests/s of a wrk run's output."""
    with open(path) as text:
        match = re.search(r"Requests/sec:\s+([0-9.]+)", text.read())
    if not match:
        raise SystemExit(f"{path}: no Requests/sec line")
    return float(match.group(1))


HOST_KEYS = ("host_date", "native", "deno", "deno_nginx", "deno_vs_nginx")


def ai_report(work_dir, results_dir, model, threads, parts="host generation"):
    """Reads the run's files in `work_dir`, writes ai-latest.{json,md} to `results_dir`;
    a part not run this time keeps its numbers from ai-latest.json."""
    def rates(prefix):
        files = sorted(f for f in os.listdir(work_dir) if f.startswith(prefix) and f.endswith(".wrk"))
        return [wrk_rate(os.path.join(work_dir, f)) for f in files]

    def pair(a, b):
        ratios = [x / y for x, y in zip(rates(a), rates(b), strict=True)]
        return {"rate": median(rates(a)), "peer_rate": median(rates(b)), "ratio": median(ratios),
                "rounds": len(ratios)}

    previous_path = os.path.join(results_dir, "ai-latest.json")
    previous = {}
    if os.path.exists(previous_path):
        with open(previous_path) as text:
            previous = json.load(text)
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    g = {"cpus": os.cpu_count(), "model": model, "threads": int(threads)}
    if "host" in parts.split():
        g.update(host_date=date, native=pair("native-", "actix-"), deno=pair("deno-gw-", "deno-alone-"),
                 deno_nginx=pair("deno-nginx-", "deno-alone-"), deno_vs_nginx=pair("deno-gw-", "deno-nginx-"))
    else:
        g.update({key: previous[key] for key in HOST_KEYS if key in previous})
    if "generation" in parts.split():
        g.update(generation_date=date,
                 **generation_summaries(load(os.path.join(work_dir, "local.jsonl")),
                                        load(os.path.join(work_dir, "llama-server.jsonl"))))
    else:
        g.update({key: previous[key] for key in ("generation_date", "local", "llama_server",
                                                  "local_same_prompts") if key in previous})
    g["checks"] = [{"name": n, "value": v, "target": t, "met": (v >= t) if op == ">=" else (v <= t)}
                   for n, v, t, op in checks(g)]
    os.makedirs(results_dir, exist_ok=True)
    with open(os.path.join(results_dir, "ai-latest.json"), "w") as out:
        json.dump(g, out, indent=2)
    with open(os.path.join(results_dir, "ai-latest.md"), "w") as out:
        out.write(markdown(g))
    print(markdown(g))
    return g


def markdown(g):
    native, deno, local, peer = g["native"], g["deno"], g["local"], g["llama_server"]
    md = [f"# functions/v1 and AI benchmark ({g['cpus']} CPUs)", "",
          f"## Function host ({g['host_date']})", "",
          "| Load | requests/s | peer | peer requests/s | ratio (median of rounds) |",
          "|---|---:|---|---:|---:|",
          f"| trivial native function | {native['rate']:.0f} | the same handler in actix-web | "
          f"{native['peer_rate']:.0f} | {native['ratio']:.2f} |",
          f"| trivial Deno function | {deno['rate']:.0f} | Deno serving it alone | "
          f"{deno['peer_rate']:.0f} | {deno['ratio']:.2f} |"]
    if "deno_nginx" in g:
        relay, versus = g["deno_nginx"], g["deno_vs_nginx"]
        md += [f"| the same Deno behind nginx (reference relay) | {relay['rate']:.0f} | Deno serving it alone | "
               f"{relay['peer_rate']:.0f} | {relay['ratio']:.2f} |",
               f"| trivial Deno function | {versus['rate']:.0f} | the same Deno behind nginx | "
               f"{versus['peer_rate']:.0f} | {versus['ratio']:.2f} |"]
    md += ["", f"## Generation ({g['generation_date']}, {g['model']}, {g['threads']} threads)", "",
           "| Provider | plans | skeleton max s | first text median / max s | plan median / max s | tokens/s |",
           "|---|---:|---:|---:|---:|---:|"]
    rows = [("embedded (llama-cpp-2)", local)]
    if "local_same_prompts" in g:
        rows.append(("embedded, the peer's prompts (second pass)", g["local_same_prompts"]))
    rows.append(("llama.cpp's llama-server", peer))
    for name, r in rows:
        md.append(f"| {name} | {r['plans']} | {r['skeleton_s_max']:.2f} | {r['first_text_s_median']:.1f} / "
                  f"{r['first_text_s_max']:.1f} | {r['done_s_median']:.1f} / {r['done_s_max']:.1f} | "
                  f"{r['tokens_per_s']:.1f} |")
    md += ["", "| Target | Value | Met |", "|---|---:|---|"]
    for c in g["checks"]:
        md.append(f"| {c['name']} | {c['value']:.2f} (target {c['target']}) | {'yes' if c['met'] else 'NO'} |")
    return "\n".join(md) + "\n"
