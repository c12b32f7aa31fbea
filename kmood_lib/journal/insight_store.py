"""The insights of the standard ranges, computed by the worker after the journal changes and
kept in stored_insights (migration 0028), so that a visit shows them at once (SPEC §11).

A stored row is current while its journal version, its settings and its day are the person's
now. One that is not is still shown, marked as updating, until the worker replaces it; the
`insights` job kind (enrich.insights) sweeps for the people whose rows are not all current.
Any other range is computed on demand (insights.cached_insights).
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from kmood_lib.core import db
from kmood_lib.journal import insights
from kmood_lib.journal.insights import Thresholds
from kmood_lib.journal.versions import journal_version

# The standard ranges, shortest first, as the pages list them: key -> days (None: all time).
STANDARD = {"90": 90, "365": 365, "all": None}

_CURRENT_ROWS = (
    "SELECT count(*) FROM stored_insights s WHERE s.user_id = {user}"
    " AND s.version >= coalesce((SELECT j.version FROM journal_versions j"
    "  WHERE j.user_id = {user}), 0) AND s.settings = ? AND s.fresh_until > ?")

# People with a journal, or with stored insights (a journal emptied since), whose stored
# insights are not all current: the sweep's candidates. Parameters: the settings (JSON) and
# now (ms).
STALE_SQL = (
    "SELECT 'insights:' || u.id AS key, json_object('user_id', u.id) AS payload FROM users u"
    " WHERE (EXISTS (SELECT 1 FROM entry_days d WHERE d.user_id = u.id)"
    "  OR EXISTS (SELECT 1 FROM stored_insights s WHERE s.user_id = u.id))"
    f" AND ({_CURRENT_ROWS.format(user='u.id')}) < {len(STANDARD)}")


@dataclass(frozen=True)
class Stored:
    """A stored range's insights: what insights.analysis() answered, and whether it is current
    (else a newer one is on its way)."""

    body: dict
    computed_at: int
    current: bool


def settings_of(limits: Thresholds) -> str:
    """The method and thresholds a stored row was computed with, as it keeps them: results of
    another method or under other settings are not this build's answer."""
    return json.dumps({"method": insights.METHOD, **dataclasses.asdict(limits)},
                      sort_keys=True, separators=(",", ":"))


def standard_range(conn: sqlite3.Connection, user_id: int, key: str, today: date
                   ) -> tuple[str, str]:
    """The dates a standard range covers today."""
    days = STANDARD[key]
    return insights.full_range(
        conn, user_id, (today - timedelta(days=days - 1)).isoformat() if days else None,
        today.isoformat(), today)


def end_of_day_ms(today: date, timezone: str) -> int:
    """When `today` ends on the person's calendar (Unix ms): the standard ranges move then."""
    midnight = datetime.combine(today + timedelta(days=1), datetime.min.time(),
                                ZoneInfo(timezone))
    return int(midnight.timestamp() * 1000)


def read(conn: sqlite3.Connection, user_id: int, key: str, limits: Thresholds, today: date,
         now_ms: int) -> Stored | None:
    """The stored insights of a standard range, or None when there are none for these
    settings (or none that can be read: they are computed again, never shown half-read)."""
    with db.transaction(conn, immediate=False):
        # Read as bytes and integers or nothing: a row that is not what the worker writes is
        # computed again, never a 500 (sqlite3 raises on text that is not UTF-8).
        row = conn.execute(
            "SELECT CASE typeof(version) WHEN 'integer' THEN version END AS version,"
            " CAST(settings AS BLOB) AS settings, CAST(date_to AS BLOB) AS date_to,"
            " CASE typeof(fresh_until) WHEN 'integer' THEN fresh_until END AS fresh_until,"
            " CASE typeof(computed_at) WHEN 'integer' THEN computed_at END AS computed_at,"
            " CAST(body AS BLOB) AS body FROM stored_insights WHERE user_id = ? AND range = ?",
            (user_id, key)).fetchone()
        if row is None or row["settings"] != settings_of(limits).encode() or None in (
                row["version"], row["fresh_until"]):
            return None
        version = journal_version(conn, user_id)
    try:
        body = json.loads(row["body"])
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    current = (row["version"] >= version and row["date_to"] == today.isoformat().encode()
               and row["fresh_until"] > now_ms)
    return Stored(body, row["computed_at"], current)


def compute(conn: sqlite3.Connection, user_id: int, key: str, today: date, limits: Thresholds
            ) -> dict:
    """One standard range's insights and the journal version they were computed from, read in
    one snapshot so that the version is the data's own."""
    with db.transaction(conn, immediate=False):
        version = journal_version(conn, user_id)
        date_from, date_to = standard_range(conn, user_id, key, today)
        started = time.monotonic()
        body = insights.analysis(conn, user_id, date_from, date_to, limits)
    return {"range": key, "date_from": date_from, "date_to": date_to, "version": version,
            "took_ms": int((time.monotonic() - started) * 1000), "body": body}


def compute_standard(conn: sqlite3.Connection, user_id: int, today: date, limits: Thresholds,
                     between: Callable[[], object] = lambda: None) -> list[dict]:
    """Every standard range, each in its own snapshot (none is held across ranges), calling
    `between()` after each (the worker keeps its claim there)."""
    computed = []
    for key in STANDARD:
        computed.append(compute(conn, user_id, key, today, limits))
        if between() is False:  # the claim was lost: the rest would be computed for nothing
            break
    return computed


def save(conn: sqlite3.Connection, user_id: int, computed: list[dict], limits: Thresholds,
         fresh_until: int, now_ms: int) -> None:
    """Keep computed ranges (inside the caller's transaction), never over a row computed from a
    newer journal version."""
    conn.executemany(
        "INSERT INTO stored_insights (user_id, range, date_from, date_to, version, settings,"
        " fresh_until, computed_at, took_ms, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (user_id, range) DO UPDATE SET date_from = excluded.date_from,"
        " date_to = excluded.date_to, version = excluded.version, settings = excluded.settings,"
        " fresh_until = excluded.fresh_until, computed_at = excluded.computed_at,"
        " took_ms = excluded.took_ms, body = excluded.body"
        " WHERE excluded.version >= stored_insights.version"
        " OR excluded.settings <> stored_insights.settings",
        [(user_id, c["range"], c["date_from"], c["date_to"], c["version"], settings_of(limits),
          fresh_until, now_ms, c["took_ms"], json.dumps(c["body"], separators=(",", ":")))
         for c in computed])


def is_current(conn: sqlite3.Connection, user_id: int, limits: Thresholds, today: date,
               now_ms: int) -> bool:
    """Whether every standard range is stored and current for these settings, this moment
    and the person's day (as read() tells one: a changed time zone moves the day)."""
    return conn.execute(_CURRENT_ROWS.format(user="?") + " AND s.date_to = ?",
                        (user_id, user_id, settings_of(limits), now_ms, today.isoformat())
                        ).fetchone()[0] >= len(STANDARD)
