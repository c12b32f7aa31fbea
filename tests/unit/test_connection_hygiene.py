"""Whatever a request does and however it fails, its thread's connection is handed back clean:
statements reset, no read snapshot held, no transaction open (issue #9, defect 2)."""

from __future__ import annotations

import sqlite3

import pytest


def test_a_request_that_fails_mid_read_leaves_the_thread_able_to_write(alice_and_raw):
    alice, raw = alice_and_raw
    assert alice.post("/api/entries", {"mood": 3, "activities": ["fine"]}).status == 201
    # Another tool wrote a name that is not UTF-8: reading it fails half-way through the rows.
    raw.execute("INSERT INTO activities (user_id, name, name_key, created_at)"
                " VALUES (1, CAST(x'ff' AS TEXT), 'zz', 0)")
    failed = alice.get("/api/activities")
    assert failed.status == 500 and failed.json["error"]["code"] == "internal_error"
    for i in range(20):
        raw.execute("INSERT INTO login_failures (scope, subject, at) VALUES ('x', ?, 0)", (str(i),))
        created = alice.post("/api/entries", {"mood": 4})
        assert created.status == 201, (i, created.body)
        assert alice.get(f"/api/entries/{created.json['id']}").status == 200
    # ...and the snapshot it held is gone: a checkpoint can copy everything back.
    busy, _, _ = raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    assert busy == 0


def test_release_rolls_back_a_transaction_left_open(services):
    from kmood_lib.core.db import ConnectionPerThread

    pool = ConnectionPerThread(services.connect)
    conn = pool.get()
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO login_failures (scope, subject, at) VALUES ('x', 'y', 0)")
    pool.release()
    assert not conn.in_transaction
    other = services.connect()
    other.execute("BEGIN IMMEDIATE")  # the write lock is free again
    other.execute("ROLLBACK")
    assert other.execute("SELECT count(*) FROM login_failures").fetchone()[0] == 0
    pool.close_all()


def test_release_resets_a_statement_abandoned_half_read(services, conn):
    from kmood_lib.core.db import ConnectionPerThread

    conn.executemany("INSERT INTO login_failures (scope, subject, at) VALUES ('x', ?, 0)",
                     [(str(i),) for i in range(100)])
    pool = ConnectionPerThread(services.connect)
    reader = pool.get()
    cursor = reader.execute("SELECT * FROM login_failures")
    cursor.fetchone()  # kept alive, as a traceback would keep it
    conn.execute("INSERT INTO login_failures (scope, subject, at) VALUES ('x', 'new', 0)")
    with pytest.raises(sqlite3.OperationalError):  # the stale snapshot blocks the upgrade
        reader.execute("BEGIN IMMEDIATE")
    pool.release()
    reader.execute("BEGIN IMMEDIATE")
    reader.execute("ROLLBACK")
    pool.close_all()
