"""API benchmark: first, creates at 1, 4 and 16 clients (the durable floor, the floor committing
in groups, k-mood) with CPU and bytes per create, to show whether saves collapse when many
arrive at once (issue #44). Then 16 concurrent clients creating and listing entries against
kmood.py on waitress (with kmood_worker.py beside it, as deployed), beside two baselines
measured in the same run, at KMOOD_THREADS 2, 4 and 8: a bare Bottle+waitress endpoint that
touches no database, and the durable floor — the same stack parsing the same JSON body and
inserting one row in one transaction with k-mood's pragmas (`synchronous` as configured), the
least a create that survives a power cut can cost (bench/bare_app.py).

For each: req/s, p50/p99, the ratios to both baselines, and the server's CPU per request (utime
+ stime of its process from /proc/<pid>/stat). Then, per create, what reaches the disk: fsync
and fdatasync calls (counted by strace attached to the server for a run of sequential
creates) and bytes written (/proc/<pid>/io), k-mood beside the floor. Then, at the default
thread count, 16 fast clients listing beside 2 slow clients whose now-playing lookups wait out
their 2 s deadline (a ListenBrainz that never answers): the fast clients' p99 shows whether a
slow request stalls everyone. Last, the SQL statements and commits one create and one list run, counted in
process.
"""

from __future__ import annotations

import http.client as http_client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
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
CREATES_TRACED = 300  # sequential creates under strace, for the disk traffic of one
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
                           str(threads), str(self.tmp / "floor.db")], self.env,
                          self.tmp / "bare.log")
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

    def load(self, name, port, method, path, pid=None, clients=CLIENTS, **kw):
        before = cpu_s(pid) if pid else 0.0
        written = _written(pid) if pid else 0
        worker_written = _written(self.worker.pid)
        groups = self.group_commits() if port == self.port else None
        result = run_load(name, port, method, path, clients=clients, duration=DURATION_S,
                          **kw)
        requests = max(1, result.requests)
        result.cpu_us = (cpu_s(pid) - before) / requests * 1e6 if pid else None
        result.written = (_written(pid) - written) / requests if pid else None
        result.worker_written = (_written(self.worker.pid) - worker_written) / requests
        result.per_group = None
        if groups is not None:
            (groups_before, saves_before), (groups_after, saves_after) = groups, \
                self.group_commits()
            result.per_group = (saves_after - saves_before) / max(1, groups_after - groups_before)
        return result

    def group_commits(self) -> tuple[int, int]:
        """(groups, saves) the server has committed so far, from its /metrics."""
        _, _, text = http("GET", f"http://127.0.0.1:{self.port}/metrics", None, self.auth)
        found = dict(line.split(" ") for line in text.splitlines()
                     if line.startswith("kmood_group_commit_"))
        return (int(found["kmood_group_commit_groups_total"]),
                int(found["kmood_group_commit_writes_total"]))

    def best_of(self, *sides, **kw) -> list:
        """Each side's load in turn, ROUNDS times (this machine's speed drifts by a third within
        a minute): each side's best round, so a ratio compares like with like. A side is
        (name, port, method, path, pid, headers)."""
        rounds = [[] for _ in sides]
        for _ in range(ROUNDS):
            for results, (name, port, method, path, pid, headers) in zip(rounds, sides,
                                                                          strict=True):
                results.append(self.load(name, port, method, path, pid=pid, headers=headers,
                                         **kw))
        return [max(results, key=lambda r: r.rps) for results in rounds]

    def disk_per_create(self, port: int, path: str, pid: int, headers: dict) -> tuple:
        """(fsync + fdatasync calls, bytes written) per create over CREATES_TRACED sequential
        creates: strace counts the calls of every thread of the server; /proc/<pid>/io the
        bytes it sent to storage. (None, bytes) without strace."""
        strace = shutil.which("strace")
        out = self.tmp / f"strace-{port}.txt"
        tracer = None
        if strace:
            tracer = subprocess.Popen([strace, "-f", "-c", "-e", "trace=fsync,fdatasync",
                                       "-o", str(out), "-p", str(pid)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1)  # attached to every thread before the first create
        written = _written(pid)
        conn = http_client.HTTPConnection("127.0.0.1", port, timeout=30)
        for n in range(CREATES_TRACED):
            conn.request("POST", path, json.dumps(entry_body(n)),
                         {"Content-Type": "application/json", **headers})
            response = conn.getresponse()
            response.read()
            assert response.status == 201, (path, response.status)
        conn.close()
        written = (_written(pid) - written) / CREATES_TRACED
        if tracer is None:
            return None, written
        tracer.send_signal(signal.SIGINT)
        tracer.wait(timeout=30)
        calls = sum(int(fields[3]) for fields in map(str.split, out.read_text().splitlines())
                    if fields and fields[-1] in ("fsync", "fdatasync"))
        return calls / CREATES_TRACED, written

    def stop(self):
        for proc in (self.server, self.worker, self.bare):
            stop(proc)


def line(result) -> str:
    cpu = f"  server CPU {result.cpu_us:6.0f} us/req" if result.cpu_us is not None else ""
    return result.line() + cpu


def at(threads: int, listenbrainz_url: str) -> dict:
    servers = Servers(threads, listenbrainz_url)
    bare, auth = servers.bare.pid, servers.auth
    try:
        bare_post, floor, create = servers.best_of(
            ("bare bottle+waitress POST", servers.bare_port, "POST", "/bare", bare, None),
            ("durable floor POST", servers.bare_port, "POST", "/durable", bare, None),
            ("k-mood POST /api/entries", servers.port, "POST", "/api/entries",
             servers.server.pid, auth),
            body_fn=entry_body)
        bare_get, listing = servers.best_of(
            ("bare bottle+waitress GET", servers.bare_port, "GET", "/bare", bare, None),
            ("k-mood GET /api/entries?limit=20", servers.port, "GET", "/api/entries?limit=20",
             servers.server.pid, auth))
        disk = None
        if threads == DEFAULT_THREADS:
            disk = (servers.disk_per_create(servers.bare_port, "/durable", bare, {}),
                    servers.disk_per_create(servers.port, "/api/entries", servers.server.pid,
                                            auth))
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
    return {"bare_get": bare_get, "bare_post": bare_post, "floor": floor, "create": create,
            "list": listing, "slow": slow, "fast": fast, "disk": disk}


SCALE_CLIENTS = (1, 4, 16)


def scaling(listenbrainz_url: str) -> list[str]:
    """Creates at 1, 4 and 16 clients, at the default thread count: the durable floor (one
    commit per insert), the floor committing in groups, and k-mood; each with the server's CPU
    and bytes written per create. A baseline that collapses under 16 clients flatters a ratio
    taken there: the single-client floor is the one to beat."""
    servers = Servers(DEFAULT_THREADS, listenbrainz_url)
    bare = servers.bare.pid
    lines = [f"-- creates by clients (KMOOD_THREADS={DEFAULT_THREADS}): req/s, server CPU and"
             " bytes written per create"]
    found = {}
    try:
        for clients in SCALE_CLIENTS:
            found[clients] = servers.best_of(
                ("durable floor", servers.bare_port, "POST", "/durable", bare, None),
                ("durable floor, group commit", servers.bare_port, "POST", "/durable-group",
                 bare, None),
                ("k-mood POST /api/entries", servers.port, "POST", "/api/entries",
                 servers.server.pid, servers.auth),
                body_fn=entry_body, clients=clients)
            for r in found[clients]:
                group = (f"  {r.per_group:4.1f} saves a commit,"
                         f" worker {r.worker_written / 1024:4.1f} KiB"
                         if r.per_group is not None else "")
                lines.append(f"{clients:2d} clients  {r.name:<28} {r.rps:7.0f}/s  CPU"
                             f" {r.cpu_us:6.0f} us  written {r.written / 1024:5.1f} KiB"
                             f"{group}  errors {r.errors}")
    finally:
        servers.stop()
    one, many = found[1][2], found[16][2]
    floor_one = found[1][0]
    lines.append(f"k-mood 16 clients / 1 client: {many.rps / one.rps:.2f}  (target >= 1.0)")
    lines.append(f"k-mood 16 clients / single-client durable floor:"
                 f" {many.rps / floor_one.rps:.2f}  (target >= 0.8)")
    lines.append(f"k-mood CPU per create, 16 clients / 1 client:"
                 f" {many.cpu_us / one.cpu_us:.2f}  (target <= 1.3)")
    lines.append(f"k-mood written per create at 16 clients: {many.written / 1024:.1f} KiB"
                 f"  (target <= 30; and the worker's checkpoints and jobs"
                 f" {many.worker_written / 1024:.1f} KiB)")
    return lines


def statements_per_request() -> tuple[tuple, tuple, tuple]:
    """SQL statements one create, the list-20 after it and the same list again (kept) run,
    counted by SQLite's trace callback on every connection the request path uses (the
    thread's and the shared writer)."""
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

    def count(call) -> tuple[int, int, int, int]:
        """(statements the request ran, trigger programs they fired, statements FTS5 ran,
        commits).

        Python's trace hook reports a trigger's run as its firing statement's text again, right
        after it; FTS5's own statements arrive as `--` comments."""
        counted.clear()
        assert call().status in (200, 201)
        ours = [sql for sql in counted if not sql.startswith("--")]
        statements = sum(1 for i, sql in enumerate(ours) if i == 0 or sql != ours[i - 1])
        commits = sum(1 for sql in ours if sql.strip().upper() in ("COMMIT", "END"))
        return statements, len(ours) - statements, len(counted) - len(ours), commits

    return (count(lambda: client.post("/api/entries", entry_body(99))),
            count(lambda: client.get("/api/entries?limit=20")),
            count(lambda: client.get("/api/entries?limit=20")))


def _written(pid: int) -> int:
    """Bytes a process has caused to be sent to storage (write_bytes of /proc/<pid>/io)."""
    for text in Path(f"/proc/{pid}/io").read_text().splitlines():
        if text.startswith("write_bytes:"):
            return int(text.split()[1])
    return 0


def _up(port: int) -> bool:
    try:
        return http("GET", f"http://127.0.0.1:{port}/bare", timeout=2)[0] == 200
    except OSError:
        return False


def main() -> list[str]:
    lines = []
    with FakeUpstream() as listenbrainz:
        listenbrainz.route("*", Reply(behaviour="hang"))  # now-playing waits out its deadline
        lines += scaling(listenbrainz.url)
        for threads in THREAD_COUNTS:
            r = at(threads, listenbrainz.url)
            lines.append(f"-- KMOOD_THREADS={threads}"
                         + (" (the default)" if threads == DEFAULT_THREADS else ""))
            lines += [line(r[k]) for k in ("bare_get", "bare_post", "floor", "create", "list")]
            lines.append(f"ratio create / bare POST: {r['create'].rps / r['bare_post'].rps:.2f}"
                         f"  (target >= 0.33, errors {r['create'].errors})")
            lines.append(f"ratio create / durable floor: {r['create'].rps / r['floor'].rps:.2f}"
                         f"  (target >= 0.50, errors {r['create'].errors},"
                         f" floor errors {r['floor'].errors})")
            lines.append(f"ratio list   / bare GET:  {r['list'].rps / r['bare_get'].rps:.2f}"
                         f"  (target >= 0.40, errors {r['list'].errors})")
            if r["disk"] is not None:
                for name, (fsyncs, written) in zip(("durable floor", "k-mood"), r["disk"],
                                                   strict=True):
                    calls = "strace missing" if fsyncs is None else f"{fsyncs:.2f}"
                    lines.append(f"per create, {name:<13}: fsync+fdatasync {calls},"
                                 f" {written / 1024:.1f} KiB written"
                                 f"  ({CREATES_TRACED} sequential creates)")
            if r["fast"] is not None:
                lines += [r["slow"].line(), r["fast"].line()]
                lines.append(f"fast clients' p99 beside {SLOW_CLIENTS} slow ones:"
                             f" {r['fast'].percentile(0.99) * 1000:.1f} ms  (target < 100 ms)")
    (create, create_triggers, create_fts, commits), (listing, _, _, list_commits), \
        (kept, _, _, kept_commits) = statements_per_request()
    lines.append(f"SQL statements per request: create {create} (firing {create_triggers}"
                 f" trigger programs, and FTS5 runs {create_fts} of its own for the note's"
                 f" index), list-20 {listing} (the first after a change), {kept} (kept)")
    lines.append(f"COMMIT statements per request: create {commits}, list-20 {list_commits}"
                 f" (a list's ends its read snapshot: it writes nothing), {kept_commits} (kept)")
    return lines


if __name__ == "__main__":
    print(f"API benchmark: {CLIENTS} clients, {DURATION_S:.0f} s each, KMOOD_THREADS"
          f" {','.join(map(str, THREAD_COUNTS))} (BENCH_THREADS), KMOOD_SYNCHRONOUS {SYNCHRONOUS}"
          f" (BENCH_SYNCHRONOUS), python {PYTHON}")
    for text in main():
        print(text, flush=True)
