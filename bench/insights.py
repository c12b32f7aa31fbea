"""Insights benchmark (issues #25, #39): 10 years of history (about 11 000 entries, 60
activities, weather and a metric), then over HTTP, beside /healthz in the same run:
- on demand: GET /api/insights for dates (all of them, spelled out) and the /insights page
  before the worker has stored anything, cold (the journal's version raised before each
  request, so nothing is cached) and warm (the same request again);
- stored: after one `kmood_worker.py --once` has computed the standard ranges, the same page
  and GET /api/insights right after a change (the stored result, marked updating) and when
  current.
Targets: on demand cold under 1.5 s; warm and stored under 50 ms, on 2 cores."""

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
        every_day = f"/api/insights?from={found['range']['from']}&to={found['range']['to']}"

        def report(name: str, median: float, target: float) -> None:
            verdict = "ok" if median < target else f"OVER the {target} ms target"
            lines.append(f"{name:<34} median {median:8.1f} ms  ({median / floor:7.1f}x"
                         f" /healthz)  {verdict}")

        for name, path in (("GET /api/insights (dates)", every_day),
                           ("/insights page (no worker)", "/insights?range=all")):
            cold = statistics.median(timed(url + path, cookie, forget) for _ in range(COLD))
            timed(url + path, cookie)
            warm = statistics.median(timed(url + path, cookie) for _ in range(WARM))
            report(name + " cold", cold, COLD_TARGET_MS)
            report(name + " warm", warm, WARM_TARGET_MS)
        started = time.perf_counter()
        assert run(["kmood_worker.py", "--once"], env).returncode == 0
        lines.append(f"the worker computed and stored 3 ranges in"
                     f" {time.perf_counter() - started:.1f} s (process start included)")
        for name, path in (("GET /api/insights (stored)", "/api/insights?range=all"),
                           ("/insights page (stored)", "/insights?range=all")):
            changed = statistics.median(timed(url + path, cookie, forget) for _ in range(COLD))
            report(name + " after a change", changed, WARM_TARGET_MS)
        side.execute("UPDATE journal_versions SET version = version - ?", (2 * COLD,))
        for name, path in (("GET /api/insights (stored)", "/api/insights?range=all"),
                           ("/insights page (stored)", "/insights?range=all")):
            current = statistics.median(timed(url + path, cookie) for _ in range(WARM))
            report(name + " current", current, WARM_TARGET_MS)
    finally:
        side.close()
        stop(server)
    return lines


if __name__ == "__main__":
    print("Insights benchmark: 10 years, 60 activities, weather, a metric")
    for line in main():
        print(line)
