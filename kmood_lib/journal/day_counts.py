"""Bulk upkeep of the per-day stats tables (entry_days, activity_days; migration 0015) and the
journal versions the insights are cached by (migration 0018).

Triggers keep those tables in step with every write. A trigger on a table costs each inserted
row a trigger frame and a statement journal entry (10 years of Daylio rows: +0.3 s), so an
import counts its new entries in one statement per table instead, as it indexes their notes:
for its batch it drops the two insert triggers and re-creates them from their own stored SQL,
inside the import's transaction, so no other connection ever sees them missing. Updates and
deletes are always counted by their triggers.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator

INSERT_TRIGGERS = ("entry_days_insert", "activity_days_link_insert",
                   "journal_version_entries_insert", "journal_version_entry_activities_insert",
                   "journal_version_entry_metrics_insert", "journal_version_songs_insert")

# One local day's row of entry_days, grouped from its entries (as migration 0015 defines it):
# `day` is the date's proleptic Gregorian ordinal (julianday() of a date is its midnight, x.5;
# 0001-01-01 is 1721425.5).
GROUPED_DAY_COLUMNS = (
    "local_date, CAST(julianday(local_date) - 1721424.5 AS INTEGER) AS day, count(*) AS n,"
    " sum(mood) AS mood_sum, sum(mood = 1) AS n1, sum(mood = 2) AS n2, sum(mood = 3) AS n3,"
    " sum(mood = 4) AS n4, sum(mood = 5) AS n5")
_COUNT_DAYS = (
    "INSERT INTO entry_days (user_id, local_date, day, n, mood_sum, n1, n2, n3, n4, n5)"
    " SELECT user_id, " + GROUPED_DAY_COLUMNS +
    " FROM entries WHERE id IN (SELECT value FROM json_each(?)) GROUP BY user_id, local_date"
    " ON CONFLICT (user_id, local_date) DO UPDATE SET n = n + excluded.n,"
    " mood_sum = mood_sum + excluded.mood_sum, n1 = n1 + excluded.n1, n2 = n2 + excluded.n2,"
    " n3 = n3 + excluded.n3, n4 = n4 + excluded.n4, n5 = n5 + excluded.n5")
_COUNT_ACTIVITY_DAYS = (
    "INSERT INTO activity_days (user_id, activity_id, local_date, n, mood_sum)"
    " SELECT e.user_id, ea.activity_id, e.local_date, count(*), sum(e.mood)"
    " FROM entry_activities ea JOIN entries e ON e.id = ea.entry_id"
    " WHERE ea.entry_id IN (SELECT value FROM json_each(?))"
    " GROUP BY e.user_id, ea.activity_id, e.local_date"
    " ON CONFLICT (user_id, activity_id, local_date) DO UPDATE SET n = n + excluded.n,"
    " mood_sum = mood_sum + excluded.mood_sum")


@contextlib.contextmanager
def insert_triggers_off(conn: sqlite3.Connection) -> Iterator[None]:
    """Inside the caller's transaction: the insert triggers dropped for the block, re-created
    after it (also when it raised and the transaction is still open)."""
    if not conn.in_transaction:
        raise RuntimeError("the per-day insert triggers may only be lifted inside a transaction")
    saved = conn.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger'"
                         " AND name IN (SELECT value FROM json_each(?)) ORDER BY name",
                         (json.dumps(INSERT_TRIGGERS),)).fetchall()
    if len(saved) != len(INSERT_TRIGGERS):
        raise RuntimeError(f"the database lacks the triggers {INSERT_TRIGGERS}")
    for name, _ in saved:
        conn.execute(f'DROP TRIGGER "{name}"')  # one of INSERT_TRIGGERS: a constant
    try:
        yield
    finally:
        if conn.in_transaction:
            for _, sql in saved:
                conn.execute(sql)


_RAISE_VERSIONS = (
    "INSERT INTO journal_versions (user_id, version)"
    " SELECT DISTINCT user_id, 1 FROM entries WHERE id IN (SELECT value FROM json_each(?))"
    " ON CONFLICT (user_id) DO UPDATE SET version = version + 1")


def count_new_entries(conn: sqlite3.Connection, entry_ids: list[int]) -> None:
    """Add these new entries, and their activity links, to the per-day tables, and raise
    their users' journal versions once (migration 0018)."""
    encoded = json.dumps(entry_ids)
    conn.execute(_COUNT_DAYS, (encoded,))
    conn.execute(_COUNT_ACTIVITY_DAYS, (encoded,))
    conn.execute(_RAISE_VERSIONS, (encoded,))
