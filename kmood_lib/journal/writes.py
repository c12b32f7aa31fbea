"""Writing mood entries: create (one small transaction), import in batches, update, delete
(remembering a deleted entry's client_id, so that a replay cannot bring it back)."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from kmood_lib.core.db import transaction
from kmood_lib.core.errors import NotFound
from kmood_lib.core.text import name_key
from kmood_lib.journal import day_counts, vocab
from kmood_lib.journal.entry_input import EntryInput
from kmood_lib.journal.entry_json import entry_json

log = logging.getLogger(__name__)

# Called last inside a save's transaction with the entry's id (the prompt enqueue).
BeforeCommit = Callable[[sqlite3.Connection, int], None]

# A song's lookup key, computed by SQL in one place for the insert and the migration.
LOOKUP_KEY_SQL = "json_array(kmood_name_key(?), kmood_name_key(?))"


SOURCES = ("web", "api", "daylio")


@dataclass(frozen=True)
class Saved:
    entry_id: int | None  # None when `deleted`
    created: bool  # False when a client_id replay found the existing entry
    entry: dict | None = None  # a created entry's JSON shape, from its input and RETURNING
    deleted: bool = False  # a client_id replay of an entry deleted since: nothing was saved


DELETED = Saved(None, False, deleted=True)


_REPLAYED = (
    "SELECT (SELECT id FROM entries WHERE user_id = ?1 AND client_id = ?2) AS id,"
    " EXISTS (SELECT 1 FROM deleted_client_ids WHERE user_id = ?1 AND client_id = ?2)"
    " AS deleted")


def replayed(conn: sqlite3.Connection, user_id: int, client_id: str) -> Saved | None:
    """What a client_id sent again finds: the entry it saved, DELETED when that entry was
    deleted since (remembered for KMOOD_DELETED_CLIENT_IDS_KEEP_S), or None when it is new."""
    row = conn.execute(_REPLAYED, (user_id, client_id)).fetchone()
    if row["id"] is not None:
        return Saved(row["id"], False)
    return DELETED if row["deleted"] else None


def create_entry(conn: sqlite3.Connection, user_id: int, data: EntryInput, source: str,
                 now_ms: int, before_commit: BeforeCommit | None = None) -> Saved:
    """Insert the entry with its activities, metrics and song in one transaction, with
    `before_commit(conn, entry_id)` last inside it (the prompt enqueue: one commit in all).

    A `client_id` seen before for this user returns the existing entry instead (offline retry),
    or DELETED, saving nothing, when that entry was deleted since.
    """
    with transaction(conn):
        return add_entry(conn, user_id, data, source, now_ms, before_commit)


def add_entry(conn: sqlite3.Connection, user_id: int, data: EntryInput, source: str,
              now_ms: int, before_commit: BeforeCommit | None = None) -> Saved:
    """create_entry inside the caller's transaction (a group commit's savepoint)."""
    if data.client_id is not None:
        found = replayed(conn, user_id, data.client_id)
        if found is not None:
            return found
    entry_id, entry = insert_entry(conn, user_id, data, source, now_ms)
    if before_commit is not None:
        before_commit(conn, entry_id)
    return Saved(entry_id, True, entry)


_INSERT = (
    "INSERT INTO entries (user_id, client_id, occurred_at, utc_offset_s, local_date,"
    " local_minute, time_known, mood, mood_label, note_title, note, lat, lon, source,"
    " import_key, created_at, updated_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


# The full-text index of notes and titles, kept here as entries are inserted (migration 0011
# explains why not by a trigger); deletes and updates keep theirs.
_INDEX_ONE = "INSERT INTO entries_fts (rowid, note_title, note) VALUES (?, ?, ?)"


_INDEX_MANY = ("INSERT INTO entries_fts (rowid, note_title, note) SELECT id, note_title, note"
               " FROM entries WHERE id IN (SELECT value FROM json_each(?))")


def _entry_row(user_id: int, data: EntryInput, source: str, now_ms: int) -> tuple:
    moment = data.moment
    return (user_id, data.client_id, moment.occurred_at_ms, moment.offset_s, moment.local_date,
            moment.local_minute, int(data.time_known), data.mood, data.mood_label,
            data.note_title, data.note, *(data.location or (None, None)), source,
            data.import_key, now_ms, now_ms)


# RETURNING hands back what a read after the save would find (the level's label, the names
# the activities and metrics are stored under, a song's known release), so a created entry is
# answered without reading it again.
_ENTRY_RETURNING = (
    " RETURNING *, (SELECT label FROM mood_labels ml WHERE ml.user_id = entries.user_id"
    " AND ml.level = entries.mood) AS level_label")


_LINK_ACTIVITIES = (
    "INSERT INTO entry_activities (entry_id, activity_id)"
    " SELECT ?, id FROM activities WHERE user_id = ? AND name_key IN"
    " (SELECT json_extract(value, '$[1]') FROM json_each(?))"
    " RETURNING (SELECT name_key FROM activities a WHERE a.id = activity_id) AS name_key,"
    " (SELECT name FROM activities a WHERE a.id = activity_id) AS name")


_ADD_METRIC = (
    "INSERT INTO entry_metrics (entry_id, metric_id, value) VALUES (?, ?, ?) RETURNING value,"
    " (SELECT name FROM metrics m WHERE m.id = metric_id) AS name,"
    " (SELECT name_key FROM metrics m WHERE m.id = metric_id) AS name_key")


_ADD_SONG = (
    "INSERT INTO songs (entry_id, artist, title, album, source, created_at, lookup_key)"
    " VALUES (?, ?, ?, ?, ?, ?, " + LOOKUP_KEY_SQL + ") RETURNING artist, title, album, source,"
    " (SELECT json_array(sl.recording_mbid, sl.release_mbid, sl.release_title, sl.release_date,"
    " sl.length_ms, EXISTS (SELECT 1 FROM covers c WHERE c.release_mbid = sl.release_mbid"
    " AND c.content_type IS NOT NULL)) FROM song_lookups sl"
    " WHERE sl.lookup_key = songs.lookup_key AND sl.found = 1) AS lookup")


def _stored_real(value: float | None) -> float | None:
    """What a REAL column gives back: SQLite keeps an integral real as an integer, so a
    negative zero comes back as 0.0."""
    return None if value is None else value + 0.0


def insert_entry(conn: sqlite3.Connection, user_id: int, data: EntryInput, source: str,
                 now_ms: int) -> tuple[int, dict]:
    """The entry's rows, inside the caller's transaction; returns its id and its JSON shape,
    built from the input and what the inserts returned (equal to a later read; pinned)."""
    row = dict(conn.execute(_INSERT + _ENTRY_RETURNING,
                            _entry_row(user_id, data, source, now_ms)).fetchall()[0])
    entry_id = row["id"]
    conn.execute(_INDEX_ONE, (entry_id, data.note_title, data.note))
    names = []
    if data.activities:
        encoded = json.dumps([[name, name_key(name)] for name in data.activities])
        vocab.add_activities(conn, user_id, encoded, now_ms)
        names = [r["name"] for r in sorted(
            conn.execute(_LINK_ACTIVITIES, (entry_id, user_id, encoded)).fetchall(),
            key=lambda r: r["name_key"])]
    metrics = sorted((conn.execute(_ADD_METRIC, (entry_id, m, v)).fetchall()[0]
                      for m, v in data.metrics.items()), key=lambda r: r["name_key"])
    song = None
    if data.song is not None:
        s = data.song
        song = conn.execute(_ADD_SONG, (entry_id, s.artist, s.title, s.album, s.source, now_ms,
                                        s.artist, s.title)).fetchall()[0]
    lookup = json.loads(song["lookup"]) if song is not None and song["lookup"] else None
    row.update(
        lat=_stored_real(row["lat"]), lon=_stored_real(row["lon"]),
        activities_json=json.dumps(names), photos_json="[]", memos_json="[]", p_locality=None,
        p_country=None, p_name=None,
        w_unavailable=None, w_temperature=None, w_code=None,
        song_artist=song and song["artist"], song_title=song and song["title"],
        song_album=song and song["album"], song_source=song and song["source"],
        m_recording=lookup and lookup[0], m_release=lookup and lookup[1],
        m_release_title=lookup and lookup[2], m_release_date=lookup and lookup[3],
        m_length=lookup and lookup[4], m_cover=lookup and lookup[5])
    return entry_id, entry_json(row, {m["name"]: float(m["value"]) for m in metrics})


def insert_imported(conn: sqlite3.Connection, user_id: int, items: list[EntryInput],
                    source: str, now_ms: int) -> None:
    """Many imported entries (each with its import key) inside the caller's transaction, a
    statement per table rather than per entry: the ids come back through the unique import
    keys (a key already present fails the INSERT, so they are exactly the new entries); their
    notes are indexed and their days counted in bulk too."""
    with day_counts.insert_triggers_off(conn):
        conn.executemany(_INSERT, [_entry_row(user_id, data, source, now_ms) for data in items])
        ids = dict(conn.execute(
            "SELECT import_key, id FROM entries WHERE user_id = ? AND import_key"
            " IN (SELECT value FROM json_each(?))",
            (user_id, json.dumps([d.import_key for d in items]))).fetchall())
        conn.execute(_INDEX_MANY, (json.dumps(list(ids.values())),))
        keys = {n: name_key(n) for n in dict.fromkeys(n for d in items for n in d.activities)}
        activity_ids = vocab.activity_ids(conn, user_id, list(keys), now_ms)
        conn.executemany("INSERT OR IGNORE INTO entry_activities (entry_id, activity_id)"
                         " VALUES (?, ?)", [(ids[d.import_key], activity_ids[keys[n]])
                                            for d in items for n in d.activities])
        conn.executemany(
            "INSERT INTO entry_metrics (entry_id, metric_id, value) VALUES (?, ?, ?)",
            [(ids[d.import_key], m, v) for d in items for m, v in d.metrics.items()])
        conn.executemany("INSERT INTO songs (entry_id, artist, title, album, source, created_at,"
                         " lookup_key) VALUES (?, ?, ?, ?, ?, ?, " + LOOKUP_KEY_SQL + ")",
                         [(ids[d.import_key], d.song.artist, d.song.title, d.song.album,
                           d.song.source, now_ms, d.song.artist, d.song.title)
                          for d in items if d.song is not None])
        day_counts.count_new_entries(conn, list(ids.values()))


def _add_activities(conn, user_id: int, entry_id: int, names: list[str], now_ms: int) -> None:
    if names:
        vocab.ensure_activities(conn, user_id, names, now_ms, entry_id)


def _add_metrics(conn, entry_id: int, values: dict[int, float]) -> None:
    if values:
        conn.executemany("INSERT INTO entry_metrics (entry_id, metric_id, value) VALUES (?, ?, ?)",
                         [(entry_id, m, v) for m, v in values.items()])


def _set_activities(conn, user_id: int, entry_id: int, names: list[str], now_ms: int) -> None:
    conn.execute("DELETE FROM entry_activities WHERE entry_id = ?", (entry_id,))
    _add_activities(conn, user_id, entry_id, names, now_ms)


def _set_metrics(conn, entry_id: int, values: dict[int, float]) -> None:
    conn.execute("DELETE FROM entry_metrics WHERE entry_id = ?", (entry_id,))
    _add_metrics(conn, entry_id, values)


def update_entry(conn: sqlite3.Connection, user_id: int, entry_id: int, data: EntryInput,
                 now_ms: int, before_commit: BeforeCommit | None = None) -> bool:
    """Apply the fields present in a PATCH, with `before_commit(conn, entry_id)` last in the
    transaction; False when there were none (nothing is written, not even updated_at); raise
    NotFound for another user's or no entry.

    A new mood level without a label drops the custom label, which named the old level.
    """
    with transaction(conn):
        return change_entry(conn, user_id, entry_id, data, now_ms, before_commit)


def change_entry(conn: sqlite3.Connection, user_id: int, entry_id: int, data: EntryInput,
                 now_ms: int, before_commit: BeforeCommit | None = None) -> bool:
    """update_entry inside the caller's transaction (a group commit's savepoint)."""
    assignments: list[tuple[str, object]] = []  # SQL from this fixed set, never from the client
    if data.moment is not None and "occurred_at" in data.present:
        m = data.moment
        assignments += [("occurred_at = ?", m.occurred_at_ms), ("utc_offset_s = ?", m.offset_s),
                        ("local_date = ?", m.local_date), ("local_minute = ?", m.local_minute),
                        ("time_known = ?", 1)]  # a time given: no longer date-only
    if "mood" in data.present and "mood_label" not in data.present:
        assignments.append(("mood_label = CASE WHEN mood = ? THEN mood_label END", data.mood))
    for name in ("mood", "mood_label", "note_title", "note"):
        if name in data.present:
            assignments.append((f"{name} = ?", getattr(data, name)))
    if "location" in data.present:
        lat, lon = data.location or (None, None)
        assignments += [("lat = ?", lat), ("lon = ?", lon)]
    if not data.present:
        if conn.execute("SELECT 1 FROM entries WHERE id = ? AND user_id = ?",
                        (entry_id, user_id)).fetchone() is None:
            raise NotFound("entry")
        return False
    before = conn.execute("SELECT lat, lon FROM entries WHERE id = ? AND user_id = ?",
                          (entry_id, user_id)).fetchone()
    lat_before, lon_before = (before["lat"], before["lon"]) if before else (None, None)
    found = conn.execute(
        "UPDATE entries SET " + "".join(sql + ", " for sql, _ in assignments) +
        "updated_at = ? WHERE id = ? AND user_id = ?",
        (*(value for _, value in assignments), now_ms, entry_id, user_id)).rowcount
    if not found:
        raise NotFound("entry")
    if "location" in data.present:  # weather and place belong to the old place
        for table in ("weather", "entry_places"):  # fixed names; the sweeps refill them
            conn.execute(f"DELETE FROM {table} WHERE entry_id = ? AND NOT EXISTS (SELECT 1"
                         " FROM entries WHERE id = ? AND lat IS ? AND lon IS ?"
                         " AND ? IS NOT NULL)",
                         (entry_id, entry_id, lat_before, lon_before, lat_before))
    if "activities" in data.present:
        _set_activities(conn, user_id, entry_id, data.activities, now_ms)
    if "metrics" in data.present:
        _set_metrics(conn, entry_id, data.metrics)
    if "song" in data.present:  # only removal passes validation
        conn.execute("DELETE FROM songs WHERE entry_id = ?", (entry_id,))
    if before_commit is not None:
        before_commit(conn, entry_id)
    return True


def delete_entry(conn: sqlite3.Connection, user_id: int, entry_id: int, now_ms: int) -> None:
    """Delete one of the user's entries; its client_id is remembered in the same transaction,
    so that a device which did not see the delete cannot send the entry back (an outbox
    retrying a send whose answer it lost)."""
    with transaction(conn):
        deleted = conn.execute("DELETE FROM entries WHERE id = ? AND user_id = ?"
                               " RETURNING client_id", (entry_id, user_id)).fetchall()
        if not deleted:
            raise NotFound("entry")
        if deleted[0]["client_id"] is not None:
            conn.execute("INSERT INTO deleted_client_ids (user_id, client_id, deleted_at)"
                         " VALUES (?, ?, ?) ON CONFLICT (user_id, client_id)"
                         " DO UPDATE SET deleted_at = excluded.deleted_at",
                         (user_id, deleted[0]["client_id"], now_ms))


def prune_deleted_client_ids(conn: sqlite3.Connection, now_ms: int, keep_ms: int) -> int:
    """Forget the client ids of entries deleted more than `keep_ms` ago; returns how many."""
    return conn.execute("DELETE FROM deleted_client_ids WHERE deleted_at < ?",
                        (now_ms - keep_ms,)).rowcount
