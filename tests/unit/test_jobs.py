"""The queue in one process with a fake clock: dedupe, guards, backoff, sweeps, bad rows."""

import random

import pytest

from kmood_lib.bootstrap import bootstrap
from kmood_lib.queue import jobs, sweeps
from kmood_lib.worker.batch import MAX_ACK_DELAY_MS, PendingAcks, run_batch
from kmood_lib.worker.context import close_worker, open_worker
from kmood_lib.worker.job import MAX_RETRY_AFTER_S, retry_delay_ms, run_job
from kmood_lib.worker.loop import run_once
from tests.entry import TEST_KINDS, create_test_tables


@pytest.fixture
def qs(config, clock):
    """Services with the test kinds; a short lease, cheap backoff, cool-down 60 s."""
    create_test_tables(config.db_path)
    cfg = config.with_overrides(job_lease_s=10, job_backoff_base_s=10, job_backoff_cap_s=100,
                                job_max_attempts=3, job_cooldown_s=60, sweep_limit=100)
    return bootstrap(cfg, clock=clock, job_kinds=TEST_KINDS)


@pytest.fixture
def qconn(qs):
    conn = qs.connect()
    yield conn
    conn.close()


def policy(qs):
    return jobs.Policy.from_config(qs.config)


def add_work(conn, n, behaviour="ok"):
    return [conn.execute("INSERT INTO test_work (behaviour) VALUES (?) RETURNING id",
                         (behaviour,)).fetchall()[0][0] for _ in range(n)]


def enqueue(qs, conn, key, now):
    return sweeps.enqueue(conn, qs.job_kinds, "test_work", key, {"id": int(key.split(":")[1])},
                          now, policy(qs))


def test_a_kind_without_a_sweeper_cannot_be_registered_or_enqueued(qs, qconn, clock):
    with pytest.raises(jobs.QueueError, match="no sweeper"):
        sweeps.JobKinds([sweeps.JobKind("fire_and_forget", "", lambda ctx: None)])
    with pytest.raises(jobs.QueueError, match="no job kind 'email'"):
        sweeps.enqueue(qconn, qs.job_kinds, "email", "x", {}, clock.now_ms(), policy(qs))
    assert qconn.execute("SELECT count(*) FROM jobs").fetchone()[0] == 0


def test_enqueue_dedupes_per_kind_and_key_while_live(qs, qconn, clock):
    first = enqueue(qs, qconn, "work:1", clock.now_ms())
    assert first is not None
    assert enqueue(qs, qconn, "work:1", clock.now_ms()) is None
    assert enqueue(qs, qconn, "work:2", clock.now_ms()) is not None
    [job] = jobs.claim(qconn, "w", clock.now_ms(), 1, 10_000)
    jobs.complete(qconn, job.id, "w", clock.now_ms())
    assert enqueue(qs, qconn, "work:1", clock.now_ms()) is not None  # done is not live


def test_a_reclaimed_job_cannot_be_completed_by_its_old_worker(qs, qconn, clock):
    enqueue(qs, qconn, "work:1", clock.now_ms())
    [old] = jobs.claim(qconn, "slow", clock.now_ms(), 10, 10_000)
    clock.advance(11)
    assert jobs.reclaim_stalled(qconn, clock.now_ms()) == 1
    row = qconn.execute("SELECT status, last_error FROM jobs").fetchone()
    assert row["status"] == "retrying" and "lease expired" in row["last_error"]
    [new] = jobs.claim(qconn, "fresh", clock.now_ms(), 10, 10_000)
    assert new.attempts == 2
    assert not jobs.complete(qconn, old.id, "slow", clock.now_ms())
    assert not jobs.extend_lease(qconn, old.id, "slow", clock.now_ms(), 10_000)
    assert jobs.complete(qconn, new.id, "fresh", clock.now_ms())
    assert qconn.execute("SELECT status FROM jobs").fetchone()[0] == "done"


def test_reclaim_leaves_live_leases_alone(qs, qconn, clock):
    enqueue(qs, qconn, "work:1", clock.now_ms())
    jobs.claim(qconn, "w", clock.now_ms(), 1, 10_000)
    clock.advance(9)
    assert jobs.reclaim_stalled(qconn, clock.now_ms()) == 0


def test_a_stalled_job_on_its_last_attempt_is_exhausted_by_the_reclaim_with_its_error(
        qs, qconn, clock):
    enqueue(qs, qconn, "work:1", clock.now_ms())  # max_attempts is 3
    for attempt in (1, 2):
        [job] = jobs.claim(qconn, f"w{attempt}", clock.now_ms(), 1, 10_000)
        clock.advance(11)
        assert jobs.reclaim_stalled(qconn, clock.now_ms()) == 1
        row = qconn.execute("SELECT status, attempts FROM jobs").fetchone()
        assert (row["status"], row["attempts"]) == ("retrying", attempt)
    [job] = jobs.claim(qconn, "last", clock.now_ms(), 1, 10_000)
    assert job.attempts == job.max_attempts == 3
    clock.advance(11)
    assert jobs.reclaim_stalled(qconn, clock.now_ms()) == 1
    row = qconn.execute("SELECT * FROM jobs").fetchone()
    assert (row["status"], row["attempts"], row["finished_at"]) == ("exhausted", 3,
                                                                     clock.now_ms())
    assert row["last_error"] == "lease expired: worker last stopped responding during attempt 3"
    assert row["claimed_by"] is None and row["lease_until"] is None
    assert jobs.claim(qconn, "w", clock.now_ms() + 10**9, 1, 10_000) == []


def test_a_job_is_claimed_only_once_it_is_due(qs, qconn, clock):
    now = clock.now_ms()
    later = sweeps.enqueue(qconn, qs.job_kinds, "test_work", "work:1", {"id": 1}, now,
                           policy(qs), run_after_ms=now + 60_000)
    assert jobs.claim(qconn, "w", now, 10, 10_000) == []
    assert jobs.claim(qconn, "w", now + 59_999, 10, 10_000) == []
    row = qconn.execute("SELECT status, attempts, claimed_by FROM jobs").fetchone()
    assert tuple(row) == ("queued", 0, None)
    [job] = jobs.claim(qconn, "w", now + 60_000, 10, 10_000)
    assert job.id == later and job.attempts == 1


def test_backoff_follows_the_formula_within_its_jitter_bounds(qs):
    p = policy(qs)  # base 10 s, cap 100 s
    for attempts, full in ((1, 10), (2, 20), (3, 40), (4, 80), (5, 100), (9, 100)):
        lows = jobs.backoff_ms(attempts, p, FixedRandom(0.5))
        highs = jobs.backoff_ms(attempts, p, FixedRandom(1.0))
        assert (lows, highs) == (full * 500, full * 1000)
        for seed in range(20):
            assert full * 500 <= jobs.backoff_ms(attempts, p, random.Random(seed)) <= full * 1000


class FixedRandom(random.Random):
    def __init__(self, value):
        super().__init__(0)
        self.value = value

    def uniform(self, a, b):
        return a + (b - a) * (self.value - 0.5) / 0.5


def test_failures_retry_with_backoff_then_exhaust_after_max_attempts(qs, qconn, clock):
    add_work(qconn, 1, "fail")
    worker = open_worker(qs)
    run_once(worker, clock.now_ms())  # sweep enqueues, attempt 1 fails
    row = qconn.execute("SELECT * FROM jobs").fetchone()
    assert (row["status"], row["attempts"]) == ("retrying", 1)
    assert 5_000 <= row["run_after"] - clock.now_ms() <= 10_000
    assert "failed on purpose" in row["last_error"]
    run_once(worker, clock.now_ms())  # not due yet: nothing claimed
    assert qconn.execute("SELECT attempts FROM jobs").fetchone()[0] == 1
    for _ in range(2):
        clock.advance(100)
        run_once(worker, clock.now_ms())
    row = qconn.execute("SELECT * FROM jobs").fetchone()
    assert (row["status"], row["attempts"]) == ("exhausted", 3)
    assert row["finished_at"] == clock.now_ms()
    close_worker(worker)


def test_sweep_respects_cool_down_and_a_deliberate_retry_runs_at_once(qs, qconn, clock):
    add_work(qconn, 1, "fail")
    qconn.execute("UPDATE jobs SET status = 'x'")  # no-op on an empty queue
    p = policy(qs)
    kind = qs.job_kinds.require("test_work")
    assert sweeps.sweep(qconn, kind, clock.now_ms(), 10, p) == 1
    job_id = qconn.execute("SELECT id FROM jobs").fetchone()[0]
    qconn.execute("UPDATE jobs SET status = 'exhausted', finished_at = ? WHERE id = ?",
                  (clock.now_ms(), job_id))
    clock.advance(30)
    assert sweeps.sweep(qconn, kind, clock.now_ms(), 10, p) == 0  # cooling down
    assert jobs.retry(qconn, job_id, clock.now_ms()) == "retried"
    row = qconn.execute("SELECT status, attempts, run_after FROM jobs").fetchone()
    assert tuple(row) == ("queued", 0, clock.now_ms())
    qconn.execute("UPDATE jobs SET status = 'exhausted', finished_at = ?", (clock.now_ms(),))
    clock.advance(61)
    assert sweeps.sweep(qconn, kind, clock.now_ms(), 10, p) == 1  # cool-down over


def test_sweep_inserts_at_most_its_limit_and_cooling_subjects_do_not_starve_the_rest(
        qs, qconn, clock):
    ids = add_work(qconn, 10)
    p = policy(qs)
    for work_id in ids[:3]:  # the first three are cooling down
        qconn.execute("INSERT INTO jobs (kind, key, payload, status, max_attempts, run_after,"
                      " created_at, updated_at, finished_at) VALUES ('test_work', ?, '{}',"
                      " 'exhausted', 3, 0, 0, ?, ?)",
                      (f"work:{work_id}", clock.now_ms(), clock.now_ms()))
    kind = qs.job_kinds.require("test_work")
    assert sweeps.sweep(qconn, kind, clock.now_ms(), 4, p) == 4
    assert sweeps.sweep(qconn, kind, clock.now_ms(), 4, p) == 3
    assert sweeps.sweep(qconn, kind, clock.now_ms(), 4, p) == 0
    live = {r[0] for r in qconn.execute("SELECT key FROM jobs WHERE status = 'queued'")}
    assert live == {f"work:{i}" for i in ids[3:]}


def test_retry_with_a_live_twin_is_a_no_op(qs, qconn, clock):
    enqueue(qs, qconn, "work:1", clock.now_ms())
    qconn.execute("UPDATE jobs SET status = 'exhausted'")
    enqueue(qs, qconn, "work:1", clock.now_ms())  # the sweep or server queued it again
    old_id = qconn.execute("SELECT min(id) FROM jobs").fetchone()[0]
    before = qconn.execute("SELECT * FROM jobs ORDER BY id").fetchall()
    assert jobs.retry(qconn, old_id, clock.now_ms()) == "conflict"
    assert jobs.retry_exhausted(qconn, "test_work", clock.now_ms()) == 0
    assert [tuple(r) for r in qconn.execute("SELECT * FROM jobs ORDER BY id")] == [
        tuple(r) for r in before]
    assert jobs.retry(qconn, 999, clock.now_ms()) == "not_found"


def test_unreadable_rows_end_exhausted_naming_the_field_and_the_rest_progresses(
        qs, qconn, clock):
    good = add_work(qconn, 3)
    now = clock.now_ms()
    rows = {"kind": ("mystery", "{}", "queued", now),
            "payload": ("test_work", "{not json", "queued", now),
            "status": ("test_work", "{}", "wat", now),
            "run_after": ("test_work", "{}", "queued", "soon")}
    ids = {}
    for name, (kind, payload, status, run_after) in rows.items():
        ids[name] = qconn.execute(
            "INSERT INTO jobs (kind, key, payload, status, max_attempts, run_after, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, 8, ?, ?, ?) RETURNING id",
            (kind, f"bad:{name}", payload, status, run_after, now, now)).fetchall()[0][0]
    worker = open_worker(qs)
    for _ in range(3):
        run_once(worker, clock.now_ms())
        clock.advance(1)
    close_worker(worker)
    for name, job_id in ids.items():
        row = qconn.execute("SELECT status, attempts, last_error FROM jobs WHERE id = ?",
                            (job_id,)).fetchone()
        assert row["status"] == "exhausted", name
        assert row["attempts"] <= 1, name  # claimed at most once: no claim/reclaim churn
        assert name in row["last_error"], (name, row["last_error"])
    done = qconn.execute("SELECT count(*) FROM test_work WHERE done_at IS NOT NULL").fetchone()[0]
    assert done == len(good)


def test_every_step_of_an_iteration_works_at_the_now_it_is_given(qs, qconn, clock):
    """The clock says T, the iteration is given T + 60 s: the lease that ran out at T + 30 s is
    reclaimed and the job due at T + 45 s is due, so both are run, though the clock never
    moved (no step reads a clock of its own)."""
    stalled, later = add_work(qconn, 2)
    start = clock.now_ms()
    enqueue(qs, qconn, f"work:{stalled}", start)
    jobs.claim(qconn, "gone", start, 1, 30_000)
    sweeps.enqueue(qconn, qs.job_kinds, "test_work", f"work:{later}", {"id": later}, start,
                   policy(qs), run_after_ms=start + 45_000)
    worker = open_worker(qs)
    assert run_once(worker, start + 60_000)
    close_worker(worker)
    assert clock.now_ms() == start
    rows = qconn.execute("SELECT key, status, attempts FROM jobs ORDER BY key").fetchall()
    assert [tuple(r) for r in rows] == [(f"work:{stalled}", "done", 2),
                                        (f"work:{later}", "done", 1)]


def test_an_iteration_says_it_found_work_when_any_step_did(qs, qconn, clock):
    """A row only the quarantine touches is work found too: the loop goes round again at once
    instead of waiting for work."""
    worker = open_worker(qs)
    assert not run_once(worker, clock.now_ms())  # nothing to sweep, run or maintain
    now = clock.now_ms()
    qconn.execute("INSERT INTO jobs (kind, key, payload, status, max_attempts, run_after,"
                  " created_at, updated_at) VALUES ('test_work', 'bad', '{}', 'wat', 3, ?, ?, ?)",
                  (now, now, now))
    assert run_once(worker, now)
    assert not run_once(worker, now)
    close_worker(worker)


@pytest.mark.parametrize("lease_until", ["soon", 12.5, None], ids=["text", "real", "null"])
def test_a_running_job_whose_lease_is_not_an_integer_is_exhausted_and_its_work_done_later(
        qs, qconn, clock, lease_until):
    """No reclaim can match such a lease (text sorts after every number, NULL matches nothing),
    so without the quarantine the row holds its (kind, key) live for ever and the work is
    never done; a real lease would be reclaimed and claimed again, churning instead."""
    [work_id] = add_work(qconn, 1)
    now = clock.now_ms()
    job_id = qconn.execute(
        "INSERT INTO jobs (kind, key, payload, status, attempts, max_attempts, run_after,"
        " claimed_by, lease_until, created_at, updated_at)"
        " VALUES ('test_work', ?, ?, 'running', 1, 3, ?, 'gone', ?, ?, ?) RETURNING id",
        (f"work:{work_id}", f'{{"id": {work_id}}}', now, lease_until, now, now)
    ).fetchall()[0][0]
    worker = open_worker(qs)
    run_once(worker, clock.now_ms())
    row = qconn.execute("SELECT status, claimed_by, lease_until, last_error FROM jobs"
                        " WHERE id = ?", (job_id,)).fetchone()
    assert row["status"] == "exhausted", tuple(row)
    assert row["claimed_by"] is None and row["lease_until"] is None
    assert row["last_error"] == f"unreadable lease_until: {sqlite_quote(lease_until)}"
    clock.advance(qs.config.job_cooldown_s + qs.config.sweep_interval_s + 1)
    run_once(worker, clock.now_ms())  # past the cool-down the sweep queues the work again, and it is done
    close_worker(worker)
    done_at = qconn.execute("SELECT done_at FROM test_work WHERE id = ?", (work_id,)).fetchone()[0]
    assert done_at is not None
    assert qconn.execute("SELECT count(*) FROM jobs WHERE status = 'running'").fetchone()[0] == 0


def sqlite_quote(value) -> str:
    """What SQLite's quote() makes of a value, as the quarantine's last_error shows it."""
    return "NULL" if value is None else f"'{value}'" if isinstance(value, str) else repr(value)


def test_losing_the_queue_loses_nothing(qs, qconn, clock):
    add_work(qconn, 30)
    worker = open_worker(qs)
    run_once(worker, clock.now_ms())  # sweep enqueues 30, the batch of 10 runs
    qconn.execute("DELETE FROM jobs")
    for _ in range(5):
        clock.advance(qs.config.sweep_interval_s + 1)
        run_once(worker, clock.now_ms())
    close_worker(worker)
    assert qconn.execute("SELECT count(*) FROM test_work WHERE done_at IS NULL").fetchone()[0] == 0
    assert qconn.execute("SELECT count(*) FROM test_runs").fetchone()[0] == 30


def test_release_puts_the_rest_of_a_batch_back_uncounted(qs, qconn, clock):
    for i in range(3):
        enqueue(qs, qconn, f"work:{i}", clock.now_ms())
    batch = jobs.claim(qconn, "w", clock.now_ms(), 10, 10_000)
    assert jobs.release(qconn, [j.id for j in batch[1:]], "w", clock.now_ms()) == 2
    rows = qconn.execute("SELECT status, attempts FROM jobs ORDER BY id").fetchall()
    assert [tuple(r) for r in rows] == [("running", 1), ("queued", 0), ("queued", 0)]


def test_prune_removes_finished_jobs_after_the_retention(qs, qconn, clock):
    enqueue(qs, qconn, "work:1", clock.now_ms())
    [job] = jobs.claim(qconn, "w", clock.now_ms(), 1, 10_000)
    jobs.complete(qconn, job.id, "w", clock.now_ms())
    retention = qs.config.job_retention_s * 1000
    assert jobs.prune(qconn, clock.now_ms() + retention - 1, retention) == 0
    assert jobs.prune(qconn, clock.now_ms() + retention + 1, retention) == 1


def test_admin_routes_metrics_and_retry_api(qs, qconn, clock, make_user):
    from kmood_lib.web.app import make_wsgi
    from tests.conftest import PASSWORD
    from tests.wsgi import Client

    make_user("root")
    make_user("bob")
    add_work(qconn, 1, "fail")
    qconn.execute("INSERT INTO jobs (kind, key, payload, status, max_attempts, run_after,"
                  " created_at, updated_at) VALUES ('test_work', 'work:1', '{\"id\": 1}',"
                  " 'exhausted', 3, 0, 0, 0)")
    wsgi = make_wsgi(qs)
    admin, bob = Client(wsgi), Client(wsgi)
    admin.login("root", PASSWORD)
    bob.login("bob", PASSWORD)
    assert bob.get("/api/jobs").status == 403 and bob.get("/metrics").status == 403
    assert Client(wsgi).get("/metrics").status == 401
    listed = admin.get("/api/jobs?status=exhausted").json
    assert [j["key"] for j in listed["jobs"]] == ["work:1"] and listed["next_cursor"] is None
    summary = admin.get("/api/jobs/summary").json
    assert summary["counts"] == {"test_work": {"exhausted": 1}}
    metrics = admin.get("/metrics")
    assert metrics.headers["Content-Type"].startswith("text/plain")
    assert 'kmood_jobs{kind="test_work",status="exhausted"} 1' in metrics.text
    assert "kmood_jobs_oldest_waiting_age_seconds 0" in metrics.text
    job_id = listed["jobs"][0]["id"]
    assert admin.post(f"/api/jobs/{job_id}/retry").json["status"] == "queued"
    enqueue(qs, qconn, "work:1", clock.now_ms())  # no-op: the retried job is live
    qconn.execute("UPDATE jobs SET status = 'exhausted'")
    enqueue(qs, qconn, "work:1", clock.now_ms())
    assert admin.post(f"/api/jobs/{job_id}/retry").status == 409
    assert admin.post("/api/jobs/999/retry").status == 404
    assert admin.post("/api/jobs/retry").status == 422
    assert admin.post("/api/jobs/retry?kind=test_work").json == {"kind": "test_work",
                                                                 "retried": 0}


def test_idle_maintenance_steps_take_no_write_lock(qs, qconn, clock):
    """Quarantine and reclaim run every iteration: with nothing to do they only read, so they
    never queue behind (or hold up) another process's writer."""
    enqueue(qs, qconn, "work:1", clock.now_ms())
    jobs.claim(qconn, "w", clock.now_ms(), 1, 10_000)  # a live lease, not stalled
    from kmood_lib.core import db

    holder = db.connect(qs.config.db_path, 10_000)
    impatient = db.connect(qs.config.db_path, 0)  # busy_timeout 0: any lock wait raises
    holder.execute("BEGIN IMMEDIATE")
    try:
        assert jobs.quarantine_unclaimable(impatient, clock.now_ms()) == 0
        assert jobs.reclaim_stalled(impatient, clock.now_ms()) == 0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    impatient.execute("UPDATE jobs SET status = 'wat'")  # now there is work: it writes
    assert jobs.quarantine_unclaimable(impatient, clock.now_ms()) == 1
    impatient.close()


def test_sweep_exclusion_looks_jobs_up_by_subject_not_by_scanning_the_queue(qs, qconn, clock):
    """The sweep holds the write lock while it runs, so its per-candidate job lookup must be
    an index search; a scan made three workers starve each other for minutes."""
    sql, params = sweeps.sweep_statement(qs.job_kinds.require("test_work"), clock.now_ms(), 10,
                                         policy(qs))
    plan = [row["detail"] for row in qconn.execute("EXPLAIN QUERY PLAN " + sql, params)]
    assert "SEARCH j USING INDEX jobs_subject (kind=? AND key=?)" in plan, plan
    unclaimable = [row["detail"] for row in qconn.execute(
        f"EXPLAIN QUERY PLAN SELECT 1 FROM jobs WHERE {jobs.UNCLAIMABLE}")]
    assert unclaimable == ["SCAN jobs USING INDEX jobs_unclaimable"], unclaimable


def test_a_handler_that_completes_in_its_own_transaction_commits_both_or_neither(
        qs, qconn, clock):
    add_work(qconn, 2)
    worker = open_worker(qs)
    run_once(worker, clock.now_ms())  # the sweep queues both; the handler records and completes in one go
    assert qconn.execute("SELECT count(*) FROM test_runs").fetchone()[0] == 2
    assert {r[0] for r in qconn.execute("SELECT status FROM jobs")} == {"done"}
    qconn.execute("DELETE FROM test_runs")
    qconn.execute("UPDATE test_work SET done_at = NULL")
    qconn.execute("DELETE FROM jobs")
    clock.advance(qs.config.sweep_interval_s + 1)
    sweeps.sweep_all(qconn, qs.job_kinds, clock.now_ms(), 10, policy(qs))
    [stale, _] = jobs.claim(qconn, worker.worker_id, clock.now_ms(), 2, 10_000)
    clock.advance(11)  # the lease ran out: another worker takes the job over
    jobs.reclaim_stalled(qconn, clock.now_ms())
    [fresh, _] = jobs.claim(qconn, "other", clock.now_ms(), 2, 10_000)
    assert fresh.id == stale.id
    acks = PendingAcks(worker.conn, worker.worker_id, clock)
    run_job(worker, stale, acks.flush)  # the old claimant finishes late: its writes must not land
    assert qconn.execute("SELECT count(*) FROM test_runs").fetchone()[0] == 0
    assert qconn.execute("SELECT count(*) FROM test_work WHERE done_at IS NOT NULL"
                         ).fetchone()[0] == 0
    row = qconn.execute("SELECT status, claimed_by FROM jobs WHERE id = ?", (stale.id,)).fetchone()
    assert tuple(row) == ("running", "other")
    close_worker(worker)


def pickup_jobs(qs, conn, clock, n):
    for entry_id in range(1, n + 1):
        sweeps.enqueue(conn, qs.job_kinds, "test_pickup", f"entry:{entry_id}",
                     {"entry_id": entry_id}, clock.now_ms(), policy(qs))


def test_a_batch_of_jobs_is_acknowledged_in_one_statement(qs, qconn, clock):
    pickup_jobs(qs, qconn, clock, 5)  # test_pickup handlers leave completion to the worker
    worker = open_worker(qs)
    statements = []
    worker.conn.set_trace_callback(statements.append)
    assert run_batch(worker, clock.now_ms())
    close_worker(worker)
    acks = [s for s in statements if s.startswith("UPDATE jobs SET status = 'done'")]
    assert len(acks) == 1, acks
    # the claim and the heartbeat saying so are one commit
    claim = statements.index(next(s for s in statements if s.startswith("UPDATE jobs SET"
                                                                       " status = 'running'")))
    assert statements[claim - 1] == "BEGIN IMMEDIATE"
    assert "INTO workers" in statements[claim + 1] and "'job test_pickup'" in statements[claim + 1]
    assert statements[claim + 2] == "COMMIT"
    assert [tuple(r) for r in qconn.execute("SELECT status, attempts FROM jobs")] == [
        ("done", 1)] * 5
    assert qconn.execute("SELECT count(*) FROM test_pickups").fetchone()[0] == 5


def test_waiting_acknowledgements_are_flushed_once_the_oldest_is_due(qs, qconn, clock):
    pickup_jobs(qs, qconn, clock, 3)
    worker = open_worker(qs)
    first, second, third = jobs.claim(worker.conn, worker.worker_id, clock.now_ms(), 3, 60_000)
    acks = PendingAcks(worker.conn, worker.worker_id, clock)
    acks.add(first)
    clock.advance((MAX_ACK_DELAY_MS - 1) / 1000)
    acks.flush_if_due()
    acks.add(second)
    assert qconn.execute("SELECT count(*) FROM jobs WHERE status = 'done'").fetchone()[0] == 0
    clock.advance(0.001)
    acks.flush_if_due()  # the oldest has waited MAX_ACK_DELAY_MS: everything waiting is written
    assert qconn.execute("SELECT count(*) FROM jobs WHERE status = 'done'").fetchone()[0] == 2
    acks.add(third)
    acks.flush()
    assert qconn.execute("SELECT count(*) FROM jobs WHERE status = 'done'").fetchone()[0] == 3
    close_worker(worker)


def test_an_acknowledgement_for_a_reclaimed_job_is_refused(qs, qconn, clock):
    pickup_jobs(qs, qconn, clock, 2)
    [mine, lost] = jobs.claim(qconn, "slow", clock.now_ms(), 2, 10_000)
    qconn.execute("UPDATE jobs SET claimed_by = 'other' WHERE id = ?", (lost.id,))
    assert jobs.complete_many(qconn, [mine.id, lost.id], "slow", clock.now_ms()) == {mine.id}
    rows = qconn.execute("SELECT status FROM jobs ORDER BY id").fetchall()
    assert [r[0] for r in rows] == ["done", "running"]


def run_one_batch(config, clock, handler, n: int, **overrides):
    """Services with one test kind, n jobs of it queued, one batch run by a worker; returns
    (a second connection, the job ids). `handler(ctx, conn)` gets that second connection."""
    conn_box = []
    kind = sweeps.JobKind("test_batch", "SELECT NULL AS key, NULL AS payload WHERE 0",
                          lambda ctx: handler(ctx, conn_box[0]))
    qs = bootstrap(config.with_overrides(**overrides), clock=clock, job_kinds=[kind])
    conn = qs.connect()
    conn_box.append(conn)
    ids = [sweeps.enqueue(conn, qs.job_kinds, "test_batch", f"s:{i}", {}, clock.now_ms(),
                          jobs.Policy.from_config(qs.config)) for i in range(n)]
    worker = open_worker(qs)
    assert run_batch(worker, clock.now_ms())
    close_worker(worker)
    return conn, ids


def test_a_slow_batch_renews_the_lease_of_its_tail_so_nothing_runs_twice(config, clock):
    """Three handlers of 6 s each under a 10 s lease: without renewal the third job's lease
    runs out while the second runs, another worker takes it, and it runs twice."""
    ran, reclaimed = [], []

    def slow(ctx, other):
        ran.append(ctx.job.id)
        clock.advance(6)
        reclaimed.append(jobs.reclaim_stalled(other, clock.now_ms()))  # another worker's step

    conn, ids = run_one_batch(config, clock, slow, 3, job_lease_s=10)
    assert ran == ids and reclaimed == [0, 0, 0]
    rows = conn.execute("SELECT status, attempts FROM jobs").fetchall()
    assert [tuple(r) for r in rows] == [("done", 1)] * 3
    conn.close()


def test_jobs_another_worker_took_over_during_a_slow_batch_are_not_run_again(config, clock):
    """The first of three jobs outlives the 10 s lease, and another worker reclaims and claims
    all three meanwhile: the two not yet started are its own now, both of them (the second
    was skipped, but the third ran: its handler ran twice)."""
    ran = []

    def handler(ctx, other):
        ran.append(ctx.job.key)
        if ctx.job.key == "s:0":
            clock.advance(11)
            jobs.reclaim_stalled(other, clock.now_ms())
            assert len(jobs.claim(other, "other", clock.now_ms(), 10, 10_000)) == 3

    conn, _ = run_one_batch(config, clock, handler, 3, job_lease_s=10)
    assert ran == ["s:0"]
    rows = conn.execute("SELECT key, status, claimed_by FROM jobs ORDER BY key").fetchall()
    assert [tuple(r) for r in rows] == [("s:0", "running", "other"), ("s:1", "running", "other"),
                                        ("s:2", "running", "other")]
    conn.close()


def test_a_handler_extending_its_lease_first_writes_the_batchs_waiting_acknowledgements(
        config, clock):
    seen = {}

    def handler(ctx, other):
        if ctx.job.key == "s:1":  # the long one: job s:0 finished just before it
            ctx.extend_lease()
            seen["first"] = other.execute("SELECT status FROM jobs WHERE key = 's:0'"
                                          ).fetchone()[0]

    conn, _ = run_one_batch(config, clock, handler, 2)
    assert seen["first"] == "done"
    conn.close()


def test_retrying_a_kind_that_does_not_exist_or_a_queued_job_says_what_it_is(qs, qconn, clock,
                                                                             make_user):
    from kmood_lib.web.app import make_wsgi
    from tests.conftest import PASSWORD
    from tests.wsgi import Client

    make_user("root")
    admin = Client(make_wsgi(qs))
    admin.login("root", PASSWORD)
    unknown = admin.post("/api/jobs/retry?kind=nonesuch")
    assert unknown.status == 422 and "kind" in unknown.json["error"]["fields"]
    job = enqueue(qs, qconn, "work:1", clock.now_ms())
    assert job is not None
    job_id = qconn.execute("SELECT id FROM jobs").fetchone()[0]
    queued = admin.post(f"/api/jobs/{job_id}/retry")
    assert queued.status == 409 and "queued" in queued.json["error"]["message"]
    assert admin.get("/api/jobs?cursor=99999999999999999999").status == 422
    assert admin.get("/api/jobs?limit=%C2%B2").status == 422
    assert admin.post("/api/jobs/99999999999999999999/retry").status == 404


def test_a_handlers_retry_after_of_any_value_never_breaks_the_failure_path():
    for odd in (float("nan"), float("inf"), float("-inf"), -5, 0, None, "600", True):
        assert retry_delay_ms(odd) == 0, odd
    assert retry_delay_ms(1.5) == 1500
    assert retry_delay_ms(10**12) == MAX_RETRY_AFTER_S * 1000
