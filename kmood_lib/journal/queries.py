"""Reading mood entries: one by id, filtered and cursor-paged lists, search, and their JSON."""

from __future__ import annotations

import base64
import json
import logging
import math
import re
import sqlite3
from dataclasses import dataclass

from kmood_lib.core.errors import MalformedInput, NotFound, ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import name_key
from kmood_lib.core.validation import parse_int_param, parse_local_date
from kmood_lib.journal import entry_json as entry_json_sql
from kmood_lib.journal.entry_json import entry_json

log = logging.getLogger(__name__)

DEFAULT_LIMIT, MAX_LIMIT = 50, 500


# One row per entry carrying its activities as JSON and its song columns. Metric values come
# from a second query (_METRICS_SELECT) as plain columns: SQLite's JSON functions print a REAL
# with 15 significant digits (0.30000000000000004 would come back as 0.3) and infinity as
# `Inf`, so numbers never pass through them.
ENTRY_SELECT = (
    "SELECT e.*, ml.label AS level_label,"
    " (SELECT json_group_array(name) FROM (SELECT a.name FROM entry_activities ea"
    "   JOIN activities a ON a.id = ea.activity_id WHERE ea.entry_id = e.id"
    "   ORDER BY a.name_key)) AS activities_json, " + entry_json_sql.PHOTOS_JSON
    + " AS photos_json, " + entry_json_sql.MEMOS_JSON + " AS memos_json,"
    " s.artist AS song_artist, s.title AS song_title, s.album AS song_album,"
    " s.source AS song_source, w.temperature_c AS w_temperature, w.code AS w_code,"
    " w.unavailable AS w_unavailable, pl.locality AS p_locality,"
    " pl.country_code AS p_country, pl.display_name AS p_name,"
    " sl.recording_mbid AS m_recording, sl.release_mbid AS m_release,"
    " sl.release_title AS m_release_title, sl.release_date AS m_release_date,"
    " sl.length_ms AS m_length, c.content_type IS NOT NULL AS m_cover"
    " FROM entries e" + entry_json_sql.JOINS
)


# Values that are not numbers come back as NULL with their SQLite type, to be skipped with a
# warning (reading a TEXT that is not UTF-8 would raise).
_METRICS_SELECT = (
    "SELECT em.entry_id, m.name, typeof(em.value) AS kind,"
    " CASE WHEN typeof(em.value) IN ('integer', 'real') THEN em.value END AS value"
    " FROM entry_metrics em JOIN metrics m ON m.id = em.metric_id"
    " WHERE em.entry_id IN (SELECT value FROM json_each(?)) ORDER BY em.entry_id, m.name_key"
)


def get_entry(conn: sqlite3.Connection, user_id: int, entry_id: int) -> dict:
    row = conn.execute(ENTRY_SELECT + " WHERE e.id = ? AND e.user_id = ?",
                       (entry_id, user_id)).fetchone()
    if row is None:
        raise NotFound("entry")
    return entries_json(conn, [row])[0]


def entries_json(conn: sqlite3.Connection, rows: list) -> list[dict]:
    """ENTRY_SELECT rows -> the entries' JSON shape, with their metric values."""
    metrics: dict[int, dict[str, float]] = {row["id"]: {} for row in rows}
    if rows:
        for m in conn.execute(_METRICS_SELECT, (json.dumps(list(metrics)),)).fetchall():
            value = m["value"]
            if isinstance(value, (int, float)) and math.isfinite(value):
                metrics[m["entry_id"]][m["name"]] = float(value)
            else:
                log.warning("entry %s: skipping unreadable value of metric %r (stored as %s)",
                            m["entry_id"], m["name"], m["kind"])
    return [entry_json(row, metrics[row["id"]]) for row in rows]


@dataclass
class EntryFilter:
    """The checked query parameters of GET /api/entries (and the stats routes)."""

    date_from: str | None = None
    date_to: str | None = None
    moods: list[int] | None = None
    activities: list[str] | None = None
    query: str | None = None  # the FTS5 form of `q` (fts_query)
    query_text: str | None = None  # `q` as typed: also matched inside activity names

    def where(self, conn: sqlite3.Connection, user_id: int) -> tuple[str, list]:
        """SQL conditions over alias `e` (always AND-ed after `e.user_id = ?`).

        Activities are resolved to ids first (one indexed lookup): the condition then uses the
        (activity_id, entry_id) index, and an activity the user does not have makes the whole
        condition a constant false, so the query ends before it reads a single entry."""
        sql, params = [], []
        if self.activities:
            keys = sorted({name_key(name) for name in self.activities})
            found = [row[0] for row in conn.execute(
                "SELECT id FROM activities WHERE user_id = ? AND name_key IN"
                " (SELECT value FROM json_each(?))", (user_id, json.dumps(keys))).fetchall()]
            if len(found) < len(keys):
                return " AND 0", []
            for activity_id in found:
                sql.append("e.id IN (SELECT entry_id FROM entry_activities WHERE activity_id = ?)")
                params.append(activity_id)
        if self.date_from:
            sql.append("e.local_date >= ?")
            params.append(self.date_from)
        if self.date_to:
            sql.append("e.local_date <= ?")
            params.append(self.date_to)
        if self.moods:
            sql.append("e.mood IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(self.moods))
        typed = name_key((self.query_text or "").strip())
        if self.query and typed:  # the words in a note or title, or the text in an activity
            sql.append("(e.id IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?)"
                       " OR e.id IN (SELECT ea.entry_id FROM activities a JOIN entry_activities"
                       " ea ON ea.activity_id = a.id WHERE a.user_id = ? AND a.name_key LIKE ?"
                       " ESCAPE '\\'))")
            like = re.sub(r"([\\%_])", r"\\\1", typed)
            params += [self.query, user_id, f"%{like}%"]
        elif self.query:
            sql.append("e.id IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?)")
            params.append(self.query)
        return "".join(f" AND {s}" for s in sql), params


def fts_query(text: str) -> str | None:
    """Free text -> an FTS5 query that cannot be a syntax error: each term quoted, as a prefix."""
    # Control characters separate terms like spaces do (a NUL would end FTS5's query string).
    terms = [t for t in re.split(r"[\s\x00-\x1f\x7f-\x9f]+", text) if t]
    quoted = ['"' + t.replace('"', '""') + '"*' for t in terms[:32]]
    return " ".join(quoted) or None


def parse_filter(params) -> EntryFilter:
    """Query parameters -> EntryFilter; ValidationError names the bad parameter."""
    out = EntryFilter()
    if params.get("from"):
        out.date_from = parse_local_date(params["from"], "from")
    if params.get("to"):
        out.date_to = parse_local_date(params["to"], "to")
    if out.date_from and out.date_to and out.date_from > out.date_to:
        raise ValidationError({"from": Phrase("must not be after to")})
    if params.get("mood"):
        parts = params["mood"].split(",")
        if not all(re.fullmatch(r"[1-5]", p.strip()) for p in parts):
            raise ValidationError({"mood": Phrase(
                "must be levels 1-5 separated by commas, e.g. 4,5")})
        out.moods = sorted({int(p) for p in parts})
    if params.get("activity"):
        names = [n.strip() for n in params["activity"].split(",") if n.strip()]
        if len(names) > 20:
            raise ValidationError({"activity": Phrase("at most {n} activities", n=20)})
        out.activities = names
    if params.get("q"):
        if len(params["q"]) > 500:
            raise ValidationError({"q": Phrase("at most {n} characters", n=500)})
        out.query = fts_query(params["q"])
        out.query_text = params["q"] if out.query else None
    return out


# A cursor is (occurred_at, id) of the last entry on the page; occurred_at is counted from
# 1900-01-01 UTC (the earliest an entry may be) so both numbers are plain non-negative decimals.
_CURSOR_EPOCH_MS = -2208988800000
_CURSOR = re.compile(r"(0|[1-9][0-9]{0,17}):([1-9][0-9]{0,17})")


def encode_cursor(occurred_at: int, entry_id: int) -> str:
    raw = f"{occurred_at - _CURSOR_EPOCH_MS}:{entry_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[int, int]:
    """The cursor's (occurred_at, id); anything this server could not have handed out is a
    MalformedInput (400 at the API)."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (ValueError, UnicodeError):
        raw = ""
    match = _CURSOR.fullmatch(raw)
    if not match or len(cursor) > 64:
        raise MalformedInput({"cursor": Phrase("not a cursor this server handed out")})
    return int(match.group(1)) + _CURSOR_EPOCH_MS, int(match.group(2))


def parse_limit(raw: str | None) -> int:
    return parse_int_param(raw, "limit", 1, MAX_LIMIT, default=DEFAULT_LIMIT)


def list_entries(conn: sqlite3.Connection, user_id: int, flt: EntryFilter, limit: int,
                 cursor: str | None) -> tuple[list[dict], str | None]:
    """Newest first, keyset-paginated on (occurred_at, id): no repeats or skips across pages."""
    where, params = flt.where(conn, user_id)
    if cursor:
        where += " AND (e.occurred_at, e.id) < (?, ?)"
        params += list(decode_cursor(cursor))
    rows = conn.execute(
        ENTRY_SELECT + " WHERE e.user_id = ?" + where +
        " ORDER BY e.occurred_at DESC, e.id DESC LIMIT ?",
        (user_id, *params, limit + 1)).fetchall()
    next_cursor = None
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = encode_cursor(rows[-1]["occurred_at"], rows[-1]["id"])
    return entries_json(conn, rows), next_cursor


def _named(sql: str, params: list, prefix: str = "f") -> tuple[str, dict]:
    """Positional `?` placeholders -> named ones, so they mix with page_sql()'s own names."""
    names = iter(range(len(params)))
    named = re.sub(r"\?", lambda m: f":{prefix}{next(names)}", sql)
    return named, {f"{prefix}{i}": value for i, value in enumerate(params)}


def _warn_unreadable(conn: sqlite3.Connection, entry_ids: list[int]) -> None:
    """The SQL path leaves unreadable metric values out as the Python path does; say so the
    same way (the Python path logs each one)."""
    if entry_ids:
        for m in conn.execute(_METRICS_SELECT, (json.dumps(entry_ids),)).fetchall():
            if not (isinstance(m["value"], (int, float)) and math.isfinite(m["value"])):
                log.warning("entry %s: skipping unreadable value of metric %r (stored as %s)",
                            m["entry_id"], m["name"], m["kind"])


def list_entries_json(conn: sqlite3.Connection, user_id: int, flt: EntryFilter, limit: int,
                      cursor: str | None) -> str:
    """GET /api/entries' body, built in SQLite: byte for byte what
    `entry_json.dumps({"entries": list_entries(...)[0], "next_cursor": ...})` gives."""
    where, params = flt.where(conn, user_id)
    if cursor:
        where += " AND (e.occurred_at, e.id) < (?, ?)"
        params += list(decode_cursor(cursor))
    where, named = _named(where, params)
    nonce = entry_json_sql.new_nonce()
    row = conn.execute(entry_json_sql.page_sql(where),
                       {**named, "user": user_id, "limit": limit, "nonce": nonce}).fetchone()
    _warn_unreadable(conn, json.loads(row["unreadable"]))
    next_cursor = encode_cursor(row["last_at"], row["last_id"]) if row["more"] else None
    return ('{"entries":' + entry_json_sql.patch(conn, row["entries"], nonce)
            + ',"next_cursor":' + entry_json_sql.dumps(next_cursor) + "}")


def get_entry_json(conn: sqlite3.Connection, user_id: int, entry_id: int) -> str:
    """One entry's JSON text, built in SQLite (equal to dumps(get_entry(...)))."""
    nonce = entry_json_sql.new_nonce()
    row = conn.execute(entry_json_sql.ONE_SQL,
                       {"id": entry_id, "user": user_id, "nonce": nonce}).fetchone()
    if row is None:
        raise NotFound("entry")
    if row["unreadable"]:
        _warn_unreadable(conn, [entry_id])
    return entry_json_sql.patch(conn, row["entry"], nonce)


# --- days and months with entries (entry_days holds exactly the logged local days) --------

def months_logged(conn: sqlite3.Connection, user_id: int) -> list[tuple[str, int]]:
    """[('YYYY-MM', entries)] of every month with entries, newest first, on the entries' own
    local days as History filters them: one pass over the person's rows of entry_days."""
    rows = conn.execute(
        "SELECT substr(local_date, 1, 7) AS month, sum(n) AS entries FROM entry_days"
        " WHERE user_id = ? GROUP BY month ORDER BY month DESC", (user_id,)).fetchall()
    return [(row["month"], row["entries"]) for row in rows]


def days_beside(conn: sqlite3.Connection, user_id: int, day: str) -> tuple[str | None, str | None]:
    """The logged local days just before and just after `day` (YYYY-MM-DD), None where there is
    none: each one probe of entry_days' primary key."""
    before = conn.execute("SELECT max(local_date) FROM entry_days WHERE user_id = ?"
                          " AND local_date < ?", (user_id, day)).fetchone()[0]
    after = conn.execute("SELECT min(local_date) FROM entry_days WHERE user_id = ?"
                         " AND local_date > ?", (user_id, day)).fetchone()[0]
    return before, after


def count_on(conn: sqlite3.Connection, user_id: int, day: str) -> int:
    """How many entries the person has on this local day (YYYY-MM-DD)."""
    row = conn.execute("SELECT n FROM entry_days WHERE user_id = ? AND local_date = ?",
                       (user_id, day)).fetchone()
    return row["n"] if row else 0


# The entries next to one in a list's order (newest first), with the list's conditions.
_OLDER = (" AND (e.occurred_at, e.id) < (?, ?) ORDER BY e.occurred_at DESC, e.id DESC LIMIT 1")
_NEWER = (" AND (e.occurred_at, e.id) > (?, ?) ORDER BY e.occurred_at ASC, e.id ASC LIMIT 1")


def entry_beside(conn: sqlite3.Connection, user_id: int, flt: EntryFilter, entry_id: int
                 ) -> int | None:
    """The entry a list filtered by `flt` shows next to this one (the next older, else the
    next newer), None when there is none: where the list goes back to once it is deleted."""
    found = conn.execute("SELECT occurred_at FROM entries WHERE id = ? AND user_id = ?",
                         (entry_id, user_id)).fetchone()
    if found is None:
        return None
    where, params = flt.where(conn, user_id)
    for side in (_OLDER, _NEWER):
        row = conn.execute("SELECT e.id FROM entries e WHERE e.user_id = ?" + where + side,
                           (user_id, *params, found["occurred_at"], entry_id)).fetchone()
        if row is not None:
            return row["id"]
    return None
