"""Page benchmark: 10 years of history (about 11 000 entries, 3 a day, 20 activities, 2
metrics), then server time for the main pages over HTTP — median and p95 of 50 sequential
requests each — beside /healthz measured in the same run as the floor. Target: every page's
median under 25 ms on 2 cores."""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: bench/queue.py shadows stdlib queue

from kmood_lib.accounts import users  # noqa: E402
from kmood_lib.bootstrap import bootstrap  # noqa: E402
from kmood_lib.core.config import Config  # noqa: E402
from kmood_lib.core.db import transaction  # noqa: E402
from kmood_lib.journal import vocab, writes  # noqa: E402
from kmood_lib.journal.entry_input import parse_entry  # noqa: E402
from tests.helpers import base_env, free_port, healthy, login_cookie, spawn, stop, wait_until  # noqa: E402

YEARS, PER_DAY, REQUESTS = 10, 3, 50
ACTIVITIES = [f"activity {i}" for i in range(20)]
TARGET_MS = 25  # issue #27
STATS_TARGET_MS = 10  # the stats API at 10 years (issue #15)
STATS = ["summary", "weekday", "activities", "weather", "places", "music"]


def seed(env: dict) -> int:
    """Fill the database through the domain functions (fast, in process); returns entry count."""
    services = bootstrap(Config.from_env(env))
    conn = services.connect()
    user = users.create_user(conn, "bench", "bench-password", now_ms=0, hasher=services.hasher,
                             timezone="Europe/Berlin")
    with transaction(conn):
        for name in ("sleep", "energy"):
            vocab.create_metric(conn, user.id, {"name": name, "min": 0, "max": 24}, 0)
    defs = vocab.metric_defs(conn, user.id)
    rng = random.Random(7)
    now = datetime.now(timezone.utc)
    start = now - timedelta(days=365 * YEARS)
    count = 0
    for day in range(365 * YEARS):
        for slot in range(PER_DAY):
            when = start + timedelta(days=day, hours=8 + slot * 5, minutes=rng.randrange(60))
            body = {"mood": rng.choice([1, 2, 3, 3, 4, 4, 4, 5, 5]),
                    "activities": rng.sample(ACTIVITIES, rng.randrange(4)),
                    "note": f"day {day} entry {slot}: " + rng.choice(
                        ["walked", "worked late", "coffee with a friend", "rain all day"]),
                    "metrics": {"sleep": rng.randrange(4, 10), "energy": rng.randrange(1, 11)},
                    "occurred_at": when.isoformat()}
            data = parse_entry(body, tz=__import__("zoneinfo").ZoneInfo("Europe/Berlin"),
                               now=now, metric_defs=defs, patch=False)
            writes.create_entry(conn, user.id, data, "api", 0)
            count += 1
    conn.close()
    services.hasher.close()
    return count


def timed(url: str, cookie: str) -> list[float]:
    samples = []
    for _ in range(REQUESTS):
        request = urllib.request.Request(url, headers={"Cookie": cookie})
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            assert response.status == 200, url
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def main() -> list[str]:
    tmp = Path(tempfile.mkdtemp(prefix="kmood-pages-"))
    port = free_port()
    env = base_env(tmp / "bench.db", KMOOD_PORT=str(port), KMOOD_LOG_LEVEL="WARNING",
                   KMOOD_SCRYPT_N="1024")
    started = time.perf_counter()
    count = seed(env)
    lines = [f"seeded {count} entries over {YEARS} years in {time.perf_counter() - started:.1f} s"]
    server = spawn(["kmood.py"], env, tmp / "server.log")
    worker = spawn(["kmood_worker.py"], env, tmp / "worker.log")
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: healthy(url), 30, what="kmood server")
        cookie = login_cookie(url, "bench", "bench-password")
        year = datetime.now().year
        pages = [("/healthz", "/healthz"), ("/", "/"), ("/entries", "/entries"),
                 (f"/calendar?year={year}", f"/calendar?year={year}"),
                 ("/stats (all time)", "/stats?range=all")]
        pages += [(f"/api/stats/{name}", f"/api/stats/{name}") for name in STATS]
        pages.append(("…?activity=<unknown>", "/api/stats/activities?activity=no-such-thing"))
        floor = None
        for name, path in pages:
            target = STATS_TARGET_MS if path.startswith("/api/stats") else TARGET_MS
            timed(url + path, cookie)[:5]  # warm up caches and the connection per thread
            samples = sorted(timed(url + path, cookie))
            median = statistics.median(samples)
            p95 = samples[int(len(samples) * 0.95) - 1]
            floor = floor or median
            verdict = "" if path == "/healthz" else (
                "  ok" if median < target else f"  OVER the {target} ms target")
            lines.append(f"{name:<24} median {median:7.1f} ms  p95 {p95:7.1f} ms"
                         f"  ({median / floor:5.1f}x /healthz){verdict}")
    finally:
        stop(server)
        stop(worker)
    return lines


if __name__ == "__main__":
    print(f"Page benchmark: {REQUESTS} sequential requests per page, {YEARS} years x "
          f"{PER_DAY} entries a day")
    for line in main():
        print(line)
