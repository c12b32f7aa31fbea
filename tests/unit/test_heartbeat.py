"""Worker heartbeats in one process with a fake clock: the row, its steps, /healthz, the banner,
the queue summary, /metrics and the CLI."""

import threading

import pytest

from kmood_lib.bootstrap import bootstrap
from kmood_lib.core.config import Config, ConfigError
from kmood_lib.core.signals import StopSignal
from kmood_lib.queue import heartbeat, jobs, sweeps
from kmood_lib.worker.context import close_worker, open_worker
from kmood_lib.worker.loop import run_once
from kmood_lib.worker.waiting import wait_for_work
from tests.helpers import base_env
from tests.wsgi import Client

NO_SWEEP = "SELECT NULL AS key, NULL AS payload WHERE 0"


def row(conn):
    rows = conn.execute("SELECT * FROM workers").fetchall()
    assert len(rows) <= 1
    return dict(rows[0]) if rows else None


@pytest.fixture
def seen():
    return {}


@pytest.fixture
def hs(config, clock, seen):
    """Services with a `probe` kind whose handler records the worker's row while it runs, then
    moves the clock on and extends its lease."""

    def handle(ctx):
        seen["during"] = row(ctx.conn)
        clock.advance(30)
        seen["extended"] = ctx.extend_lease()
        seen["after_extend"] = row(ctx.conn)

    kind = sweeps.JobKind("probe", NO_SWEEP, handle)
    cfg = config.with_overrides(worker_heartbeat_s=10, worker_stale_s=60)
    return bootstrap(cfg, clock=clock, job_kinds=[kind])


def test_a_worker_says_which_step_it_is_in_and_a_long_job_beats_when_it_extends_its_lease(
        hs, clock, seen):
    conn = hs.connect()
    worker = open_worker(hs)
    sweeps.enqueue(conn, hs.job_kinds, "probe", "p:1", {}, clock.now_ms(),
                   jobs.Policy.from_config(hs.config))
    started = clock.now_ms()
    run_once(worker, clock.now_ms())
    during = seen["during"]
    assert during["step"] == "job probe" and during["step_since"] == started
    assert during["id"] == worker.worker_id and during["pid"] > 0 and during["version"]
    assert seen["extended"] is True
    assert seen["after_extend"]["last_beat"] == started + 30_000  # the extension beat too
    assert seen["after_extend"]["step_since"] == started  # still the same step
    clock.advance(1)  # the steps after the job changed within a second: written once it is up
    worker.heartbeat.beat()
    final = row(conn)
    assert final["jobs_done"] == 1 and final["jobs_failed"] == 0
    close_worker(worker)
    assert row(conn) is None  # a clean stop removes the row
    conn.close()


def test_the_same_step_is_rewritten_only_once_the_heartbeat_interval_has_passed(hs, clock):
    conn = hs.connect()
    worker = open_worker(hs)
    worker.heartbeat.beat("idle")
    first = row(conn)["last_beat"]
    clock.advance(5)
    worker.heartbeat.beat("idle")
    assert row(conn)["last_beat"] == first  # within the interval: no write
    clock.advance(5)
    worker.heartbeat.beat("idle")
    assert row(conn)["last_beat"] == first + 10_000
    clock.advance(1)
    worker.heartbeat.beat("sweep")  # a new step is written at once
    assert (row(conn)["step"], row(conn)["step_since"]) == ("sweep", first + 11_000)
    close_worker(worker)
    conn.close()


def test_a_busy_workers_steps_are_written_at_most_once_a_second(hs, clock):
    conn = hs.connect()
    worker = open_worker(hs)
    writes: list[str] = []
    worker.conn.set_trace_callback(lambda sql: writes.append(sql) if "workers" in sql else None)
    worker.heartbeat.beat("idle")
    first = clock.now_ms()
    for step in ("job weather", "idle", "job place", "idle"):
        clock.advance(0.2)
        worker.heartbeat.beat(step)
    assert len(writes) == 1 and row(conn)["step"] == "idle"  # the first only
    assert worker.heartbeat.next_due(clock.now_ms()) == first + 1000  # the wait wakes for it
    clock.advance(0.2)
    worker.heartbeat.beat()
    assert len(writes) == 2
    assert (row(conn)["step"], row(conn)["step_since"]) == ("idle", first + 800)
    clock.advance(5)
    worker.heartbeat.beat("sweep")  # the row is older than a second: a new step at once
    assert len(writes) == 3 and row(conn)["step"] == "sweep"
    close_worker(worker)
    conn.close()


def test_a_heartbeat_interval_under_a_second_is_kept_through_changes_of_step(config, clock):
    quick = bootstrap(config.with_overrides(worker_heartbeat_s=0.2, worker_stale_s=0.5),
                      clock=clock)
    conn = quick.connect()
    worker = open_worker(quick)
    worker.heartbeat.beat("idle", force=True)
    clock.advance(0.1)
    worker.heartbeat.beat("sweep")  # within the interval: waits for it, not for a second
    alive = []
    for _ in range(10):
        clock.advance(0.1)
        worker.heartbeat.beat()
        alive.append(heartbeat.health(conn, clock.now_ms(), 0.5)["alive"])
    assert alive == [1] * 10 and row(conn)["step"] == "sweep"
    close_worker(worker)
    conn.close()


def test_a_periodic_step_is_written_as_it_starts_so_one_that_hangs_shows_where(hs, clock):
    from kmood_lib.worker.context import Periodic
    from kmood_lib.worker.loop import run_due

    conn = hs.connect()
    worker = open_worker(hs)
    seen = {}

    def slow(services, conn, now):
        seen["row"] = row(conn)
        clock.advance(300)
        return False

    worker.heartbeat.beat("idle", force=True)
    run_due(worker, [Periodic("reminders", 60, lambda *a: False), Periodic("backup", 3600, slow)],
            clock.now_ms())
    assert seen["row"]["step"] == "backup"
    close_worker(worker)
    conn.close()


def test_failed_jobs_are_counted(config, clock):
    def fail(ctx):
        raise RuntimeError("no")

    services = bootstrap(config, clock=clock, job_kinds=[sweeps.JobKind("bad", NO_SWEEP, fail)])
    conn = services.connect()
    sweeps.enqueue(conn, services.job_kinds, "bad", "b:1", {}, clock.now_ms(),
                   jobs.Policy.from_config(config))
    worker = open_worker(services)
    run_once(worker, clock.now_ms())
    clock.advance(1)
    worker.heartbeat.beat()
    assert (row(conn)["jobs_done"], row(conn)["jobs_failed"]) == (0, 1)
    close_worker(worker)
    conn.close()


def test_stale_must_exceed_the_heartbeat_interval(db_path):
    with pytest.raises(ConfigError, match="KMOOD_WORKER_STALE_S: must exceed"):
        Config.from_env(base_env(db_path, KMOOD_WORKER_HEARTBEAT_S="30",
                                 KMOOD_WORKER_STALE_S="30"))
    with pytest.raises(ConfigError, match="KMOOD_WORKER_HEARTBEAT_S"):
        Config.from_env(base_env(db_path, KMOOD_WORKER_HEARTBEAT_S="soon"))


def test_healthz_is_degraded_without_a_fresh_heartbeat_and_strict_makes_that_503(
        wsgi, services, conn, clock):
    client = Client(wsgi)
    response = client.get("/healthz")
    assert response.status == 200
    assert response.json == {"status": "degraded", "database": "ok",
                               "worker": {"alive": 0, "last_beat_age_s": None}}
    assert client.get("/healthz?strict=1").status == 503
    worker = open_worker(services)
    worker.heartbeat.beat("idle")
    clock.advance(2.5)
    assert client.get("/healthz").json == {"status": "ok", "database": "ok",
                                             "worker": {"alive": 1, "last_beat_age_s": 2.5}}
    assert client.get("/healthz?strict=1").status == 200
    clock.advance(services.config.worker_stale_s)  # 62.5 s since the last beat
    body = client.get("/healthz").json
    assert body["status"] == "degraded" and body["worker"] == {"alive": 0,
                                                               "last_beat_age_s": 62.5}
    assert client.get("/healthz?strict=1").status == 503
    close_worker(worker)


def test_admins_see_a_banner_on_every_page_while_no_worker_is_alive(client_for, services, clock):
    admin = client_for("root", admin=True)
    member = client_for("bob")
    banner = "No background worker is running"
    for path in ("/", "/entries", "/stats", "/settings", "/admin/jobs"):
        assert banner in admin.get(path).text, path
    assert banner not in member.get("/").text
    assert banner not in admin.get("/api/me").text  # pages only
    worker = open_worker(services)
    worker.heartbeat.beat("idle")
    assert banner not in admin.get("/").text
    clock.advance(services.config.worker_stale_s + 1)
    assert banner in admin.get("/").text
    close_worker(worker)


def test_the_queue_summary_metrics_and_jobs_page_carry_the_heartbeat(client_for, services, clock):
    admin = client_for("root", admin=True)
    metrics = admin.get("/metrics").text
    assert "kmood_workers_alive 0\n" in metrics
    assert "kmood_worker_last_beat_age_seconds +Inf\n" in metrics
    worker = open_worker(services)
    worker.heartbeat.beat("sweep")
    clock.advance(4)
    summary = admin.get("/api/jobs/summary").json["workers"]
    assert summary["alive"] == 1 and summary["last_beat_age_s"] == 4 and summary["stale_after_s"] == 60
    [w] = summary["workers"]
    assert (w["id"], w["step"], w["step_age_s"], w["alive"]) == (worker.worker_id, "sweep", 4, True)
    metrics = admin.get("/metrics").text
    assert "kmood_workers_alive 1\n" in metrics and "kmood_worker_last_beat_age_seconds 4.0\n" in metrics
    page = admin.get("/admin/jobs").text
    assert '<strong translate="no">sweep</strong> for 4 s' in page and "alive" in page
    clock.advance(120)
    page = admin.get("/admin/jobs").text
    assert 'Last seen in <strong translate="no">sweep</strong> for 2 min' in page and "stale" in page
    close_worker(worker)


def test_the_queue_cli_prints_the_workers(env, config, capsys):
    import kmood_worker

    worker = open_worker(bootstrap(config))  # the CLI reads the real clock
    worker.heartbeat.beat("idle")
    assert kmood_worker.main(["jobs"], environ=env) == 0
    out = capsys.readouterr().out
    assert "workers alive: 1" in out and worker.worker_id in out and "in idle for" in out
    close_worker(worker)
    assert kmood_worker.main(["jobs", "summary"], environ=env) == 0
    assert "workers alive: 0 (no worker has ever beaten" in capsys.readouterr().out


def test_an_idle_worker_wakes_for_a_due_job_but_not_for_other_commits(config, db_path):
    """Heartbeats are commits too: if any commit woke an idle worker, two workers would wake
    each other for ever. Only a commit that makes a job due (or a poke) ends the idle."""
    kind = sweeps.JobKind("probe", NO_SWEEP, lambda ctx: None)
    cfg = config.with_overrides(poll_interval_s=60, wake_interval_ms=10, sweep_interval_s=3600,
                                session_cleanup_interval_s=3600, checkpoint_interval_s=3600)
    services = bootstrap(cfg, job_kinds=[kind])
    policy = jobs.Policy.from_config(cfg)
    worker = open_worker(services, StopSignal())
    run_once(worker, services.clock.now_ms())  # every periodic step has run: none is due for an hour
    returned = threading.Event()
    woken = threading.Event()  # set just before the commit or poke that should end the idle

    def elsewhere(*actions):
        """Another connection (its own thread) commits, then the worker is watched idling."""
        def act():
            other = services.connect()
            try:
                for action in actions:
                    action(other)
            finally:
                other.close()
        thread = threading.Thread(target=act)
        thread.start()
        return thread

    def not_due(other):
        for n in range(20):  # commits that are no due work: another worker's heartbeats
            heartbeat.beat(other, heartbeat.Beat(f"other:{n}", "h", 1, "0", 0), 0)
        now = services.clock.now_ms()
        sweeps.enqueue(other, services.job_kinds, "probe", "later", {}, now, policy,
                       run_after_ms=now + 3_600_000)
        returned.wait(1.0)  # the worker must still be idle after a second of this
        woken.set()
        sweeps.enqueue(other, services.job_kinds, "probe", "now", {}, services.clock.now_ms(),
                       policy)

    def poke(other):
        returned.wait(0.5)
        woken.set()
        worker.stop.poke()

    try:
        for actions, expected_step in (((not_due,), "now"), ((poke,), None)):
            returned.clear()
            woken.clear()
            thread = elsewhere(*actions)
            wait_for_work(worker, services.clock.now_ms())  # 60 s unless woken
            assert woken.is_set()  # it did not end before its wake-up came
            returned.set()
            thread.join(30)
            due = [j.key for j in jobs.claim(worker.conn, "t", services.clock.now_ms(), 10,
                                            60_000)]
            assert due == ([expected_step] if expected_step else [])
    finally:
        close_worker(worker)
