"""A database that cannot take writes (the soak's full disk, here a read-only connection: the
same refusal path) must neither flood the log with tracebacks nor spin the worker's loop."""

import itertools
import logging
import threading

from kmood_lib.bootstrap import bootstrap
from kmood_lib.core.signals import StopSignal
from kmood_lib.queue import jobs, sweeps
from kmood_lib.worker.context import open_worker
from kmood_lib.worker.loop import pause_after_failure, run_forever, run_once

NO_SWEEP = "SELECT NULL AS key, NULL AS payload WHERE 0"


def services_with_a_job(config, clock):
    kind = sweeps.JobKind("probe", NO_SWEEP, lambda ctx: None)
    built = bootstrap(config.with_overrides(wake_interval_ms=100, poll_interval_s=1.0),
                      clock=clock, job_kinds=[kind])
    conn = built.connect()
    sweeps.enqueue(conn, built.job_kinds, "probe", "p:1", {}, clock.now_ms(),
                   jobs.Policy.from_config(built.config))
    conn.close()
    return built


def worker_logs(caplog):
    return [r for r in caplog.records
            if r.name.startswith("kmood_lib.worker") and r.levelno >= logging.ERROR]


def test_a_database_refusing_writes_is_one_line_a_minute_without_a_traceback(config, clock,
                                                                                caplog):
    built = services_with_a_job(config, clock)
    worker = open_worker(built)
    worker.conn.execute("PRAGMA query_only = 1")  # every write: SQLITE_READONLY
    caplog.set_level(logging.INFO)
    run_once(worker, clock.now_ms())
    assert worker.guard.failures
    lines = worker_logs(caplog)
    assert len(lines) == 1, [r.getMessage() for r in lines]
    assert lines[0].exc_info is None
    assert "cannot take writes" in lines[0].getMessage()
    for _ in range(5):
        run_once(worker, clock.now_ms())
    assert len(worker_logs(caplog)) == 1  # the same condition again within the minute: silent
    worker.conn.execute("PRAGMA query_only = 0")
    built.hasher.close()


def test_a_bug_in_a_step_still_logs_its_traceback(config, clock, caplog):
    def broken(services, conn, now_ms):
        raise RuntimeError("a bug")

    built = bootstrap(config, clock=clock)
    worker = open_worker(built)
    worker.sweeps[0].run = broken  # the sweep step, as a step that has a bug
    caplog.set_level(logging.INFO)
    run_once(worker, clock.now_ms())
    lines = worker_logs(caplog)
    assert worker.guard.failures and len(lines) == 1 and lines[0].exc_info is not None
    built.hasher.close()


def test_the_pause_after_failing_iterations_doubles_up_to_the_poll_interval(config):
    cfg = config.with_overrides(wake_interval_ms=100, poll_interval_s=1.0)
    pauses = [0.0]
    for _ in range(6):
        pauses.append(pause_after_failure(cfg, pauses[-1]))
    assert pauses[1:] == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]


def test_a_worker_whose_database_refuses_writes_does_not_spin(config, clock):
    """Without the pause, the loop ran a failing iteration thousands of times a second (the
    soak's full disk: 5 000 tracebacks in 9 s from one worker)."""
    built = services_with_a_job(config, clock)
    stop = StopSignal()
    sent = []  # each iteration tries once to claim the job that is due

    def work():  # the worker's connection is opened in the thread that uses it
        worker = open_worker(built, stop)
        worker.conn.set_trace_callback(sent.append)
        worker.conn.execute("PRAGMA query_only = 1")
        run_forever(worker)
        worker.conn.close()

    loop = threading.Thread(target=work)
    loop.start()
    # Real time for the loop: pauses of 0.1, 0.2, 0.4 and 0.8 s, so at most five iterations.
    threading.Event().wait(1.0)
    stop.set()
    loop.join(10)
    assert not loop.is_alive()
    claims = [after for before, after in itertools.pairwise(sent)  # the probe found the job due
              if "run_after <=" in before and after == "BEGIN IMMEDIATE"]
    assert 1 <= len(claims) <= 10, len(claims)
    built.hasher.close()
