"""Insights benchmark (issue #25): 10 years of history (about 11 000 entries, 60 activities,
weather and a metric), then GET /api/insights and the /insights page over
HTTP, cold (the journal's version raised before each request, so nothing is cached) and warm
(the same request again), beside /healthz in the same run. Targets: cold median under 1.5 s,
warm under 50 ms, on 2 cores."""

from __future__ import annotations

import sqlite3
import statistics
import sys
import tempfile
import time
import urllib.request
from datetime import date, timedelta
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: bench/queue.py shadows stdlib queue

from kmood_lib.bootstrap import bootstrap  # noqa: E402
from kmood_lib.core.config import Config  # noqa: E402
from tests.helpers import base_env, free_port, healthy, http, login_cookie, run, spawn, stop, wait_until  # noqa: E402
from tests.insight_data import Plan, plant  # noqa: E402

COLD, WARM = 7, 50
COLD_TARGET_MS, WARM_TARGET_MS = 1500, 50
PLAN = Plan(days=3650, noise=59, entries_per_day=(2, 3, 4), sleep=True)


def seed(env: dict) -> int:
    services = bootstrap(Config.from_env(env))
    conn = services.connect()
    uid = conn.execute("SELECT id FROM users WHERE username = 'bench'").fetchone()[0]
    plant(conn, uid, seed=1, plan=PLAN, last=date.today() - timedelta(days=1))
    count = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    conn.close()
    services.hasher.close()
    return count


def timed(url: str, cookie: str, before=None) -> float:
    if before:
        before()
    request = urllib.request.Request(url, headers={"Cookie": cookie})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()
        assert response.status == 200, url
    return (time.perf_counter() - started) * 1000


def main() -> list[str]:
    tmp = Path(tempfile.mkdtemp(prefix="kmood-insights-"))
    port = free_port()
    env = base_env(tmp / "bench.db", KMOOD_PORT=str(port), KMOOD_LOG_LEVEL="WARNING",
                   KMOOD_SCRYPT_N="1024")
    assert run(["kmood.py", "create-user", "bench", "--password-stdin"], env,
               input="bench-password\n").returncode == 0
    started = time.perf_counter()
    count = seed(env)
    lines = [f"seeded {count} entries over 10 years in {time.perf_counter() - started:.1f} s"]
    server = spawn(["kmood.py"], env, tmp / "server.log")
    side = sqlite3.connect(tmp / "bench.db", isolation_level=None, timeout=10)

    def forget() -> None:  # what any write does: a new journal version, nothing cached for it
        side.execute("UPDATE journal_versions SET version = version + 1")

    try:
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: healthy(url), 30, what="kmood server")
        cookie = login_cookie(url, "bench", "bench-password")
        _, _, found = http("GET", url + "/api/insights", headers={"Cookie": cookie})
        lines.append(f"{found['days']} days, {found['checked']} comparisons checked,"
                     f" {len(found['findings'])} findings")
        for _ in range(5):
            timed(url + "/healthz", cookie)
        floor = statistics.median(timed(url + "/healthz", cookie) for _ in range(WARM))
        lines.append(f"{'/healthz':<22} median {floor:8.1f} ms")
        for name, path in (("GET /api/insights", "/api/insights"), ("/insights page", "/insights")):
            cold = statistics.median(timed(url + path, cookie, forget) for _ in range(COLD))
            timed(url + path, cookie)
            warm = statistics.median(timed(url + path, cookie) for _ in range(WARM))
            for kind, median, target in (("cold", cold, COLD_TARGET_MS),
                                         ("warm", warm, WARM_TARGET_MS)):
                verdict = "ok" if median < target else f"OVER the {target} ms target"
                lines.append(f"{name + ' ' + kind:<22} median {median:8.1f} ms"
                             f"  ({median / floor:7.1f}x /healthz)  {verdict}")
    finally:
        side.close()
        stop(server)
    return lines


if __name__ == "__main__":
    print("Insights benchmark: 10 years, 60 activities, weather, a metric")
    for line in main():
        print(line)
