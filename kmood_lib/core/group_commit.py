"""Group commit (issue #44): the request path's small writes share transactions, so a burst
of saves pays for one commit and one fsync, not one each.

1. A write is a function of the shared write connection (`run(work)`); it is queued, and the
   caller waits for the process write lock.
2. Whoever holds the lock commits a group: every write queued at that moment (oldest first,
   at most MAX_GROUP, for at most MAX_GROUP_S of work), each in its own SAVEPOINT inside one
   BEGIN IMMEDIATE … COMMIT.
3. A write that raises rolls back its own savepoint and gets its own error; the others
   commit. A failure of the COMMIT itself (a full disk) is every write's error, and nothing
   of the group is saved.
4. `run` returns only once the COMMIT that holds its write has returned: a save is answered
   only when it is durable. A caller whose write a group took commits nothing itself; one
   that waited past the busy timeout takes its write back out of the queue (WriteLockTimeout:
   it is not saved), unless a group already holds it (then that group's outcome is its own).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TypeVar

from kmood_lib.core.db import WriteLockTimeout

log = logging.getLogger(__name__)

T = TypeVar("T")
MAX_GROUP = 64  # writes in one transaction
MAX_GROUP_S = 0.25  # no group keeps adding writes after this long (the storage rules: ~1 s)


class _Write:
    __slots__ = ("work", "done", "result", "error")

    def __init__(self, work: Callable):
        self.work = work
        self.done = False
        self.result = None
        self.error: BaseException | None = None


class GroupCommit:
    """Group-committed writes on a SharedWriter (core.db): `run(work)` -> work(conn)'s result,
    durable; `work` must not begin, commit or roll back a transaction of its own."""

    def __init__(self, writer, clock: Callable[[], float] = time.monotonic):
        self.writer = writer
        self.clock = clock
        self._queued: deque[_Write] = deque()
        self._queue_lock = threading.Lock()
        self.groups = 0  # groups committed or failed, the writes in them, the largest: /metrics
        self.writes = 0
        self.largest = 0

    def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        write = _Write(work)
        with self._queue_lock:
            self._queued.append(write)
        try:
            with self.writer() as conn:  # the write lock, for at most the busy timeout
                while not write.done:  # a group that took it may have committed it meanwhile
                    self._commit_group(conn)
        except WriteLockTimeout:
            with self._queue_lock:
                if write in self._queued:  # no group took it: it is not saved, nor will be
                    self._queued.remove(write)
                    raise
            with self.writer():  # a group took it: its outcome is known once it lets go
                pass
        if write.error is not None:
            raise write.error
        return write.result

    def pending(self) -> int:
        return len(self._queued)

    def stats(self) -> dict:
        return {"groups": self.groups, "writes": self.writes, "largest": self.largest,
                "pending": self.pending()}

    def _take(self) -> list[_Write]:
        with self._queue_lock:
            taken = [self._queued.popleft() for _ in range(min(MAX_GROUP, len(self._queued)))]
        return taken

    def _commit_group(self, conn: sqlite3.Connection) -> None:
        group = self._take()
        started = self.clock()
        try:
            conn.execute("BEGIN IMMEDIATE")  # busy past the timeout: the group's error
            for position, write in enumerate(group):
                if position and self.clock() - started > MAX_GROUP_S:
                    with self._queue_lock:  # too long already: the rest go in the next group
                        self._queued.extendleft(reversed(group[position:]))
                    group = group[:position]
                    break
                self._one(conn, write)
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            for write in group:  # nothing of the group was saved: each says so
                if write.error is None:
                    write.error = exc
            if not isinstance(exc, Exception):
                raise
        finally:
            for write in group:
                write.done = True
        self.groups += 1
        self.writes += len(group)
        self.largest = max(self.largest, len(group))

    @staticmethod
    def _one(conn: sqlite3.Connection, write: _Write) -> None:
        """One write in its own savepoint: its error rolls back only what it did. An error
        that ended the whole transaction (SQLite rolls back on a full disk, an I/O error)
        is raised on: the group cannot commit."""
        conn.execute("SAVEPOINT one_write")
        try:
            write.result = write.work(conn)
        except Exception as exc:
            write.error = exc
            if not conn.in_transaction:
                raise
            conn.execute("ROLLBACK TO one_write")
        conn.execute("RELEASE one_write")
