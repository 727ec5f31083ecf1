"""The rows both databases hold (bench_items, bench_categories) and free loopback ports."""

import csv
import hashlib
import os
import socket
import time
import uuid


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

