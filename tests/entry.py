"""Test entry script: the real server or worker, through the same bootstrap and loop, with
test-only job kinds over test tables registered (SPEC §9).

    python tests/entry.py worker [kmood_worker.py args...]
    python tests/entry.py server [kmood.py args...]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kmood_lib.core import db  # noqa: E402
from kmood_lib.core.db import transaction  # noqa: E402
from kmood_lib.queue.sweeps import JobKind, Prompt  # noqa: E402

TEST_TABLES = [
    "CREATE TABLE IF NOT EXISTS test_work (id INTEGER PRIMARY KEY,"
    " behaviour TEXT NOT NULL DEFAULT 'ok', done_at INTEGER)",
    # UNIQUE: a handler that ran twice for one piece of work fails loudly.
    "CREATE TABLE IF NOT EXISTS test_runs (work_id INTEGER NOT NULL UNIQUE, worker TEXT,"
    " attempt INTEGER)",
    "CREATE TABLE IF NOT EXISTS test_events (id INTEGER PRIMARY KEY, work_id INTEGER,"
    " event TEXT, worker TEXT, attempt INTEGER, at_ns INTEGER)",
    "CREATE TABLE IF NOT EXISTS test_pickups (entry_id INTEGER PRIMARY KEY, picked_at_ns INTEGER)",
]


def create_test_tables(path: str) -> None:
    conn = db.connect(path, 10_000)
    with transaction(conn):
        for statement in TEST_TABLES:
            conn.execute(statement)
    conn.close()


def event(ctx, name: str) -> None:
    ctx.conn.execute("INSERT INTO test_events (work_id, event, worker, attempt, at_ns)"
                     " VALUES (?, ?, ?, ?, ?)", (ctx.payload["id"], name, ctx.worker_id,
                                                 ctx.job.attempts, time.time_ns()))


def handle_work(ctx) -> None:
    """Behaviours: ok | slow (0.5 s) | slow_first (the first attempt hangs) | fail."""
    work_id = ctx.payload["id"]
    behaviour = ctx.conn.execute("SELECT behaviour FROM test_work WHERE id = ?",
                                 (work_id,)).fetchone()[0]
    if behaviour != "ok":
        event(ctx, "started")
    if behaviour == "fail":
        raise RuntimeError(f"work {work_id} failed on purpose")
    if behaviour == "slow":
        time.sleep(0.5)  # a handler busy with real work, not a test waiting for time
    if behaviour == "slow_first" and ctx.job.attempts == 1:
        time.sleep(120)  # hangs until the test kills this process
    with ctx.completing():  # the run is recorded and the job completed in one transaction
        ctx.conn.execute("INSERT INTO test_runs (work_id, worker, attempt) VALUES (?, ?, ?)",
                         (work_id, ctx.worker_id, ctx.job.attempts))
        ctx.conn.execute("UPDATE test_work SET done_at = ? WHERE id = ?",
                         (ctx.services.clock.now_ms(), work_id))
    if behaviour != "ok":
        event(ctx, "finished")


def handle_pickup(ctx) -> None:
    ctx.conn.execute("INSERT OR IGNORE INTO test_pickups (entry_id, picked_at_ns) VALUES (?, ?)",
                     (ctx.payload["entry_id"], time.time_ns()))


prompt_pickup = Prompt("SELECT 'entry:' || ? AS key, json_object('entry_id', ?) AS payload",
                       lambda user_id, entry_id, now_ms: (entry_id, entry_id))


TEST_KINDS = [
    JobKind("test_work",
            "SELECT 'work:' || id AS key, json_object('id', id) AS payload FROM test_work"
            " WHERE done_at IS NULL ORDER BY id",
            handle_work),
    JobKind("test_pickup",
            "SELECT 'entry:' || e.id AS key, json_object('entry_id', e.id) AS payload"
            " FROM entries e WHERE NOT EXISTS (SELECT 1 FROM test_pickups p"
            " WHERE p.entry_id = e.id)",
            handle_pickup, prompt=prompt_pickup),
]


def main() -> int:
    role, args = sys.argv[1], sys.argv[2:]
    create_test_tables(os.environ["KMOOD_DB"])
    if role == "worker":
        import kmood_worker

        return kmood_worker.main(args, bootstrap_kwargs={"job_kinds": TEST_KINDS})
    import kmood

    return kmood.main(args, bootstrap_kwargs={"job_kinds": TEST_KINDS})


if __name__ == "__main__":
    sys.exit(main())
