"""/healthz over real processes: a server alone is degraded, a worker makes it ok, a killed
worker makes it degraded again once its heartbeat is stale; a clean stop says so at once."""

import signal

from tests.helpers import http, spawn, wait_until

BEAT_S, STALE_S = "0.2", "1.5"


def health(stack, strict=False):
    status, _, body = http("GET", stack.url + "/healthz" + ("?strict=1" if strict else ""),
                           timeout=10)
    return status, body


def test_healthz_follows_the_worker_heartbeat(stack_factory):
    stack = stack_factory(KMOOD_WORKER_HEARTBEAT_S=BEAT_S, KMOOD_WORKER_STALE_S=STALE_S).start(
        worker=False)
    status, body = health(stack)
    assert status == 200
    assert body == {"status": "degraded", "database": "ok",
                    "worker": {"alive": 0, "last_beat_age_s": None}}
    assert health(stack, strict=True)[0] == 503

    stack.worker = spawn(["kmood_worker.py"], stack.env, stack.worker_log)
    wait_until(lambda: health(stack)[1]["status"] == "ok", 60, what="the worker's first beat")
    assert health(stack, strict=True)[0] == 200
    # Idle, it keeps beating: the newest beat stays younger than the stale window.
    for _ in range(5):
        wait_until(lambda: health(stack)[1]["worker"]["last_beat_age_s"] < float(BEAT_S) * 3,
                   30, what="a fresh heartbeat")
    assert health(stack)[1]["worker"]["alive"] == 1

    stack.worker.send_signal(signal.SIGKILL)
    stack.worker.wait(30)
    # Dead without a word: the row stays, and turns stale after the window.
    wait_until(lambda: health(stack)[1]["status"] == "degraded", 30, what="stale")
    status, body = health(stack)
    assert body["worker"]["alive"] == 0 and body["worker"]["last_beat_age_s"] >= float(STALE_S)
    assert health(stack, strict=True)[0] == 503

    stack.worker = spawn(["kmood_worker.py"], stack.env, stack.worker_log)
    wait_until(lambda: health(stack)[1]["status"] == "ok", 60, what="a new worker")
    stack.worker.send_signal(signal.SIGTERM)
    assert stack.worker.wait(30) == 0
    # A clean stop removes its row; the killed worker's stale one is all that is left.
    status, body = health(stack)
    assert body["status"] == "degraded" and body["worker"]["alive"] == 0
    stack.worker = None
    assert stack.stop() == {"server": 0}


def test_a_worker_stuck_in_a_job_shows_that_step_and_then_goes_stale(tmp_path):
    """A handler that hangs: the row says which step it is in and since when; the loop stops
    beating, so after the stale window it no longer counts as alive."""
    import sqlite3

    from tests.entry import create_test_tables
    from tests.helpers import base_env, free_port, healthy, run, stop

    port = free_port()
    env = base_env(tmp_path / "k.db", KMOOD_PORT=str(port), KMOOD_WORKER_HEARTBEAT_S=BEAT_S,
                   KMOOD_WORKER_STALE_S=STALE_S, KMOOD_JOB_LEASE_S="600")
    create_test_tables(env["KMOOD_DB"])
    url = f"http://127.0.0.1:{port}"
    server = spawn(["tests/entry.py", "server"], env, tmp_path / "server.log")
    worker = spawn(["tests/entry.py", "worker"], env, tmp_path / "worker.log")
    try:
        wait_until(lambda: healthy(url), 60, what="server")
        conn = sqlite3.connect(tmp_path / "k.db", isolation_level=None, timeout=30)
        conn.execute("INSERT INTO test_work (behaviour) VALUES ('slow_first')")
        conn.close()
        summary = run(["tests/entry.py", "worker", "jobs", "sweep"], env)
        assert summary.returncode == 0, summary.stderr

        def stuck():
            out = run(["tests/entry.py", "worker", "jobs"], env).stdout
            return "STALE" in out and "in job test_work for" in out and out

        out = wait_until(stuck, 60, what="the stuck worker going stale")
        assert "workers alive: 0" in out
        status, body = http("GET", url + "/healthz", timeout=10)[0::2]
        assert body["status"] == "degraded" and body["worker"]["alive"] == 0
    finally:
        worker.kill()
        worker.wait(30)
        assert stop(server) == 0
