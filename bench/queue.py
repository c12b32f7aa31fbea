"""Queue benchmark: 20 000 no-op jobs drained by 2 worker processes, k-mood's claim/complete
beside a raw stdlib floor (one UPDATE ... RETURNING claim and one UPDATE ack per job), in the
same run. (huey and litequeue peers are not wired in yet.)"""

from __future__ import annotations

import multiprocessing
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: this file shadows stdlib queue

from kmood_lib import db, jobs  # noqa: E402

JOBS, WORKERS = 20_000, 2


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def fill(path: str) -> None:
    conn = db.connect(path, 10_000)
    db.migrate(conn, db.load_migrations(), now_ms)
    t = now_ms()
    with db.transaction(conn):
        conn.executemany("INSERT INTO jobs (kind, key, payload, max_attempts, run_after,"
                         " created_at, updated_at) VALUES ('noop', ?, '{}', 8, ?, ?, ?)",
                         [(f"k{i}", t, t, t) for i in range(JOBS)])
    conn.close()


def kmood_worker(path: str, name: str, out) -> None:
    conn = db.connect(path, 10_000)
    done = 0
    while True:
        batch = jobs.claim(conn, name, now_ms(), 10, 60_000)
        if not batch:
            break
        for job in batch:
            done += jobs.complete(conn, job.id, name, now_ms())
    out.put(done)


def raw_worker(path: str, name: str, out) -> None:
    conn = sqlite3.connect(path, isolation_level=None, timeout=10)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    done = 0
    while True:
        rows = conn.execute(
            "UPDATE jobs SET status = 'running', claimed_by = ? WHERE id = (SELECT id FROM jobs"
            " WHERE status IN ('queued', 'retrying') AND run_after <= ? ORDER BY run_after, id"
            " LIMIT 1) RETURNING id", (name, now_ms())).fetchall()  # same index as k-mood
        if not rows:
            break
        conn.execute("UPDATE jobs SET status = 'done' WHERE id = ?", (rows[0][0],))
        done += 1
    out.put(done)


def drain(target) -> tuple[float, int, int]:
    path = str(Path(tempfile.mkdtemp()) / "q.db")
    fill(path)
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    started = time.perf_counter()
    procs = [ctx.Process(target=target, args=(path, f"w{i}", out)) for i in range(WORKERS)]
    for p in procs:
        p.start()
    counts = [out.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    elapsed = time.perf_counter() - started
    conn = sqlite3.connect(path)
    done = conn.execute("SELECT count(*) FROM jobs WHERE status = 'done'").fetchone()[0]
    duplicates = sum(counts) - done
    lost = JOBS - done
    return JOBS / elapsed, duplicates, lost


if __name__ == "__main__":
    print(f"queue benchmark: {JOBS} no-op jobs, {WORKERS} worker processes")
    raw = drain(raw_worker)
    kmood = drain(kmood_worker)
    for name, (rate, dups, lost) in (("raw stdlib floor", raw), ("k-mood (batch 10)", kmood)):
        print(f"{name:<20} {rate:9.0f} jobs/s  duplicates {dups}  lost {lost}")
    print(f"ratio k-mood / raw floor: {kmood[0] / raw[0]:.2f}  (target >= 1.2)")
