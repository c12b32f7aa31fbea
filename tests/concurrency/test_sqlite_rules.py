"""Why every read-then-write runs under BEGIN IMMEDIATE: pinned so nobody 'simplifies' it away."""

import sqlite3
import subprocess

import pytest

from kmood_lib.core import db
from tests.helpers import PYTHON, ROOT

HOLDER = """
import sys, time
from kmood_lib.core import db
conn = db.connect(sys.argv[1], 10000)
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO counters VALUES ('other', 1)")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))  # hold the write lock for a while, then commit
conn.execute("COMMIT")
print("committed", flush=True)
"""


def holder(path, hold_s: float) -> subprocess.Popen:
    proc = subprocess.Popen([PYTHON, "-c", HOLDER, str(path), str(hold_s)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


@pytest.fixture
def counters(tmp_path):
    path = tmp_path / "rules.db"
    conn = db.connect(str(path), 10000)
    conn.execute("CREATE TABLE counters (name TEXT PRIMARY KEY, n INTEGER)")
    conn.execute("INSERT INTO counters VALUES ('a', 0)")
    return path, conn


def test_deferred_read_then_write_fails_at_once_after_another_process_commits(counters):
    path, conn = counters
    conn.execute("BEGIN")  # deferred
    n = conn.execute("SELECT n FROM counters WHERE name = 'a'").fetchone()[0]
    other = holder(path, 0.0)
    assert other.stdout.readline().strip() == "committed"
    other.wait(30)
    with pytest.raises(sqlite3.OperationalError) as caught:
        conn.execute("UPDATE counters SET n = ? WHERE name = 'a'", (n + 1,))
    assert caught.value.sqlite_errorcode == 517  # SQLITE_BUSY_SNAPSHOT: no timeout can fix it
    conn.execute("ROLLBACK")


def test_begin_immediate_waits_for_the_other_writer_and_succeeds(counters):
    path, conn = counters
    other = holder(path, 0.3)
    with db.transaction(conn, immediate=True):  # blocks on busy_timeout until the holder commits
        n = conn.execute("SELECT n FROM counters WHERE name = 'a'").fetchone()[0]
        conn.execute("UPDATE counters SET n = ? WHERE name = 'a'", (n + 1,))
    assert other.stdout.readline().strip() == "committed"
    assert other.wait(30) == 0
    rows = dict(conn.execute("SELECT name, n FROM counters").fetchall())
    assert rows == {"a": 1, "other": 1}
