"""When the storage cannot take a write (issue #22.2, #22.5): a full disk answers 507 and a
writer held past the busy timeout 503 with Retry-After — JSON under /api, the log form again
with everything typed on a page — never a 500; nothing is written, and the log gets one line a
minute, not one a request."""

from __future__ import annotations

import contextlib
import logging
import subprocess
import sys
import threading

import pytest

from tests.helpers import base_env
from tests.unit import test_journal_pages
from tests.unit.test_journal_pages import csrf_of, log_form, post_form

BUSY_MS = 300
alice = test_journal_pages.alice  # the same person: a metric and an activity of her own


@pytest.fixture
def env(db_path):
    return base_env(db_path, KMOOD_BUSY_TIMEOUT_MS=str(BUSY_MS))


def fill_the_disk(services) -> None:
    """SQLite's own size cap at the pages the file has: every write that needs one more page
    fails with SQLITE_FULL, "database or disk is full", as on a full disk."""
    with services.writer() as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}").fetchall()


def free_the_disk(services) -> None:
    with services.writer() as conn:
        conn.execute("PRAGMA max_page_count = 1073741823").fetchall()


def entries(alice) -> list:
    return alice.get("/api/entries").json["entries"]


def test_a_full_disk_is_a_507_under_the_api_and_nothing_is_written(alice, services, conn,
                                                                   caplog):
    assert alice.post("/api/entries", {"mood": 3}).status == 201
    fill_the_disk(services)
    with caplog.at_level(logging.ERROR, logger="kmood_lib.web.plugins"):
        for _ in range(5):
            response = alice.post("/api/entries", {"mood": 4, "note": "x" * 20_000})
            assert response.status == 507, response.body
            assert response.headers["Retry-After"] == "30"  # an outbox waits, not spins
            error = response.json["error"]
            assert error["code"] == "insufficient_storage"
            assert "disk is full" in error["message"] and "nothing was saved" in error["message"]
    lines = [r for r in caplog.records if "database or disk is full" in r.getMessage()]
    assert len(lines) == 1, [r.getMessage() for r in caplog.records]  # one line, not five
    assert len(entries(alice)) == 1
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    free_the_disk(services)
    assert alice.post("/api/entries", {"mood": 4, "note": "x" * 20_000}).status == 201


def test_a_full_disk_shows_the_log_form_again_with_everything_typed(alice, services):
    page, fields = log_form(alice)
    fill_the_disk(services)
    long_note = "long walk\r\nthen tea " + "x" * 8_000  # more than the free pages hold
    fields = [(k, long_note if k == "note" else v) for k, v in fields]
    response = post_form(alice, "/entries", fields, csrf_of(page))
    assert response.status == 507
    assert response.headers["Retry-After"] == "30"
    assert "disk is full" in response.text
    assert "long walk\r\nthen tea" in response.text and "Sunday" in response.text
    assert 'value="4" id="mood-4" required checked' in response.text
    assert entries(alice) == []


def test_a_writer_held_past_the_busy_timeout_is_a_503_with_retry_after(alice, services):
    """Another thread of the server holds the write lock (an import did, for seconds)."""
    held, release = threading.Event(), threading.Event()

    def hold():
        with services.writer():
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(10)
        response = alice.post("/api/entries", {"mood": 4})
        assert response.status == 503 and response.headers["Retry-After"] == "2"
        assert response.json["error"]["code"] == "unavailable"
        page, fields = log_form(alice)
        response = post_form(alice, "/entries", fields, csrf_of(page))
        assert response.status == 503 and response.headers["Retry-After"] == "2"
        assert "is busy" in response.text and "long walk\r\nthen tea" in response.text
    finally:
        release.set()
        holder.join(30)
    assert entries(alice) == []
    assert alice.post("/api/entries", {"mood": 4}).status == 201


@contextlib.contextmanager
def another_process_writing(db_path):
    """A process in the middle of a write transaction (BEGIN IMMEDIATE) until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3, sys\n"
         "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
         "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); sys.stdin.read()",
         str(db_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.stdin.close()
        holder.wait(30)


def test_another_process_holding_the_database_past_the_busy_timeout_is_a_503(alice, db_path):
    """An import from the CLI (another process) made a save answer 500 'database is locked'."""
    with another_process_writing(db_path):
        response = alice.post("/api/entries", {"mood": 4})
        assert response.status == 503 and response.headers["Retry-After"] == "2"
        assert "Nothing was saved" in response.json["error"]["message"]
    assert entries(alice) == []
    assert alice.post("/api/entries", {"mood": 4}).status == 201


def last_seen(conn) -> int:
    return conn.execute("SELECT last_seen_at FROM sessions").fetchone()[0]


def test_pages_do_not_wait_on_a_writer_to_slide_a_session(alice, db_path, conn, clock):
    """Reading needs no write: the session's sliding expiry is skipped while another writer
    holds the database (it waited the whole busy timeout, then answered 500), and written on
    the next request that finds the database free."""
    seen = last_seen(conn)
    clock.advance(120)
    with another_process_writing(db_path):
        assert alice.get("/").status == 200
        assert alice.get("/api/entries").status == 200
    assert last_seen(conn) == seen
    assert alice.get("/").status == 200
    assert last_seen(conn) == clock.now_ms()


def test_a_bearer_read_does_not_wait_on_a_writer_to_note_the_token_used(alice, db_path, conn,
                                                                        clock):
    token = alice.post("/api/tokens", {"name": "phone"}).json["token"]
    from tests.wsgi import Client
    phone = Client(alice.wsgi)
    phone.bearer = token
    assert phone.get("/api/entries").status == 200
    used = conn.execute("SELECT last_used_at FROM api_tokens").fetchone()[0]
    clock.advance(120)
    with another_process_writing(db_path):
        assert phone.get("/api/entries").status == 200
    assert conn.execute("SELECT last_used_at FROM api_tokens").fetchone()[0] == used
    assert phone.get("/api/entries").status == 200
    assert conn.execute("SELECT last_used_at FROM api_tokens").fetchone()[0] == clock.now_ms()
