"""Two worker processes, one reminder: it is sent once, within seconds of its time, although
the sweep interval is five minutes (issue #13)."""

from __future__ import annotations

import sqlite3
import time
from datetime import datetime
from zoneinfo import ZoneInfo

from tests.fakes import FakeUpstream, Reply
from tests.helpers import base_env, run, spawn, stop, wait_until


def test_two_workers_send_a_reminder_once_and_on_time(tmp_path):
    with FakeUpstream() as hook:
        arrivals: list[float] = []  # wall-clock time each request arrived
        hook.route("*", lambda record: (arrivals.append(time.time()), Reply({"ok": True}))[1])
        env = base_env(tmp_path / "k.db", KMOOD_ALLOW_PRIVATE_NOTIFY_URLS="1",
                       KMOOD_SWEEP_INTERVAL_S="300", KMOOD_ENRICH_WEATHER="0",
                       KMOOD_ENRICH_PLACE="0", KMOOD_ENRICH_SONGS="0")
        assert run(["kmood.py", "create-user", "ann", "--password-stdin"], env,
                   input="a long password\n").returncode == 0
        fire_at_ms = int(time.time() * 1000) + 4000
        local = datetime.fromtimestamp(fire_at_ms / 1000, ZoneInfo("UTC"))
        db = sqlite3.connect(tmp_path / "k.db")
        db.execute("INSERT INTO reminders (user_id, local_minute, weekdays, timezone, channel,"
                   " url, next_fire_at, next_local_date, created_at, updated_at)"
                   " VALUES (1, ?, 127, 'UTC', 'webhook', ?, ?, ?, 0, 0)",
                   (local.hour * 60 + local.minute, hook.url + "/hook", fire_at_ms,
                    local.date().isoformat()))
        db.commit()
        db.close()
        workers = [spawn(["kmood_worker.py"], env, tmp_path / f"w{i}.log") for i in (1, 2)]

        def delivered():
            conn = sqlite3.connect(tmp_path / "k.db")
            try:
                return conn.execute("SELECT status FROM reminder_deliveries").fetchall()
            finally:
                conn.close()

        try:
            wait_until(lambda: delivered(), 30, 0.05, "the reminder's delivery")
        finally:
            codes = [stop(w) for w in workers]
        assert codes == [0, 0]
        assert delivered() == [("sent",)]
        (request,) = hook.requests
        assert request["json"]["local_date"] == local.date().isoformat()
        late_s = arrivals[0] - fire_at_ms / 1000
        assert -0.01 <= late_s < 3, late_s  # on time: not early, seconds at most (not a sweep)
        logs = "".join((tmp_path / f"w{i}.log").read_text() for i in (1, 2))
        assert "Traceback" not in logs and logs.count(": sent") == 1
