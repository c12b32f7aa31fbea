"""API benchmark: 16 concurrent clients creating and listing entries against kmood.py on
waitress (with kmood_worker.py beside it, as deployed), beside a bare Bottle+waitress endpoint
measured in the same run, at KMOOD_THREADS 2, 4 and 8.

For each: req/s, p50/p99, the ratios to bare, and the server's CPU per request (utime + stime
of its process from /proc/<pid>/stat). Then, at the default thread count, 16 fast clients
listing beside 2 slow clients whose now-playing lookups wait out their 2 s deadline (a
ListenBrainz that never answers): the fast clients' p99 shows whether a slow request stalls
everyone. Last, the SQL statements one create and one list run, counted in process.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: bench/queue.py shadows stdlib queue

from bench.load import run_load  # noqa: E402
from kmood_lib.core.config import Config  # noqa: E402
from tests.fakes import FakeUpstream, Reply  # noqa: E402
from tests.helpers import (  # noqa: E402
    PYTHON,
    ROOT,
    base_env,
    free_port,
    healthy,
    http,
    run,
    spawn,
    stop,
    wait_until,
)

THREAD_COUNTS = [int(t) for t in os.environ.get("BENCH_THREADS", "2,4,8").split(",")]
SYNCHRONOUS = os.environ.get("BENCH_SYNCHRONOUS", "full")  # KMOOD_SYNCHRONOUS of the server
DEFAULT_THREADS = Config.from_env({}).threads
CLIENTS, SLOW_CLIENTS = 16, 2
DURATION_S = 3.0
ROUNDS = 3  # each pair (bare, k-mood) alternates this often; each side keeps its best round
TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def entry_body(n: int) -> dict:
    return {"mood": n % 5 + 1, "activities": ["bench", f"tag{n % 7}"],
            "note": f"benchmark entry {n}", "location": {"lat": 52.5, "lon": 13.4}}


def cpu_s(pid: int) -> float:
    """utime + stime of a process, in seconds (fields 14 and 15 of /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * TICK_S


class Servers:
    """k-mood (server and worker) and the bare app, at one thread count."""

    def __init__(self, threads: int, listenbrainz_url: str):
        self.tmp = Path(tempfile.mkdtemp(prefix="kmood-bench-"))
        self.port, self.bare_port = free_port(), free_port()
        self.env = base_env(self.tmp / "bench.db", KMOOD_PORT=str(self.port),
                            KMOOD_THREADS=str(threads), KMOOD_LOG_LEVEL="WARNING",
                            KMOOD_SCRYPT_N="1024", KMOOD_LISTENBRAINZ_URL=listenbrainz_url,
                            KMOOD_SYNCHRONOUS=SYNCHRONOUS)
        assert run(["kmood.py", "create-user", "bench", "--password-stdin"], self.env,
                   "bench-password\n").returncode == 0
        self.server = spawn(["kmood.py"], self.env, self.tmp / "server.log")
        self.worker = spawn(["kmood_worker.py"], self.env, self.tmp / "worker.log")
        self.bare = spawn([str(ROOT / "bench" / "bare_app.py"), str(self.bare_port),
                           str(threads)], self.env, self.tmp / "bare.log")
        url = f"http://127.0.0.1:{self.port}"
        wait_until(lambda: healthy(url), 30, what="kmood server")
        wait_until(lambda: _up(self.bare_port), 30, what="bare server")
        _, headers, login = http("POST", url + "/api/session",
                                 {"username": "bench", "password": "bench-password"})
        session = {"Cookie": headers["Set-Cookie"].split(";")[0],
                   "X-CSRF-Token": login["csrf_token"]}
        http("PATCH", url + "/api/me", {"listenbrainz_user": "someone"}, session)
        _, _, token = http("POST", url + "/api/tokens", {"name": "bench"}, session)
        self.auth = {"Authorization": f"Bearer {token['token']}"}

    def load(self, name, port, method, path, pid=None, **kw):
        before = cpu_s(pid) if pid else 0.0
        result = run_load(name, port, method, path, clients=CLIENTS, duration=DURATION_S, **kw)
        result.cpu_us = (cpu_s(pid) - before) / max(1, result.requests) * 1e6 if pid else None
        return result

    def pair(self, bare_args: tuple, kmood_args: tuple, **kw):
        """The bare and the k-mood load in turn, ROUNDS times (this machine's speed drifts by a
        third within a minute): each side's best round, so a ratio compares like with like."""
        bare, kmood = [], []
        for _ in range(ROUNDS):
            bare.append(self.load(*bare_args, pid=self.bare.pid, **kw))
            kmood.append(self.load(*kmood_args, pid=self.server.pid, headers=self.auth, **kw))
        return max(bare, key=lambda r: r.rps), max(kmood, key=lambda r: r.rps)

    def stop(self):
        for proc in (self.server, self.worker, self.bare):
            stop(proc)


def line(result) -> str:
    cpu = f"  server CPU {result.cpu_us:6.0f} us/req" if result.cpu_us is not None else ""
    return result.line() + cpu


def at(threads: int, listenbrainz_url: str) -> dict:
    servers = Servers(threads, listenbrainz_url)
    try:
        bare_post, create = servers.pair(
            ("bare bottle+waitress POST", servers.bare_port, "POST", "/bare"),
            ("k-mood POST /api/entries", servers.port, "POST", "/api/entries"),
            body_fn=entry_body)
        bare_get, listing = servers.pair(
            ("bare bottle+waitress GET", servers.bare_port, "GET", "/bare"),
            ("k-mood GET /api/entries?limit=20", servers.port, "GET", "/api/entries?limit=20"))
        slow = fast = None
        if SLOW_CLIENTS:  # at every thread count: the default is chosen from these
            slow_box = []
            slow_thread = threading.Thread(target=lambda: slow_box.append(run_load(
                "  slow: GET /api/now-playing (2 s)", servers.port, "GET", "/api/now-playing",
                headers=servers.auth, clients=SLOW_CLIENTS, processes=1,
                duration=DURATION_S + 2)))
            slow_thread.start()
            fast = run_load("  fast: GET /api/entries?limit=20", servers.port, "GET",
                            "/api/entries?limit=20", headers=servers.auth, clients=CLIENTS,
                            duration=DURATION_S)
            slow_thread.join()
            slow = slow_box[0]
    finally:
        servers.stop()
    return {"bare_get": bare_get, "bare_post": bare_post, "create": create, "list": listing,
            "slow": slow, "fast": fast}


def statements_per_request() -> tuple[tuple, tuple]:
    """SQL statements one create and one list-20 run, counted by SQLite's trace callback on
    every connection the request path uses (the thread's and the shared writer)."""
    from kmood_lib.accounts.users import create_user
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi
    from tests.wsgi import Client

    tmp = Path(tempfile.mkdtemp(prefix="kmood-bench-"))
    services = bootstrap(Config.from_env(base_env(tmp / "k.db")))
    conn = services.connect()
    create_user(conn, "bench", "bench-password", now_ms=0, hasher=services.hasher)
    conn.close()
    wsgi = make_wsgi(services)
    client = Client(wsgi)
    assert client.login("bench", "bench-password").status == 201
    for n in range(30):
        assert client.post("/api/entries", entry_body(n)).status == 201
    counted = []
    tracing = [wsgi.bottle.config["kmood.pool"].get()]
    with services.writer() as writer:
        tracing.append(writer)
        for c in tracing:
            c.set_trace_callback(counted.append)

    def count(call) -> tuple[int, int, int]:
        """(statements the request ran, trigger programs they fired, statements FTS5 ran).

        Python's trace hook reports a trigger's run as its firing statement's text again, right
        after it; FTS5's own statements arrive as `--` comments."""
        counted.clear()
        assert call().status in (200, 201)
        ours = [sql for sql in counted if not sql.startswith("--")]
        statements = sum(1 for i, sql in enumerate(ours) if i == 0 or sql != ours[i - 1])
        return statements, len(ours) - statements, len(counted) - len(ours)

    return (count(lambda: client.post("/api/entries", entry_body(99))),
            count(lambda: client.get("/api/entries?limit=20")))


def _up(port: int) -> bool:
    try:
        return http("GET", f"http://127.0.0.1:{port}/bare", timeout=2)[0] == 200
    except OSError:
        return False


def main() -> list[str]:
    lines = []
    with FakeUpstream() as listenbrainz:
        listenbrainz.route("*", Reply(behaviour="hang"))  # now-playing waits out its deadline
        for threads in THREAD_COUNTS:
            r = at(threads, listenbrainz.url)
            lines.append(f"-- KMOOD_THREADS={threads}"
                         + (" (the default)" if threads == DEFAULT_THREADS else ""))
            lines += [line(r[k]) for k in ("bare_get", "bare_post", "create", "list")]
            lines.append(f"ratio create / bare POST: {r['create'].rps / r['bare_post'].rps:.2f}"
                         f"  (target >= 0.33, errors {r['create'].errors})")
            lines.append(f"ratio list   / bare GET:  {r['list'].rps / r['bare_get'].rps:.2f}"
                         f"  (target >= 0.40, errors {r['list'].errors})")
            if r["fast"] is not None:
                lines += [r["slow"].line(), r["fast"].line()]
                lines.append(f"fast clients' p99 beside {SLOW_CLIENTS} slow ones:"
                             f" {r['fast'].percentile(0.99) * 1000:.1f} ms  (target < 100 ms)")
    (create, create_triggers, create_fts), (listing, _, _) = statements_per_request()
    lines.append(f"SQL statements per request: create {create} (firing {create_triggers}"
                 f" trigger programs, and FTS5 runs {create_fts} of its own for the note's"
                 f" index), list-20 {listing}")
    return lines


if __name__ == "__main__":
    print(f"API benchmark: {CLIENTS} clients, {DURATION_S:.0f} s each, KMOOD_THREADS"
          f" {','.join(map(str, THREAD_COUNTS))} (BENCH_THREADS), KMOOD_SYNCHRONOUS {SYNCHRONOUS}"
          f" (BENCH_SYNCHRONOUS), python {PYTHON}")
    for text in main():
        print(text, flush=True)
