"""An import never holds the journal for long (issue #22.2): with a 20 000-row import running
in another process (the command line), saves through the server all succeed within a 0.5 s busy
timeout (it used to hold the write lock for its whole write, and saves answered 500 'database
is locked'; writing 20 000 rows at once takes seconds); a kill -9 half-way through publishing
is finished by the worker, exactly once."""

from __future__ import annotations

import sqlite3

from tests.helpers import http, run, spawn, wait_until
from tests.unit.test_daylio_csv import NEWEST, csv_bytes

ROWS = 20_000


def big_csv(path, rows: int = ROWS) -> None:
    rows = [f"{1980 + i // 3000}-{1 + i // 250 % 12:02d}-{1 + i // 9 % 28:02d},,,"
            f"{i % 24}:{i % 60:02d},good,walk | tea,,,note {i}" for i in range(rows)]
    path.write_bytes(csv_bytes(NEWEST, *rows))


def count(db, sql: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def test_saves_go_through_while_another_process_imports(stack_factory, tmp_path):
    stack = stack_factory(KMOOD_BUSY_TIMEOUT_MS="500")
    stack.create_user("alice")
    stack.create_user("ann")
    stack.start(worker=False)
    auth = stack.log_in("alice")
    path = tmp_path / "history.csv"
    big_csv(path)
    importer = spawn(["kmood.py", "import-daylio", str(path), "--user", "ann"], stack.env,
                     tmp_path / "import.log")
    db = tmp_path / "kmood.db"
    statuses, during = [], 0
    while importer.poll() is None and len(statuses) < 1000:
        status, _, body = http("POST", stack.url + "/api/entries", {"mood": 4}, auth)
        statuses.append(status)
        assert status == 201, body
        status, _, health = http("GET", stack.url + "/healthz")
        assert status == 200, health
        during += importer.poll() is None
    assert importer.wait(300) == 0, (tmp_path / "import.log").read_text()
    assert during >= 5, during  # the saves really ran beside the import
    assert count(db, "SELECT count(*) FROM entries WHERE user_id = 2") == ROWS
    assert count(db, "SELECT count(*) FROM entries WHERE user_id = 1") == len(statuses)
    assert stack.stop()["server"] == 0
    assert "database is locked" not in stack.server_log.read_text()


def test_an_import_killed_while_publishing_is_finished_by_the_worker(stack_factory, tmp_path):
    stack = stack_factory(KMOOD_IMPORT_LEASE_S="1")
    stack.create_user("alice")
    stack.create_user("ann")
    path = tmp_path / "history.csv"
    big_csv(path)
    db = tmp_path / "kmood.db"
    importer = spawn(["kmood.py", "import-daylio", str(path), "--user", "ann"], stack.env,
                     tmp_path / "import.log")
    wait_until(lambda: count(db, "SELECT count(*) FROM entries") > 0
               or importer.poll() is not None, 120, what="publishing to begin")
    importer.kill()  # kill -9, half-way through publishing
    importer.wait(30)
    part = count(db, "SELECT count(*) FROM entries")
    assert 0 < part < ROWS and count(db, "SELECT count(*) FROM import_runs") == 1


    def worker_finished_it() -> bool:  # once the run's lease (1 s) has run out
        worker = run(["kmood_worker.py", "--once"], stack.env, timeout=300)
        assert worker.returncode == 0, worker.stderr
        return count(db, "SELECT count(*) FROM entries") == ROWS

    wait_until(worker_finished_it, 120, interval=0.2, what="the worker to finish the import")
    assert count(db, "SELECT count(*) FROM import_runs") == 0
    assert count(db, "SELECT count(*) FROM import_rows") == 0
    again = run(["kmood.py", "import-daylio", str(path), "--user", "ann"], stack.env)
    assert f"Imported 0 entries; {ROWS} already in the journal." in again.stdout, again.stderr
