"""Enrichment benchmark (weather): 10 000 stranded entries over 3 years — most in two home
cells, the rest on a few trips to 38 other cells — filled by the real worker process against
a zero-latency fake Open-Meteo on 127.0.0.1. Prints the weather requests beside the minimum
this design allows (distinct cell x year x archive/forecast groups), entries per request
(baseline: 1.0, one request per entry), and the wall time to fill all weather."""

from __future__ import annotations

import random
import sqlite3
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: bench/queue.py shadows stdlib queue

from kmood_lib import entries, users  # noqa: E402
from kmood_lib.bootstrap import bootstrap  # noqa: E402
from kmood_lib.config import Config  # noqa: E402
from kmood_lib.entry_input import parse_entry  # noqa: E402
from tests.fakes import FakeOpenMeteo  # noqa: E402
from tests.helpers import base_env, spawn, stop  # noqa: E402

ENTRIES, YEARS, TRIP_CELLS = 10_000, 3, 38
HOMES = [(52.52, 13.40), (48.14, 11.58)]
TARGET_S = 30


def seed(env: dict) -> None:
    services = bootstrap(Config.from_env(env))
    conn = services.connect()
    user = users.create_user(conn, "bench", "bench-password", now_ms=0, hasher=services.hasher)
    rng = random.Random(11)
    now = datetime.now(timezone.utc)
    trips = [((rng.uniform(-40, 60), rng.uniform(-120, 140)),
              now - timedelta(days=rng.randrange(10, 365 * YEARS))) for _ in range(TRIP_CELLS)]
    for i in range(ENTRIES):
        if i % 10 == 0:  # one entry in ten is on a trip of a few days
            (lat, lon), start = trips[i // 10 % TRIP_CELLS]
            when = start + timedelta(hours=rng.randrange(96))
        else:
            lat, lon = HOMES[i % 2]
            when = now - timedelta(minutes=rng.randrange(10, 60 * 24 * 365 * YEARS))
        body = {"mood": rng.randint(1, 5), "occurred_at": when.isoformat(),
                "location": {"lat": lat + rng.uniform(-0.02, 0.02),
                             "lon": lon + rng.uniform(-0.02, 0.02)}}
        data = parse_entry(body, tz=ZoneInfo("UTC"), now=now, metric_defs={}, patch=False)
        entries.create_entry(conn, user.id, data, "api", 0)
    conn.close()
    services.hasher.close()


def minimum_requests(db: Path, delay_days: int, deg: float) -> int:
    conn = sqlite3.connect(db)
    cutoff = (datetime.now(timezone.utc).date() - timedelta(days=delay_days)).isoformat()
    # One request per cell, UTC year and part (archive up to the cutoff, forecast after it).
    count = conn.execute(
        "SELECT count(*) FROM (SELECT DISTINCT CAST(round(lat / ?) AS INTEGER),"
        " CAST(round(lon / ?) AS INTEGER), strftime('%Y', occurred_at / 1000, 'unixepoch'),"
        " date(occurred_at / 1000 + 1800, 'unixepoch') > ? FROM entries WHERE lat IS NOT NULL)",
        (deg, deg, cutoff)).fetchone()[0]
    conn.close()
    return count


def filled(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT count(*) FROM weather").fetchone()[0]
    finally:
        conn.close()


def main() -> list[str]:
    tmp = Path(tempfile.mkdtemp(prefix="kmood-enrich-"))
    with FakeOpenMeteo() as meteo:
        env = base_env(tmp / "bench.db", KMOOD_LOG_LEVEL="WARNING", KMOOD_SCRYPT_N="1024",
                       KMOOD_OPEN_METEO_ARCHIVE_URL=meteo.url,
                       KMOOD_OPEN_METEO_FORECAST_URL=meteo.url)
        seed(env)
        config = Config.from_env(env)
        floor = minimum_requests(tmp / "bench.db", config.weather_archive_delay_days,
                                 config.weather_cell_deg)
        started = time.perf_counter()
        worker = spawn(["kmood_worker.py"], env, tmp / "worker.log")
        try:
            while filled(tmp / "bench.db") < ENTRIES and time.perf_counter() - started < 300:
                time.sleep(0.05)  # polls the worker's progress; this paces the benchmark only
            wall = time.perf_counter() - started
        finally:
            stop(worker)
        requests = len(meteo.requests)
        done = filled(tmp / "bench.db")
    return [f"entries filled: {done} of {ENTRIES} in {wall:.1f} s"
            f"  ({'ok' if done == ENTRIES and wall < TARGET_S else 'OVER'} the {TARGET_S} s target)",
            f"weather requests: {requests}, minimum this design allows: {floor}"
            f"  ({'= minimum' if requests == floor else 'above the minimum'})",
            f"entries per weather request: {done / max(requests, 1):.1f}"
            f"  (baseline one request per entry: 1.0; ratio {done / max(requests, 1):.0f}x)"]


if __name__ == "__main__":
    print(f"Enrichment benchmark: {ENTRIES} stranded entries over {YEARS} years, 2 home cells"
          f" and {TRIP_CELLS} trip cells, zero-latency fake Open-Meteo")
    for line in main():
        print(line)
