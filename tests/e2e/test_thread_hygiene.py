"""The server process: a request that fails half-way through a read leaves its waitress thread
able to write at once (issue #9, defect 2 needed a real thread to show)."""

from __future__ import annotations

import sqlite3

from tests.helpers import http


def test_after_a_failed_read_the_same_server_thread_keeps_writing(stack_factory):
    stack = stack_factory(KMOOD_THREADS="1")  # one thread: every request reuses its connection
    stack.create_user("alice")
    stack.start(worker=True)
    auth = stack.log_in("alice")
    assert http("POST", stack.url + "/api/entries", {"mood": 3, "activities": ["fine"]},
                auth)[0] == 201
    raw = sqlite3.connect(stack.tmp_path / "kmood.db", isolation_level=None)
    raw.execute("INSERT INTO activities (user_id, name, name_key, created_at)"
                " VALUES (1, CAST(x'ff' AS TEXT), 'zz', 0)")  # written by another tool
    assert http("GET", stack.url + "/api/activities", headers=auth)[0] == 500
    for i in range(20):
        raw.execute("INSERT INTO login_failures (scope, subject, at) VALUES ('x', ?, 0)", (str(i),))
        status, _, body = http("POST", stack.url + "/api/entries", {"mood": 4}, auth)
        assert status == 201, (i, body)
    raw.close()
    assert stack.stop() == {"server": 0, "worker": 0}
    assert "database is locked" not in stack.server_log.read_text()
