"""What an import costs everyone else: a 200 000-row Daylio CSV imported through the server's API
and then from the command line (another process), while a probe saves an entry for another
user and asks /healthz, one after the other. Prints the probe's latencies (median, p99, max)
with no import running (the baseline, measured in the same run) and during each import, their
ratio to the baseline, and the imports' own rows per second. The bar (issue #22.2): no save and
no /healthz waits more than about a second."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.probe import Ask, Probe, summary  # noqa: E402
from tests.helpers import (  # noqa: E402
    base_env,
    free_port,
    healthy,
    http,
    multipart,
    run,
    spawn,
    stop,
    wait_until,
)

ROWS = 200_000
BASELINE_S = 5
BAR_S = 1.0


def history() -> bytes:
    lines = ["full_date,date,weekday,time,mood,activities,scales,note_title,note"]
    for i in range(ROWS):
        lines.append(f"{1900 + i // 1700}-{1 + i // 140 % 12:02d}-{1 + i // 5 % 28:02d},,,"
                     f"{i % 24}:{i % 60:02d},good,walk | tea,,,n{i}")
    return ("\n".join(lines) + "\n").encode()


def probing(url: str, auth: dict) -> Probe:
    """A save and /healthz, back to back."""
    return Probe(url, {"saves  ": Ask("POST", "/api/entries", {"mood": 3}, auth, 201),
                       "healthz": Ask("GET", "/healthz")}, timeout=120)


def log_in(url: str, name: str) -> dict:
    status, headers, me = http("POST", url + "/api/session",
                               {"username": name, "password": "bench password 1"})
    assert status == 201, me
    return {"Cookie": headers["Set-Cookie"].split(";")[0], "X-CSRF-Token": me["csrf_token"]}


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="kmood-import-latency-"))
    port = free_port()
    env = base_env(tmp / "kmood.db", KMOOD_PORT=str(port), KMOOD_LOG_LEVEL="WARNING",
                   KMOOD_SCRYPT_N="1024")
    for name in ("probe", "ann", "bob"):
        assert run(["kmood.py", "create-user", name, "--password-stdin"], env,
                   input="bench password 1\n").returncode == 0
    server = spawn(["kmood.py"], env, tmp / "server.log")
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: healthy(url), 60)
    data = history()
    (tmp / "history.csv").write_bytes(data)
    probe_auth, ann = log_in(url, "probe"), log_in(url, "ann")
    print(f"{ROWS} rows, {len(data) / 1e6:.1f} MB; the server at KMOOD_SYNCHRONOUS=full")
    worst = 0.0
    try:
        with probing(url, probe_auth) as baseline:
            time.sleep(BASELINE_S)
        base_max = baseline.worst()
        for what, values in baseline.latencies.items():
            print(f"{'no import' if what.startswith('saves') else '':17}{what} {summary(values)}")

        body, content_type = multipart({}, {"file": data})
        with probing(url, probe_auth) as during:
            started = time.perf_counter()
            status, _, report = http("POST", url + "/api/import/daylio", body,
                                     {**ann, "Content-Type": content_type}, timeout=1800)
            took = time.perf_counter() - started
        assert status == 200, report
        print(f"API import       {report['message']} in {took:.1f} s ({ROWS / took:,.0f} rows/s)")
        for what, values in during.latencies.items():
            print(f"                 {what} {summary(values)};"
                  f" max {max(values) / base_max:.1f}x the baseline's")
            worst = max(worst, max(values))

        with probing(url, probe_auth) as during:
            started = time.perf_counter()
            done = run(["kmood.py", "import-daylio", str(tmp / "history.csv"), "--user", "bob"],
                       env, timeout=1800)
            took = time.perf_counter() - started
        assert done.returncode == 0, done.stderr
        print(f"CLI import       {done.stdout.splitlines()[0]} in {took:.1f} s"
              f" ({ROWS / took:,.0f} rows/s)")
        for what, values in during.latencies.items():
            print(f"                 {what} {summary(values)};"
                  f" max {max(values) / base_max:.1f}x the baseline's")
            worst = max(worst, max(values))
        failures = baseline.failed + during.failed
        print(f"failed probe requests: {len(failures)} {sorted(set(failures))}")
        print(f"slowest save or /healthz beside an import: {worst * 1000:.0f} ms"
              f" ({'ok' if worst <= BAR_S else 'OVER'} the {BAR_S:g} s bar)")
    finally:
        stop(server)
    return 0


if __name__ == "__main__":
    sys.exit(main())
