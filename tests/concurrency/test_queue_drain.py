"""Three worker processes drain one file while a fourth process keeps enqueueing."""

import subprocess

from tests.concurrency.test_queue_processes import queue_env, read
from tests.helpers import PYTHON, ROOT, spawn, stop, wait_until

TOTAL = 2500

ENQUEUER = """
import sys, time
from kmood_lib.core import db
from kmood_lib.queue import jobs, sweeps
from kmood_lib.core.config import Config
from tests.entry import TEST_KINDS
conn = db.connect(sys.argv[1], 10000)
kinds, policy = sweeps.JobKinds(TEST_KINDS), jobs.Policy.from_config(Config.from_env({}))
total, per_transaction = int(sys.argv[2]), 10
for start in range(0, total, per_transaction):
    with db.transaction(conn):
        for _ in range(per_transaction):
            work_id = conn.execute("INSERT INTO test_work DEFAULT VALUES RETURNING id").fetchall()[0][0]
            sweeps.enqueue(conn, kinds, "test_work", f"work:{work_id}", {"id": work_id},
                         time.time_ns() // 1_000_000, policy)
    time.sleep(0.004)  # a steady stream over a second or two, not one burst
print("enqueued", total)
"""


def test_three_workers_run_every_job_exactly_once_while_another_process_enqueues(tmp_path):
    env = queue_env(tmp_path, KMOOD_SWEEP_INTERVAL_S="1", KMOOD_JOB_LEASE_S="60")
    workers = [spawn(["tests/entry.py", "worker"], env, tmp_path / f"worker{i}.log")
               for i in range(3)]
    for i in range(3):  # all three are looping before the work starts arriving
        wait_until(lambda i=i: "started" in (tmp_path / f"worker{i}.log").read_text(), 60,
                   what=f"worker{i} started")
    enqueuer = subprocess.run([PYTHON, "-c", ENQUEUER, env["KMOOD_DB"], str(TOTAL)], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=300)
    assert enqueuer.returncode == 0, enqueuer.stderr
    wait_until(lambda: read(env, "SELECT count(*) FROM test_runs")[0][0] == TOTAL, 300,
               interval=0.2, what=f"{TOTAL} handler runs")
    wait_until(lambda: read(env, "SELECT count(*) FROM jobs WHERE status != 'done'")[0][0] == 0,
               60, interval=0.2, what="every job done")
    assert [stop(w) for w in workers] == [0, 0, 0]
    assert read(env, "SELECT count(*), count(DISTINCT work_id) FROM test_runs") == [(TOTAL, TOTAL)]
    assert read(env, "SELECT count(*) FROM test_work WHERE done_at IS NULL") == [(0,)]
    assert read(env, "SELECT count(*), sum(attempts) FROM jobs") == [(TOTAL, TOTAL)]
    ran_in = read(env, "SELECT count(DISTINCT worker) FROM test_runs")[0][0]
    assert ran_in == 3, "every worker should have taken part"
    for i in range(3):
        text = (tmp_path / f"worker{i}.log").read_text()
        for bad in ("locked", "BUSY", "Traceback", "failed"):
            assert bad not in text, f"worker{i}.log: {bad}\n{text[-3000:]}"
