"""The baselines: a bare Bottle endpoint on waitress that touches no database (`/bare`), and the
physical floor of a durable create (`/durable`): parse the same JSON body and insert one row in
one transaction, on a connection opened with k-mood's own pragmas (WAL, `synchronous` as
KMOOD_SYNCHRONOUS says, busy timeout, the same wal_autocheckpoint), one writer at a time as
k-mood's shared writer does.

    bare_app.py PORT THREADS [DATABASE]
"""

import json
import os
import sys
from pathlib import Path

import bottle
import waitress

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from kmood_lib.core.config import Config  # noqa: E402
from kmood_lib.core.db import OwnedLock, SharedWriter, connect  # noqa: E402
from kmood_lib.core.group_commit import GroupCommit  # noqa: E402

app = bottle.Bottle()


@app.route("/bare", method=["GET", "POST"])
def bare():
    bottle.response.content_type = "application/json"
    return '{"ok": true}'


class Floor:
    """One shared write connection behind a lock, like k-mood's writer: the least a durable
    insert of one request's body can cost."""

    def __init__(self, path: str):
        config = Config.from_env(os.environ)
        self.lock = OwnedLock()
        self.conn = connect(path, config.busy_timeout_ms, guard=self.lock,
                            autocheckpoint_pages=config.wal_autocheckpoint_pages,
                            journal_size_limit_bytes=config.wal_size_limit_bytes,
                            synchronous=config.synchronous)
        with self.lock:
            self.conn.execute("CREATE TABLE IF NOT EXISTS floor (id INTEGER PRIMARY KEY,"
                              " mood INTEGER NOT NULL, note TEXT, body TEXT NOT NULL)")

    def insert(self, body: dict) -> int:
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                row = self.conn.execute(
                    "INSERT INTO floor (mood, note, body) VALUES (?, ?, ?) RETURNING id",
                    (body["mood"], body.get("note"), json.dumps(body))).fetchall()[0]
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        return row[0]


class GroupFloor:
    """The floor committing in groups, with k-mood's own GroupCommit: what group commit alone
    buys a plain insert."""

    def __init__(self, path: str):
        config = Config.from_env(os.environ)
        lock = OwnedLock(config.busy_timeout_ms)
        writer = SharedWriter(lambda: connect(
            path, config.busy_timeout_ms, guard=lock,
            autocheckpoint_pages=config.wal_autocheckpoint_pages,
            journal_size_limit_bytes=config.wal_size_limit_bytes,
            synchronous=config.synchronous), lock)
        self.group = GroupCommit(writer)
        with writer() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS floor (id INTEGER PRIMARY KEY,"
                         " mood INTEGER NOT NULL, note TEXT, body TEXT NOT NULL)")

    def insert(self, body: dict) -> int:
        return self.group.run(lambda conn: conn.execute(
            "INSERT INTO floor (mood, note, body) VALUES (?, ?, ?) RETURNING id",
            (body["mood"], body.get("note"), json.dumps(body))).fetchall()[0][0])


FLOOR: list = []


@app.route("/durable", method="POST")
def durable():
    return _insert(FLOOR[0])


@app.route("/durable-group", method="POST")
def durable_group():
    return _insert(FLOOR[1])


def _insert(floor) -> str:
    body = json.loads(bottle.request.body.read())
    bottle.response.status = 201
    bottle.response.content_type = "application/json"
    return json.dumps({"id": floor.insert(body)})


if __name__ == "__main__":
    if len(sys.argv) > 3:
        FLOOR.append(Floor(sys.argv[3]))
        FLOOR.append(GroupFloor(sys.argv[3] + "-group"))
    waitress.serve(app, host="127.0.0.1", port=int(sys.argv[1]), threads=int(sys.argv[2]),
                   _quiet=True)
