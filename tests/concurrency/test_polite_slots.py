"""Two worker processes share Nominatim's one-request-a-second budget through the slot in
the database: the fake sees their requests at least 0.9 s apart (issue #11)."""

from __future__ import annotations

import sqlite3

import pytest

from kmood_lib import entries, users
from kmood_lib.bootstrap import bootstrap
from kmood_lib.config import Config
from kmood_lib.entry_input import parse_entry, utc_now
from tests.fakes import FakeNominatim
from tests.helpers import base_env, spawn, stop, wait_until

CELLS = [(10.0 + i, 20.0 + i) for i in range(6)]


@pytest.mark.slow
def test_two_workers_never_ask_nominatim_faster_than_once_a_second(tmp_path):
    from zoneinfo import ZoneInfo

    with FakeNominatim({cell: (f"Town {i}", "XX") for i, cell in enumerate(CELLS)}) as fake:
        env = base_env(tmp_path / "k.db", KMOOD_NOMINATIM_URL=fake.url,
                       KMOOD_POLITE_INTERVAL_MS="1000", KMOOD_ENRICH_WEATHER="0",
                       KMOOD_JOB_BATCH="1", KMOOD_SWEEP_INTERVAL_S="0.2")
        services = bootstrap(Config.from_env(env))
        conn = services.connect()
        user = users.create_user(conn, "ann", "long secret", now_ms=0, hasher=services.hasher)
        for lat, lon in CELLS:  # saved without the prompt path: the sweeps find the work
            data = parse_entry({"mood": 3, "location": {"lat": lat, "lon": lon}},
                               tz=ZoneInfo("UTC"), now=utc_now(services.clock), metric_defs={},
                               patch=False)
            entries.create_entry(conn, user.id, data, "api", 0)
        conn.close()
        workers = [spawn(["kmood_worker.py"], env, tmp_path / f"worker{i}.log") for i in (1, 2)]

        def linked() -> int:
            db = sqlite3.connect(tmp_path / "k.db")
            try:
                return db.execute("SELECT count(*) FROM entry_places").fetchone()[0]
            finally:
                db.close()

        try:
            wait_until(lambda: linked() == len(CELLS), 60, 0.1, "every entry to get its place")
        finally:
            codes = [stop(w) for w in workers]
        assert codes == [0, 0]
        times = sorted(r["at"] for r in fake.requests)
        assert len(times) == len(CELLS)
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert min(gaps) >= 0.9, gaps
        logs = [(tmp_path / f"worker{i}.log").read_text() for i in (1, 2)]
        assert not any("Traceback" in log for log in logs)
        looked_up = [log.count(": Town ") for log in logs]
        assert sum(looked_up) == len(CELLS) and min(looked_up) >= 1, looked_up  # both asked
