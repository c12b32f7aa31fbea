"""Group commit (issue #44): the saves waiting for the write lock share one transaction, each
in its own savepoint, each answered only once the group's COMMIT returned."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from kmood_lib.core import group_commit


@pytest.fixture
def table(services):
    with services.writer() as conn:
        conn.execute("CREATE TABLE saved (n INTEGER PRIMARY KEY, parent INTEGER REFERENCES"
                     " saved (n))")
    return services


def queued_at_once(services, works) -> list:
    """Each work run by a thread of its own while the write lock is held, let go once all of
    them wait: they are one group. Returns each thread's result or error."""
    answers = [None] * len(works)

    def submit(i, work):
        try:
            answers[i] = services.group_commit.run(work)
        except Exception as exc:
            answers[i] = exc

    threads = [threading.Thread(target=submit, args=(i, w)) for i, w in enumerate(works)]
    with services.writer():
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 10
        while services.group_commit.pending() < len(works) and time.monotonic() < deadline:
            time.sleep(0.001)
    for thread in threads:
        thread.join(10)
    return answers


def insert(n):
    return lambda conn: conn.execute("INSERT INTO saved (n) VALUES (?) RETURNING n",
                                     (n,)).fetchone()[0]


def rows(conn) -> list[int]:
    return [r[0] for r in conn.execute("SELECT n FROM saved ORDER BY n")]


def test_a_write_that_fails_rolls_back_only_itself_and_the_group_commits_once(table, conn):
    def fails(conn):
        conn.execute("INSERT INTO saved (n) VALUES (2)")
        raise ValueError("refused")

    groups = table.group_commit.groups
    answers = queued_at_once(table, [insert(1), fails, insert(3)])
    assert answers[0] == 1 and answers[2] == 3
    assert isinstance(answers[1], ValueError)
    assert rows(conn) == [1, 3]
    assert table.group_commit.groups == groups + 1  # one transaction, one fsync


def test_a_commit_that_fails_is_every_writes_error_and_saves_none_of_them(table, conn):
    def dangling(conn):  # a foreign key checked only at COMMIT
        conn.execute("PRAGMA defer_foreign_keys = ON")
        conn.execute("INSERT INTO saved (n, parent) VALUES (5, 999)")

    answers = queued_at_once(table, [insert(4), dangling, insert(6)])
    assert all(isinstance(a, sqlite3.IntegrityError) for a in answers), answers
    assert rows(conn) == []
    assert table.group_commit.run(insert(7)) == 7  # the writer goes on


def test_a_group_takes_at_most_its_share_and_the_rest_commit_in_the_next(table, conn):
    many = group_commit.MAX_GROUP + 6
    groups = table.group_commit.groups
    answers = queued_at_once(table, [insert(n) for n in range(1, many + 1)])
    assert answers == list(range(1, many + 1))
    assert rows(conn) == list(range(1, many + 1))
    assert table.group_commit.groups == groups + 2


def test_metrics_show_how_many_saves_each_group_held(table, client_for):
    admin = client_for("ada", admin=True)
    before = table.group_commit.stats()
    queued_at_once(table, [insert(n) for n in range(1, 6)])
    assert table.group_commit.run(insert(6)) == 6
    text = admin.get("/metrics").text
    found = dict(line.split(" ") for line in text.splitlines()
                 if line.startswith("kmood_group_commit_"))
    assert int(found["kmood_group_commit_groups_total"]) == before["groups"] + 2
    assert int(found["kmood_group_commit_writes_total"]) == before["writes"] + 6
    assert found["kmood_group_commit_largest"] == "5"
    assert found["kmood_group_commit_waiting"] == "0"
    assert "# TYPE kmood_group_commit_writes_total counter" in text


def test_saves_from_many_threads_are_each_saved_once(table, client_for):
    ann = client_for("ann")
    errors = []

    def save(i):
        for j in range(5):
            answer = ann.post("/api/entries", {"mood": 3, "note": f"{i}-{j}"})
            if answer.status != 201:
                errors.append(answer.text)

    threads = [threading.Thread(target=save, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    notes = sorted(e["note"] for e in ann.get("/api/entries?limit=100").json["entries"])
    assert notes == sorted(f"{i}-{j}" for i in range(8) for j in range(5))


def test_a_save_that_waited_past_the_busy_timeout_is_refused_and_never_saved_later(table, conn,
                                                                                  db_path):
    from kmood_lib.core import db

    lock = db.OwnedLock(200)  # a writer whose busy timeout is 200 ms
    writer = db.SharedWriter(lambda: db.connect(str(db_path), 200, guard=lock), lock)
    group = group_commit.GroupCommit(writer)
    answers = []
    with writer():  # held past the busy timeout
        waiting = threading.Thread(target=lambda: answers.append(
            _outcome(lambda: group.run(insert(8)))))
        waiting.start()
        waiting.join(5)
    assert len(answers) == 1 and isinstance(answers[0], db.WriteLockTimeout)
    assert group.pending() == 0
    assert group.run(insert(9)) == 9  # the next group has no 8 in it
    assert rows(conn) == [9]
    writer.close()


def _outcome(call):
    try:
        return call()
    except Exception as exc:
        return exc
