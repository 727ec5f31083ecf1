"""PocketBase's side of the read and write benchmark: its collections, rules, rows and settings."""

import json
import time
import urllib.error
import urllib.request

from .data import rows


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
        raise SystemExit(f"{method} {url}: HTTP {e.code}: {e.read().decode()[:2000]}") from None
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

