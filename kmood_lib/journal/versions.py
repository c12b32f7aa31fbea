"""Answers computed from a user's journal, kept in memory by its version (migration 0018): a
change to the journal raises the version in the same transaction, so a stale answer is never
found, and old versions age out of a bounded cache."""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable

from kmood_lib.core import db


def journal_version(conn: sqlite3.Connection, user_id: int) -> int:
    """The user's journal version: raised by every write to what the stats and insights read."""
    row = conn.execute("SELECT version FROM journal_versions WHERE user_id = ?",
                       (user_id,)).fetchone()
    return row[0] if row else 0


class VersionedCache:
    """Computed answers, the most recently used `size` of them, by key; counts how many it
    had to compute (`computed`) and how many it found (`found`)."""

    def __init__(self, size: int = 64) -> None:
        self.size, self._items, self._lock = size, OrderedDict(), threading.Lock()
        self.computed = self.found = 0

    def __len__(self) -> int:
        return len(self._items)

    def get_or_compute(self, key: tuple, compute: Callable[[], object]):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.found += 1
                return self._items[key]
        value = compute()  # outside the lock: one person's cold page never blocks another's
        with self._lock:
            self.computed += 1
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value


def cached(conn: sqlite3.Connection, cache: VersionedCache, user_id: int, key: tuple,
           compute: Callable[[], object]):
    """compute() from the cache under (user, journal version, *key). The version and whatever
    compute() reads come from one snapshot, so an answer is always filed under its own
    version; `key` holds everything else the answer depends on."""
    with db.transaction(conn, immediate=False):
        return cache.get_or_compute((user_id, journal_version(conn, user_id), *key), compute)
