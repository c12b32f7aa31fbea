"""The entry's JSON shape (SPEC §6), owned here for both ways of building it.

`entry_json(row, metrics)` builds the dict in Python (pages, exports, and the reference);
`page_sql()` / `one_sql()` build the same JSON text inside SQLite, so the API answers a list
page from one statement returning one row. A property test holds the two byte for byte equal
under `dumps()` (compact separators, raw UTF-8), the API's one serialisation.

SQLite 3.40 prints a REAL with 15 significant digits (and infinity as `Inf`), and its
text-to-float conversion is not correctly rounded, so SQLite never formats a float here unless
the result is provably what Python's `repr` gives:
1. for k = 0..MAX_PLACES, n = round(x * 10**k) as an integer, |n| < 10**15;
2. n / 10**k, one correctly rounded IEEE division, equals x exactly: then x is the double
   nearest the decimal n / 10**k, which has at most 15 significant digits, so it is the only
   such decimal and the shortest one that reads back as x, which is what repr prints;
3. it is rendered from the integers n and k (repr's fixed notation: 1e-4 <= |x| < 1e16).
Any other value (more digits, tiny, huge, infinite, a REAL zero whose sign SQLite cannot show)
becomes a marker string carrying a random nonce and the value's address, which `patch()`
replaces with `json.dumps()` of the value read through the sqlite3 module.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import sqlite3
from datetime import datetime, timedelta, timezone

from kmood_lib.core.clock import ms_to_iso
from kmood_lib.journal.enrichment import WMO, describe, place_label

log = logging.getLogger(__name__)

MAX_PLACES = 8


def dumps(value) -> str:
    """The API's one JSON serialisation: compact separators, UTF-8 text unescaped."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- Python ----------------------------------------------------------------------------------

def local_iso(ms: int, offset_s: int) -> str:
    tz = timezone(timedelta(seconds=offset_s))
    return datetime.fromtimestamp(ms // 1000, tz).isoformat(timespec="seconds")


def weather(row) -> dict | None:
    """SPEC §6: null while unknown, {"unavailable": true} when the upstream had no data."""
    if row["w_unavailable"] is None:
        return None
    if row["w_unavailable"]:
        return {"unavailable": True}
    return {"temperature_c": row["w_temperature"], "code": row["w_code"],
            "description": describe(row["w_code"])}


def song_metadata(row) -> dict | None:
    """SPEC §6: null until MusicBrainz found the recording; the cover is served by k-mood."""
    if row["m_recording"] is None:
        return None
    return {"recording_mbid": row["m_recording"], "release": row["m_release_title"],
            "release_date": row["m_release_date"], "length_ms": row["m_length"],
            "cover_url": f"/covers/{row['m_release']}" if row["m_cover"] else None}


def entry_json(row, metrics: dict[str, float]) -> dict:
    """One queries.ENTRY_SELECT row -> the entry's JSON shape (SPEC §6)."""
    location = None
    if row["lat"] is not None:
        location = {"lat": row["lat"], "lon": row["lon"],
                    "place": place_label(row["p_locality"], row["p_country"], row["p_name"])}
    return {
        "id": row["id"],
        "client_id": row["client_id"],
        "occurred_at": local_iso(row["occurred_at"], row["utc_offset_s"]),
        "time_known": bool(row["time_known"]),
        "mood": row["mood"],
        "mood_label": row["mood_label"] or row["level_label"],
        "activities": json.loads(row["activities_json"]),
        "note_title": row["note_title"],
        "note": row["note"],
        "location": location,
        "weather": weather(row),
        "song": None if row["song_artist"] is None else {
            "artist": row["song_artist"], "title": row["song_title"], "album": row["song_album"],
            "source": row["song_source"], "metadata": song_metadata(row)},
        "photos": json.loads(row["photos_json"]),
        "memos": json.loads(row["memos_json"]),
        "metrics": metrics,
        "source": row["source"],
        "created_at": ms_to_iso(row["created_at"]),
        "updated_at": ms_to_iso(row["updated_at"]),
    }


# --- SQL -------------------------------------------------------------------------------------

def _real(x: str, ref: str, zero: str = "'0.0'") -> str:
    """JSON text of the REAL `x` exactly as Python prints it, or a marker naming `ref` (an SQL
    expression of the value's address) for patch() to fill in. `zero`: what a zero is."""
    cases = [f"WHEN {x} IS NULL THEN 'null' WHEN {x} = 0 THEN {zero}"]
    for k in range(MAX_PLACES + 1):
        p = 10 ** k
        n = f"CAST(round({x} * {p}) AS INTEGER)"
        tiny = f" AND abs({n}) >= {10 ** (k - 4)}" if k > 4 else ""
        if k == 0:
            text = f"{n} || '.0'"
        else:
            text = (f"CASE WHEN {n} < 0 THEN '-' ELSE '' END || (abs({n}) / {p}) || '.' ||"
                    f" rtrim(substr('{'0' * k}' || (abs({n}) % {p}), -{k}), '0')")
        cases.append(f"WHEN abs({x}) < {10 ** (15 - k)} AND {n} * 1.0 / {p} = {x}{tiny}"
                     f" THEN {text}")
    cases.append(f"ELSE json_quote(char(0) || :nonce || ':' || {ref})")
    return f"json(CASE {' '.join(cases)} END)"


def _floor_s(ms: str) -> str:
    """Whole seconds of a Unix-ms value, rounded down like Python's // (SQLite's / truncates)."""
    return f"(({ms}) - ((({ms}) % 1000) + 1000) % 1000) / 1000"


def _utc_iso(ms: str) -> str:
    return f"strftime('%Y-%m-%dT%H:%M:%SZ', {_floor_s(ms)}, 'unixepoch')"


def _local_iso(ms: str, offset: str) -> str:
    sign = f"CASE WHEN {offset} < 0 THEN '-' ELSE '+' END"
    hhmm = f"printf('%02d:%02d', abs({offset}) / 3600, abs({offset}) % 3600 / 60)"
    ss = f"CASE WHEN abs({offset}) % 60 THEN printf(':%02d', abs({offset}) % 60) ELSE '' END"
    return (f"strftime('%Y-%m-%dT%H:%M:%S', {_floor_s(ms)} + {offset}, 'unixepoch')"
            f" || {sign} || {hhmm} || {ss}")


def _describe(code: str) -> str:
    quoted = {k: "'" + v.replace("'", "''") + "'" for k, v in WMO.items()}
    whens = " ".join(f"WHEN {k} THEN {v}" for k, v in quoted.items())
    return f"CASE {code} {whens} ELSE 'Weather code ' || coalesce({code}, 'None') END"


_METRIC_OK = "typeof(em.value) IN ('integer', 'real') AND (em.value - em.value) IS NOT NULL"

_METRIC_VALUE = _real(
    "em.value", "'metric:' || em.entry_id || ':' || em.metric_id",
    zero="CASE WHEN typeof(em.value) = 'integer' THEN '0.0' ELSE json_quote(char(0) || :nonce"
         " || ':metric:' || em.entry_id || ':' || em.metric_id) END")

# An entry's photos in order, as its JSON lists them (migration 0019).
PHOTOS_JSON = (
    "(SELECT json_group_array(json_object('id', id, 'url', '/photos/' || id, 'thumb_url',"
    " '/photos/' || id || '/thumb', 'width', width, 'height', height)) FROM (SELECT id, width,"
    " height FROM photos WHERE entry_id = e.id ORDER BY position, id))")

# An entry's voice memos in order (migration 0023).
MEMOS_JSON = (
    "(SELECT json_group_array(json_object('id', id, 'url', '/memos/' || id, 'content_type',"
    " content_type)) FROM (SELECT id, content_type FROM voice_memos WHERE entry_id = e.id"
    " ORDER BY position, id))")

# Same keys, same order as entry_json(); the joins are those of queries.ENTRY_SELECT.
_FIELDS = [
    ("id", "e.id"),
    ("client_id", "e.client_id"),
    ("occurred_at", _local_iso("e.occurred_at", "e.utc_offset_s")),
    ("time_known", "json(CASE WHEN e.time_known THEN 'true' ELSE 'false' END)"),
    ("mood", "e.mood"),
    ("mood_label", "coalesce(nullif(e.mood_label, ''), ml.label)"),
    ("activities", "json((SELECT json_group_array(name) FROM (SELECT a.name FROM"
                   " entry_activities ea JOIN activities a ON a.id = ea.activity_id"
                   " WHERE ea.entry_id = e.id ORDER BY a.name_key)))"),
    ("note_title", "e.note_title"),
    ("note", "e.note"),
    ("location", "CASE WHEN e.lat IS NULL THEN NULL ELSE json_object("
                 f"'lat', {_real('e.lat', repr('lat:') + ' || e.id')},"
                 f" 'lon', {_real('e.lon', repr('lon:') + ' || e.id')},"
                 " 'place', CASE WHEN coalesce(pl.locality, '') != '' THEN"
                 " CASE WHEN coalesce(pl.country_code, '') != ''"
                 " THEN pl.locality || ', ' || pl.country_code ELSE pl.locality END"
                 " ELSE pl.display_name END) END"),
    ("weather", "CASE WHEN w.unavailable IS NULL THEN NULL"
                " WHEN w.unavailable THEN json('{\"unavailable\":true}')"
                " ELSE json_object('temperature_c',"
                f" {_real('w.temperature_c', repr('temperature:') + ' || e.id')},"
                f" 'code', w.code, 'description', {_describe('w.code')}) END"),
    ("song", "CASE WHEN s.artist IS NULL THEN NULL ELSE json_object('artist', s.artist,"
             " 'title', s.title, 'album', s.album, 'source', s.source, 'metadata',"
             " CASE WHEN sl.recording_mbid IS NULL THEN NULL ELSE json_object("
             "'recording_mbid', sl.recording_mbid, 'release', sl.release_title,"
             " 'release_date', sl.release_date, 'length_ms', sl.length_ms, 'cover_url',"
             " CASE WHEN c.content_type IS NOT NULL THEN '/covers/' || sl.release_mbid END)"
             " END) END"),
    ("photos", f"json({PHOTOS_JSON})"),
    ("memos", f"json({MEMOS_JSON})"),
    ("metrics", "json((SELECT json_group_object(name, json(value)) FROM (SELECT m.name,"
                f" {_METRIC_VALUE} AS value FROM entry_metrics em JOIN metrics m"
                f" ON m.id = em.metric_id WHERE em.entry_id = e.id AND {_METRIC_OK}"
                " ORDER BY m.name_key)))"),
    ("source", "e.source"),
    ("created_at", _utc_iso("e.created_at")),
    ("updated_at", _utc_iso("e.updated_at")),
]
KEYS = [key for key, _ in _FIELDS]

# The tables an entry's JSON draws on; queries.ENTRY_SELECT joins the same.
JOINS = (
    " LEFT JOIN mood_labels ml ON ml.user_id = e.user_id AND ml.level = e.mood"
    " LEFT JOIN songs s ON s.entry_id = e.id"
    " LEFT JOIN weather w ON w.entry_id = e.id"
    " LEFT JOIN entry_places ep ON ep.entry_id = e.id"
    " LEFT JOIN places pl ON pl.cell = ep.cell AND pl.unavailable = 0"
    " LEFT JOIN song_lookups sl ON sl.lookup_key = s.lookup_key AND sl.found = 1"
    " LEFT JOIN covers c ON c.release_mbid = sl.release_mbid"
)
ENTRY_OBJECT = "json_object(" + ", ".join(f"'{k}', {v}" for k, v in _FIELDS) + ")"
_UNREADABLE = ("EXISTS (SELECT 1 FROM entry_metrics em WHERE em.entry_id = e.id"
               f" AND NOT ({_METRIC_OK}))")


def page_sql(where: str) -> str:
    """One statement, one row: the page's entries as a JSON array (newest first), whether
    there are more, the last entry's (occurred_at, id) for the cursor, and the ids of entries
    with a metric value that had to be left out. `where` is AND-ed after e.user_id = :user;
    parameters are named (:user, :limit, :nonce and the filter's own)."""
    return (
        "WITH page AS MATERIALIZED (SELECT e.id, e.occurred_at FROM entries e WHERE"
        " e.user_id = :user"
        f"{where} ORDER BY e.occurred_at DESC, e.id DESC LIMIT :limit + 1),"
        " shown AS MATERIALIZED (SELECT id, occurred_at FROM page ORDER BY occurred_at DESC,"
        " id DESC LIMIT :limit)"
        # The aggregate takes the rows in the order of the outer loop: `shown` as materialised
        # (newest first), held outermost by CROSS JOIN; the joins after it are lookups.
        f" SELECT (SELECT json_group_array({ENTRY_OBJECT})"
        f" FROM shown p CROSS JOIN entries e ON e.id = p.id{JOINS})"
        " AS entries,"
        " (SELECT count(*) FROM page) > :limit AS more,"
        # The last entry shown: the oldest, and of those the lowest id (an ORDER BY over the
        # materialised page measured five times slower than these two aggregates).
        " (SELECT min(occurred_at) FROM shown) AS last_at,"
        " (SELECT min(id) FROM shown WHERE occurred_at = (SELECT min(occurred_at) FROM shown))"
        " AS last_id,"
        " (SELECT json_group_array(e.id) FROM shown p JOIN entries e ON e.id = p.id"
        f" WHERE {_UNREADABLE}) AS unreadable"
    )


ONE_SQL = (f"SELECT {ENTRY_OBJECT} AS entry, {_UNREADABLE} AS unreadable FROM entries e"
           f"{JOINS} WHERE e.id = :id AND e.user_id = :user")


def new_nonce() -> str:
    return secrets.token_hex(8)


def patch(conn: sqlite3.Connection, text: str, nonce: str) -> str:
    """Replace each marker with json.dumps() of the value it names, read through sqlite3."""
    if "\\u0000" + nonce not in text:
        return text
    marker = re.compile(r'"\\u0000' + nonce + r':(lat|lon|temperature|metric):(\d+)(?::(\d+))?"')
    values: dict[str, str] = {}
    for match in marker.finditer(text):
        kind, entry_id, metric_id = match.group(1), int(match.group(2)), match.group(3)
        if kind in ("lat", "lon"):
            value = conn.execute(f"SELECT {kind} FROM entries WHERE id = ?",
                                 (entry_id,)).fetchone()[0]
        elif kind == "temperature":
            value = conn.execute("SELECT temperature_c FROM weather WHERE entry_id = ?",
                                 (entry_id,)).fetchone()[0]
        else:
            value = float(conn.execute("SELECT value FROM entry_metrics WHERE entry_id = ? AND"
                                       " metric_id = ?", (entry_id, int(metric_id))
                                       ).fetchone()[0])
        values[match.group(0)] = json.dumps(value)
    return marker.sub(lambda m: values[m.group(0)], text)
