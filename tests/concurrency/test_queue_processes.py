"""The queue across real worker processes on one SQLite file."""

import signal
import sqlite3
import subprocess
import time

from kmood_lib.core import db, migrate
from kmood_lib.core.config import Config
from kmood_lib.queue import jobs, sweeps
from tests.entry import TEST_KINDS, create_test_tables
from tests.helpers import PYTHON, ROOT, base_env, spawn, stop, wait_until


def queue_env(tmp_path, **extra):
    env = base_env(tmp_path / "q.db", KMOOD_WAKE_INTERVAL_MS="20", KMOOD_POLL_INTERVAL_S="0.2",
                   **extra)
    create_test_tables(env["KMOOD_DB"])
    conn = db.connect(env["KMOOD_DB"], 10_000)  # migrated here: the workers find nothing to do
    migrate.run(conn, migrate.load_migrations(), lambda: time.time_ns() // 1_000_000)
    conn.close()
    return env


def read(env, sql, params=()):
    conn = sqlite3.connect(env["KMOOD_DB"], timeout=30)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def test_a_killed_workers_job_is_reclaimed_and_completed_by_another(tmp_path):
    env = queue_env(tmp_path, KMOOD_JOB_LEASE_S="1", KMOOD_SWEEP_INTERVAL_S="0.5")
    conn = sqlite3.connect(env["KMOOD_DB"])
    conn.execute("INSERT INTO test_work (behaviour) VALUES ('slow_first')")
    conn.commit()
    conn.close()
    first = spawn(["tests/entry.py", "worker"], env, tmp_path / "first.log")
    wait_until(lambda: read(env, "SELECT count(*) FROM test_events WHERE event = 'started'"
                                 " AND attempt = 1")[0][0] == 1, 60, what="handler started")
    first.kill()  # kill -9 in the middle of the handler
    first.wait(30)
    second = spawn(["tests/entry.py", "worker"], env, tmp_path / "second.log")
    wait_until(lambda: read(env, "SELECT status FROM jobs")[0][0] == "done", 60,
               what="reclaimed job done")
    assert stop(second) == 0
    attempts, last_error = read(env, "SELECT attempts, last_error FROM jobs")[0]
    assert attempts == 2 and "lease expired" in last_error
    assert read(env, "SELECT attempt FROM test_runs") == [(2,)]


def test_sigterm_mid_batch_finishes_the_job_in_hand_and_releases_the_rest(tmp_path):
    env = queue_env(tmp_path, KMOOD_SWEEP_INTERVAL_S="3600", KMOOD_JOB_BATCH="5")
    conn = db.connect(env["KMOOD_DB"], 10000)
    kinds, policy = sweeps.JobKinds(TEST_KINDS), jobs.Policy.from_config(Config.from_env({}))
    for _ in range(5):
        work_id = conn.execute("INSERT INTO test_work (behaviour) VALUES ('slow') RETURNING id"
                               ).fetchall()[0][0]
        sweeps.enqueue(conn, kinds, "test_work", f"work:{work_id}", {"id": work_id},
                       time.time_ns() // 1_000_000, policy)
    worker = spawn(["tests/entry.py", "worker"], env, tmp_path / "worker.log")
    wait_until(lambda: read(env, "SELECT count(*) FROM test_events WHERE event = 'started'")[0][0]
               == 1, 60, what="first job started")
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(30) == 0
    rows = read(env, "SELECT status, attempts FROM jobs ORDER BY id")
    assert rows[0] == ("done", 1)
    assert rows[1:] == [("queued", 0)] * 4
    assert read(env, "SELECT count(*) FROM test_runs")[0][0] == 1


CLAIMER = """
import sys, sqlite3, time
from kmood_lib.core import db
from kmood_lib.queue import jobs
conn = db.connect(sys.argv[1], 10000)
snapshot_errors = other_errors = claimed = 0
for i in range(400):
    try:
        for job in jobs.claim(conn, sys.argv[2], time.time_ns() // 1000000, 3, 60000):
            jobs.complete(conn, job.id, sys.argv[2], time.time_ns() // 1000000)
            claimed += 1
    except sqlite3.OperationalError as exc:
        if exc.sqlite_errorcode == 517:
            snapshot_errors += 1
        else:
            other_errors += 1
print(snapshot_errors, other_errors, claimed)
"""


def test_two_processes_claiming_concurrently_never_see_busy_snapshot(tmp_path):
    env = queue_env(tmp_path)
    conn = db.connect(env["KMOOD_DB"], 10000)
    now = time.time_ns() // 1_000_000
    with db.transaction(conn):
        for i in range(2000):
            conn.execute("INSERT INTO jobs (kind, key, payload, max_attempts, run_after,"
                         " created_at, updated_at) VALUES ('test_work', ?, '{}', 8, ?, ?, ?)",
                         (f"k{i}", now, now, now))
    procs = [subprocess.Popen([PYTHON, "-c", CLAIMER, env["KMOOD_DB"], f"w{i}"], cwd=ROOT,
                              env=env, stdout=subprocess.PIPE, text=True) for i in range(2)]
    outputs = [p.communicate(timeout=120)[0].split() for p in procs]
    assert [o[:2] for o in outputs] == [["0", "0"], ["0", "0"]]
    assert sum(int(o[2]) for o in outputs) == 2000  # every job claimed once, by one of them
    assert conn.execute("SELECT count(*) FROM jobs WHERE status = 'done'").fetchone()[0] == 2000
