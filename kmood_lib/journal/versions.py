"""Answers computed from a user's journal, kept in memory by its version (migration 0018): a
change to the journal raises the version in the same transaction, so a stale answer is never
found, and old versions age out of a cache bounded in bytes (issue #36.8)."""

from __future__ import annotations

import sqlite3
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable

from kmood_lib.core import db
from kmood_lib.core.gate import ComputeGate

# The cache's own bookkeeping for one answer: its OrderedDict slot and link and the (answer,
# size) pair, measured with tracemalloc at about 130 bytes.
ENTRY_BYTES = 160
_CONTAINERS = (dict, list, tuple, set, frozenset)
_MISSING = object()


# Every table whose rows an entry's JSON, the stats or the insights show, with the writes that
# raise its owners' journal versions (the triggers of migrations 0018 and 0024). A new table
# shown by them needs its triggers in a new migration and its line here:
# tests/unit/test_journal_versions.py holds the database, this list and the entry's SQL to it.
VERSIONED_TABLES = {
    "entries": ("INSERT", "UPDATE", "DELETE"),
    "entry_activities": ("INSERT", "UPDATE", "DELETE"),
    "entry_metrics": ("INSERT", "UPDATE", "DELETE"),
    "songs": ("INSERT", "UPDATE", "DELETE"),
    "weather": ("INSERT", "UPDATE", "DELETE"),
    "entry_places": ("INSERT", "UPDATE", "DELETE"),
    "activities": ("UPDATE", "DELETE"),  # a new activity is on no entry yet
    "metrics": ("UPDATE", "DELETE"),  # likewise a new metric
    "places": ("UPDATE",),  # a new place is no entry's until entry_places names it
    "photos": ("INSERT", "UPDATE", "DELETE"),
    "voice_memos": ("INSERT", "UPDATE", "DELETE"),
    "mood_labels": ("INSERT", "UPDATE", "DELETE"),
    "song_lookups": ("INSERT", "UPDATE", "DELETE"),
    "covers": ("INSERT", "UPDATE", "DELETE"),
}


def journal_version(conn: sqlite3.Connection, user_id: int) -> int:
    """The user's journal version: raised by every write to what the stats and insights read."""
    row = conn.execute("SELECT version FROM journal_versions WHERE user_id = ?",
                       (user_id,)).fetchone()
    return row[0] if row else 0


def deep_size(value: object) -> int:
    """The bytes `value` holds in this process: sys.getsizeof of it and of everything its
    containers (and dataclasses' fields) hold, each object once. An encoded length would
    undercount a float (9 bytes pickled, 24 in memory) and a dict's table several times over;
    objects shared with the rest of the process (interned keys, small ints) are counted too,
    which errs toward keeping less."""
    seen, stack, total = set(), [value], 0
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, _CONTAINERS):
            stack.extend(item)
        elif hasattr(item, "__dict__") and not isinstance(item, type):
            stack.append(vars(item))
    return total


class VersionedCache:
    """Computed answers by key, the most recently used ones that fit in `max_bytes` as measured
    by `size_of` (key, answer and ENTRY_BYTES each); an answer that alone exceeds the budget is
    returned but not kept. Counts how many it had to compute (`computed`) and how many it found
    (`found`)."""

    def __init__(self, max_bytes: int, size_of: Callable[[object], int] = deep_size) -> None:
        self.max_bytes, self.size_of = max_bytes, size_of
        self._items: OrderedDict[tuple, tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = self.computed = self.found = 0

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: tuple, default: object = None):
        """The kept answer for `key` (now the most recently used), else `default`."""
        with self._lock:
            kept = self._items.get(key)
            if kept is None:
                return default
            self._items.move_to_end(key)
            self.found += 1
            return kept[0]

    def get_or_compute(self, key: tuple, compute: Callable[[], object]):
        found = self.get(key, _MISSING)
        if found is not _MISSING:
            return found
        value = compute()  # outside the lock: one person's cold page never blocks another's
        size = self.size_of(key) + self.size_of(value) + ENTRY_BYTES
        with self._lock:
            self.computed += 1
            self._keep(key, value, size)
        return value

    def _keep(self, key: tuple, value: object, size: int) -> None:
        """Under the lock: file `value`, then drop the least recently used past the budget."""
        if size > self.max_bytes:
            return
        replaced = self._items.pop(key, None)  # computed twice at once: keep the latest
        if replaced is not None:
            self.bytes -= replaced[1]
        self._items[key] = (value, size)
        self.bytes += size
        while self.bytes > self.max_bytes:
            _, (_, dropped) = self._items.popitem(last=False)
            self.bytes -= dropped

    def stats(self) -> dict:
        with self._lock:
            return {"bytes": self.bytes, "entries": len(self._items),
                    "max_bytes": self.max_bytes, "found": self.found, "computed": self.computed}


def cached(conn: sqlite3.Connection, cache: VersionedCache, user_id: int, key: tuple,
           compute: Callable[[], object], gate: ComputeGate | None = None):
    """compute() from the cache under (user, journal version, *key). The version and whatever
    compute() reads come from one snapshot, so an answer is always filed under its own
    version; `key` holds everything else the answer depends on. A kept answer is returned at
    once; computing one goes through `gate` when given (which may refuse: StillComputing,
    ServerBusy), and the cache is asked again inside it, so a request that arrives just as
    the same answer is filed does not compute it twice."""
    found = cache.get((user_id, journal_version(conn, user_id), *key), _MISSING)
    if found is not _MISSING:  # one statement, its own snapshot: the common, cheap case
        return found
    with db.transaction(conn, immediate=False):
        full = (user_id, journal_version(conn, user_id), *key)
        if gate is None:
            return cache.get_or_compute(full, compute)
        found = cache.get(full, _MISSING)
        if found is not _MISSING:
            return found
        return gate.run(user_id, full, lambda: cache.get_or_compute(full, compute))
