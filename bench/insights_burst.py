"""What one person's burst of insights costs everyone else (issue #36.3): a person with three
years of history (about 4 400 entries) asks for 16 different ranges at once, first once each,
then as clients that retry after Retry-After until answered; meanwhile a probe asks /healthz
and another person's entry list, one after the other. Prints the probe's latencies with
nothing else running (the baseline, measured in the same run) and during each burst, their
ratio to the baseline, and what the 16 got. The bar: /healthz and other people's pages under
1 s throughout.

`--root DIR` runs the server of another checkout (e.g. a worktree of main) against the same
data, for a before-and-after."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date, timedelta
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: bench/queue.py shadows stdlib queue

from bench.probe import Ask, Probe, summary  # noqa: E402
from tests.helpers import PYTHON, ROOT, base_env, free_port, healthy, http, spawn, stop, wait_until  # noqa: E402
from tests.insight_data import Plan, plant  # noqa: E402

PASSWORD = "bench password 1"
PLAN = Plan(days=3 * 365, entries_per_day=(3, 4, 5))  # about 4 400 entries, as reported
LAST = date.today() - timedelta(days=1)
PARALLEL = 16
BASELINE_S = 5
BAR_S = 1.0


def prepare(root: Path, env: dict) -> int:
    """Users made by the checkout under test (its migrations), alice's history planted."""
    import sqlite3

    for name in ("alice", "bob"):
        done = subprocess.run([PYTHON, "kmood.py", "create-user", name, "--password-stdin"],
                              cwd=root, env=env, input=PASSWORD + "\n", text=True,
                              capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
    conn = sqlite3.connect(env["KMOOD_DB"], isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    try:
        alice = conn.execute("SELECT id FROM users WHERE username = 'alice'").fetchone()[0]
        plant(conn, alice, seed=36, plan=PLAN, last=LAST)
        bob = conn.execute("SELECT id FROM users WHERE username = 'bob'").fetchone()[0]
        plant(conn, bob, seed=7, plan=Plan(days=60, noise=3), last=LAST)
        return conn.execute("SELECT count(*) FROM entries WHERE user_id = ?",
                            (alice,)).fetchone()[0]
    finally:
        conn.close()


def memory(pid: int) -> str:
    """The server's resident memory now and at its highest so far, from /proc."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0]) / 1024
    return f"server RSS {fields['VmRSS']:.0f} MB, peak {fields['VmHWM']:.0f} MB"


def ranges(first_offset: int) -> list[str]:
    return [f"/api/insights?from={LAST - timedelta(days=first_offset + 29 * i)}&to={LAST}"
            for i in range(PARALLEL)]


def once(url: str, auth: dict, path: str, out: list) -> None:
    started = time.perf_counter()
    status, headers, _ = http("GET", url + path, headers=auth, timeout=600)
    out.append((status, headers.get("Retry-After"), time.perf_counter() - started))


def until_answered(url: str, auth: dict, path: str, out: list) -> None:
    """Ask, and after a 429/503 ask again when Retry-After says, until answered."""
    started, tries = time.perf_counter(), 0
    while True:
        tries += 1
        status, headers, _ = http("GET", url + path, headers=auth, timeout=600)
        if status not in (429, 503):
            break
        time.sleep(float(headers.get("Retry-After") or 1))
    out.append((status, tries, time.perf_counter() - started))


def burst(url: str, auth: dict, paths: list[str], ask) -> tuple[list, float]:
    out: list = []
    threads = [threading.Thread(target=ask, args=(url, auth, path, out)) for path in paths]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(1800)
    return out, time.perf_counter() - started


def probing(url: str, bob: dict) -> Probe:
    """/healthz and bob's entry list, back to back."""
    return Probe(url, {"healthz   ": Ask("GET", "/healthz"),
                       "bob's list": Ask("GET", "/api/entries?limit=20", headers=bob)})


def report(what: str, probe: Probe, base_max: float) -> float:
    worst = probe.worst()
    for name, values in probe.latencies.items():
        print(f"    {name} {summary(values)}; max {max(values) / base_max:6.1f}x the baseline's")
    print(f"    {what}: slowest probe answer {worst * 1000:.0f} ms"
          f" ({'ok' if worst <= BAR_S else 'OVER'} the {BAR_S:g} s bar)")
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose server runs")
    root = parser.parse_args().root.resolve()
    tmp = Path(tempfile.mkdtemp(prefix="kmood-insights-burst-"))
    port = free_port()
    env = base_env(tmp / "kmood.db", KMOOD_PORT=str(port), KMOOD_LOG_LEVEL="WARNING",
                   KMOOD_SCRYPT_N="1024")
    count = prepare(root, env)
    server = spawn(["kmood.py"], env, tmp / "server.log", cwd=root)
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: healthy(url), 60)
    alice, bob = ({"Cookie": http("POST", url + "/api/session",
                                  {"username": name, "password": PASSWORD})[1]["Set-Cookie"]
                   .split(";")[0]} for name in ("alice", "bob"))
    print(f"server from {root}; alice has {count} entries over {PLAN.days} days;"
          f" {PARALLEL} ranges at once; the server's default KMOOD_THREADS (8)")
    try:
        with probing(url, bob) as baseline:
            time.sleep(BASELINE_S)
        base_max = baseline.worst()
        failures = list(baseline.failed)
        print(f"nothing else running ({memory(server.pid)})")
        for name, values in baseline.latencies.items():
            print(f"    {name} {summary(values)}")

        with probing(url, bob) as during:
            answers, took = burst(url, alice, ranges(400), once)
        statuses = sorted(status for status, _, _ in answers)
        waits = sorted({int(r) for status, r, _ in answers if r is not None})
        print(f"{PARALLEL} ranges once each: done in {took:.1f} s; answers "
              + ", ".join(f"{statuses.count(s)}x {s}" for s in sorted(set(statuses)))
              + (f" (Retry-After {waits[0]}-{waits[-1]} s)" if waits else "")
              + f"; slowest answer {max(t for _, _, t in answers) * 1000:.0f} ms")
        worst = report("once each", during, base_max)
        print(f"    {memory(server.pid)}")
        failures += during.failed

        with probing(url, bob) as during:
            answers, took = burst(url, alice, ranges(415), until_answered)
        tries = sum(n for _, n, _ in answers)
        print(f"{PARALLEL} ranges, retrying until answered: all answered in {took:.1f} s"
              f" ({sorted({s for s, _, _ in answers})}, {tries} requests in all);"
              f" slowest client {max(t for _, _, t in answers):.1f} s")
        worst = max(worst, report("retrying", during, base_max))
        print(f"    {memory(server.pid)}")
        failures += during.failed
        print(f"failed probe requests: {len(failures)} {sorted(set(failures))}")
        print(f"slowest /healthz or other person's page beside the bursts: {worst * 1000:.0f} ms"
              f" = {worst / base_max:.1f}x the baseline's max"
              f" ({'ok' if worst <= BAR_S else 'OVER'} the {BAR_S:g} s bar)")
    finally:
        stop(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
