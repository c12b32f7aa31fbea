"""Queue benchmark, every contender in the same run on the same machine:

1. 20 000 no-op jobs drained by 2 worker processes from one SQLite file (WAL): k-mood's real
   worker path (batch claim, handlers, one guarded acknowledgement per batch), huey's
   SqliteStorage as shipped (synchronous=FULL) and at k-mood's synchronous=NORMAL, litequeue,
   and a raw stdlib floor (one UPDATE ... RETURNING claim and one UPDATE acknowledgement per
   job). Prints jobs/s, duplicates and lost jobs, and the ratios.
2. Server-enqueue-to-worker-pickup latency: the real server (its post-save prompt enqueue)
   and the real worker (default wake-up settings) as processes, entries posted one at a time.
"""

from __future__ import annotations

import functools
import multiprocessing
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: this file shadows stdlib queue

from kmood_lib.core import db, migrate  # noqa: E402
from kmood_lib.queue import sweeps  # noqa: E402

JOBS, WORKERS, BATCH = 20_000, 2, 10
PICKUPS = 60


def now_ms() -> int:
    return time.time_ns() // 1_000_000


# --- the contenders: fill(path) once, then work(path, name) in each worker process ---------
# Each work() returns the identities of the jobs it handled, so duplicates and losses are
# counted from what the workers saw, not from what the store claims.

def kmood_fill(path: str) -> None:
    conn = db.connect(path, 10_000)
    migrate.run(conn, migrate.load_migrations(), now_ms)
    t = now_ms()
    with db.transaction(conn):
        conn.executemany("INSERT INTO jobs (kind, key, payload, max_attempts, run_after,"
                         " created_at, updated_at) VALUES ('noop', ?, '{}', 8, ?, ?, ?)",
                         [(str(i), t, t, t) for i in range(JOBS)])
    conn.close()


def kmood_work(path: str, name: str) -> list[str]:
    """The real worker's claim-run-acknowledge path (worker.batch.run_batch) with a no-op kind."""
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.core.config import Config
    from kmood_lib.worker.batch import run_batch
    from kmood_lib.worker.context import close_worker, open_worker

    handled = []
    noop = sweeps.JobKind("noop", "SELECT NULL AS key, NULL AS payload WHERE 0",
                          lambda ctx: handled.append(ctx.job.key))
    config = Config.from_env({"KMOOD_DB": path, "KMOOD_JOB_BATCH": str(BATCH),
                              "KMOOD_LOG_LEVEL": "WARNING"})
    worker = open_worker(bootstrap(config, job_kinds=[noop]))
    while run_batch(worker, worker.clock.now_ms()):
        pass
    close_worker(worker)
    return handled


def raw_work(path: str, name: str) -> list[str]:
    conn = sqlite3.connect(path, isolation_level=None, timeout=10)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    handled = []
    while True:
        rows = conn.execute(
            "UPDATE jobs SET status = 'running', claimed_by = ? WHERE id = (SELECT id FROM jobs"
            " WHERE status IN ('queued', 'retrying') AND run_after <= ? ORDER BY run_after, id"
            " LIMIT 1) RETURNING id, key", (name, now_ms())).fetchall()  # same index as k-mood
        if not rows:
            return handled
        conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (rows[0][0],))
        handled.append(rows[0][1])


def _huey(path: str, synchronous: str | None):
    from huey.storage import SqliteStorage

    storage = SqliteStorage(name="bench", filename=path, timeout=10)
    if synchronous:
        storage.conn.execute(f"PRAGMA synchronous={synchronous}")
    return storage


def huey_fill(path: str) -> None:
    storage = _huey(path, None)
    with storage.db(commit=True) as cursor:
        cursor.executemany("INSERT INTO task (queue, data, priority) VALUES ('bench', ?, 0)",
                           [(str(i).encode(),) for i in range(JOBS)])
    storage.close()


def huey_work(path: str, name: str, synchronous: str | None = None) -> list[str]:
    storage = _huey(path, synchronous)
    handled = []
    while (data := storage.dequeue()) is not None:  # huey's ack is the dequeue itself
        handled.append(bytes(data).decode())
    return handled


def _litequeue(path: str):
    from litequeue import LiteQueue

    return LiteQueue(path, queue_name="bench", timeout=10)  # WAL, synchronous=NORMAL itself


def litequeue_fill(path: str) -> None:
    queue = _litequeue(path)
    queue.conn.execute("BEGIN")
    for i in range(JOBS):
        queue.put(str(i))
    queue.conn.execute("COMMIT")
    queue.conn.close()


def litequeue_work(path: str, name: str) -> list[str]:
    queue = _litequeue(path)
    handled = []
    while (message := queue.pop()) is not None:
        queue.done(message.message_id)
        handled.append(message.data)
    return handled


CONTENDERS = {
    "raw stdlib floor": (kmood_fill, raw_work),
    f"k-mood (batch {BATCH})": (kmood_fill, kmood_work),
    "huey SqliteStorage": (huey_fill, huey_work),  # as shipped: synchronous=FULL
    "huey, synchronous=NORMAL": (huey_fill, functools.partial(huey_work, synchronous="NORMAL")),
    "litequeue": (litequeue_fill, litequeue_work),
}


def _worker(work, path: str, name: str, out) -> None:
    try:
        out.put((work(path, name), None))
    except Exception as exc:  # a contender that gives up is reported, not waited for
        out.put(([], f"{type(exc).__name__}: {exc}"))


def drain(fill, work) -> tuple[float, int, int, list[str]]:
    """(jobs/s, duplicates, lost, errors) for WORKERS processes draining JOBS jobs from a
    fresh file; a worker that died of an error counts its unreported jobs as lost."""
    path = str(Path(tempfile.mkdtemp(prefix="kmood-bench-")) / "q.db")
    fill(path)
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(work, path, f"w{i}", out))
             for i in range(WORKERS)]
    started = time.perf_counter()
    for p in procs:
        p.start()
    reports = [out.get(timeout=600) for _ in procs]
    elapsed = time.perf_counter() - started
    for p in procs:
        p.join()
    seen = [key for keys, _ in reports for key in keys]
    unique = set(seen) & set(map(str, range(JOBS)))
    errors = [error for _, error in reports if error]
    return len(unique) / elapsed, len(seen) - len(set(seen)), JOBS - len(unique), errors


# --- server enqueue to worker pickup ------------------------------------------------------

def pickup_latency(**extra_env: str) -> list[float]:
    """Seconds from the server's prompt enqueue (the job's created_at) to the worker's claim
    of it (the test_pickup handler's timestamp), one entry at a time, default wake settings."""
    from tests.entry import create_test_tables
    from tests.helpers import base_env, free_port, healthy, http, run, spawn, stop, wait_until

    tmp = Path(tempfile.mkdtemp(prefix="kmood-bench-"))
    port = free_port()
    env = base_env(tmp / "k.db", KMOOD_PORT=str(port), KMOOD_LOG_LEVEL="WARNING",
                   KMOOD_SWEEP_INTERVAL_S="3600", **extra_env)
    create_test_tables(env["KMOOD_DB"])
    assert run(["kmood.py", "create-user", "bench", "--password-stdin"], env,
               "bench-password\n").returncode == 0
    server = spawn(["tests/entry.py", "server"], env, tmp / "server.log")
    worker = spawn(["tests/entry.py", "worker"], env, tmp / "worker.log")
    url = f"http://127.0.0.1:{port}"
    conn = sqlite3.connect(env["KMOOD_DB"], timeout=30)
    try:
        wait_until(lambda: healthy(url), 60, what="server")
        if "KMOOD_NATS_URL" in extra_env:
            wait_until(NATS.both_connected, 30, what="server and worker on NATS")
        _, headers, me = http("POST", url + "/api/session",
                              {"username": "bench", "password": "bench-password"})
        auth = {"Cookie": headers["Set-Cookie"].split(";")[0], "X-CSRF-Token": me["csrf_token"]}
        for i in range(PICKUPS):
            status, _, entry = http("POST", url + "/api/entries", {"mood": i % 5 + 1}, auth)
            assert status == 201, entry
            wait_until(lambda e=entry["id"]: conn.execute(
                "SELECT 1 FROM test_pickups WHERE entry_id = ?", (e,)).fetchone(), 30,
                interval=0.005, what="pickup")
            time.sleep(0.05)  # let the worker fall idle again, as between real saves
        rows = conn.execute(
            "SELECT p.picked_at_ns / 1e6 - j.created_at FROM test_pickups p JOIN jobs j"
            " ON j.kind = 'test_pickup' AND j.key = 'entry:' || p.entry_id").fetchall()
    finally:
        conn.close()
        stop(worker)
        stop(server)
    return [ms / 1000 for (ms,) in rows]


def report_pickups(label: str, latencies: list[float], target: str) -> float:
    latencies = sorted(latencies)
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    median = statistics.median(latencies)
    print(f"server enqueue -> worker pickup, {label} ({len(latencies)} entries): median"
          f" {median * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms  ({target})")
    return median


NATS = None  # the nats-server of the relay run


if __name__ == "__main__":
    print(f"queue benchmark: {JOBS} no-op jobs, {WORKERS} worker processes, one SQLite file")
    results = {name: drain(fill, work) for name, (fill, work) in CONTENDERS.items()}
    for name, (rate, duplicates, lost, errors) in results.items():
        print(f"{name:<26} {rate:9.0f} jobs/s  duplicates {duplicates}  lost {lost}"
              + "".join(f"\n    worker error: {e}" for e in errors))
    kmood = results[f"k-mood (batch {BATCH})"][0]
    print(f"ratio k-mood / huey:      {kmood / results['huey SqliteStorage'][0]:.2f}"
          "  (target >= 4; huey as shipped, synchronous=FULL)")
    print(f"ratio k-mood / huey at synchronous=NORMAL: "
          f"{kmood / results['huey, synchronous=NORMAL'][0]:.2f}")
    print(f"ratio k-mood / litequeue: {kmood / results['litequeue'][0]:.2f}")
    print(f"ratio k-mood / raw floor: {kmood / results['raw stdlib floor'][0]:.2f}"
          "  (target >= 1.2)")
    polling = report_pickups("polling (PRAGMA data_version every KMOOD_WAKE_INTERVAL_MS)",
                             pickup_latency(), "target median < 200 ms")
    from tests.helpers import NatsServer

    NATS = NatsServer(Path(tempfile.mkdtemp(prefix="kmood-bench-nats-")) / "nats.log").start()
    try:
        relayed = report_pickups("NATS relay on", pickup_latency(KMOOD_NATS_URL=NATS.url),
                                 "target median < 20 ms")
    finally:
        NATS.proc.terminate()
        NATS.proc.wait(30)
    print(f"ratio polling / NATS pickup median: {polling / relayed:.1f}")
