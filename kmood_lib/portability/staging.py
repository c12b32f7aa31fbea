"""An import's staging: the checked rows of a file, with their photos and voice memos, written
beside the journal (`import_rows`, `import_photos`, `import_memos`) in short transactions as
the file is read, and read back oldest first for publishing. Nothing but the import reads
these tables (see portability.runs for the whole run)."""

from __future__ import annotations

import functools
import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator
from zoneinfo import ZoneInfo

from kmood_lib.core.db import transaction
from kmood_lib.core.text import name_key
from kmood_lib.journal.entry_input import MAX_LABEL, Moment
from kmood_lib.portability.daylio.plan import Plan
from kmood_lib.portability.runs import Run, patiently

STAGE_BATCH = 1000  # rows a staging transaction writes
PUBLISH_BATCH = 250  # rows a publishing transaction reads (about 20 ms of writing here)


def stage(conn, run: Run, items: Iterable[tuple]) -> tuple[int, int]:
    """Write (import_key, local_date, local_minute, second, mood, note, entry JSON) tuples in
    batches, each taking its turn; returns (staged, duplicates within the file)."""
    staged = duplicates = 0
    for batch in _batches(items, STAGE_BATCH):
        with run.pacer.turn():
            written = patiently(functools.partial(_write_rows, conn, run, batch),
                                run.clock.sleep)
        staged += written
        duplicates += len(batch) - written
    return staged, duplicates


def _batches(items: Iterable[tuple], size: int) -> Iterator[list[tuple]]:
    """`items` in lists of `size` (the last shorter), each taken only when it is asked for."""
    it = iter(items)
    while batch := list(itertools.islice(it, size)):
        yield batch


def _write_rows(conn, run: Run, batch: list[tuple]) -> int:
    """One staging transaction; returns how many rows were new (a key seen before is not)."""
    with transaction(conn):
        written = conn.executemany(
            "INSERT OR IGNORE INTO import_rows (run_id, import_key, local_date, local_minute,"
            " second, mood, note, entry) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(run.id, *item) for item in batch]).rowcount
        run.renew(conn, ", staged = staged + ?", (written,))
    return written


def stage_photos(conn, run: Run, import_key: str, prepared: list) -> None:
    """A row's checked photos (journal.photos.Prepared), staged in their own transaction."""
    patiently(functools.partial(_write_photos, conn, run, import_key, prepared),
              run.clock.sleep)


def _write_photos(conn, run: Run, import_key: str, prepared: list) -> None:
    with transaction(conn):
        conn.executemany(
            "INSERT INTO import_photos (run_id, import_key, position, sha256, width, height,"
            " content_type, data, thumb_type, thumb) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(run.id, import_key, i, p.sha256, p.width, p.height, p.content_type, p.data,
              p.thumb_type, p.thumb) for i, p in enumerate(prepared)])
        run.renew(conn)


def stage_memos(conn, run: Run, import_key: str, kept: list) -> None:
    """A row's voice memos (journal.memos.Memo), staged in their own transaction."""
    patiently(functools.partial(_write_memos, conn, run, import_key, kept), run.clock.sleep)


def _write_memos(conn, run: Run, import_key: str, kept: list) -> None:
    with transaction(conn):
        conn.executemany(
            "INSERT INTO import_memos (run_id, import_key, position, sha256, content_type,"
            " data) VALUES (?, ?, ?, ?, ?, ?)",
            [(run.id, import_key, i, m.sha256, m.content_type, m.data)
             for i, m in enumerate(kept)])
        run.renew(conn)


_BATCH_SQL = (
    "SELECT id, import_key, local_date, local_minute, second, mood, note, entry FROM import_rows"
    " WHERE run_id = ? AND (local_date, local_minute, second, id) > (?, ?, ?, ?)"
    " ORDER BY local_date, local_minute, second, id LIMIT ?")
FIRST = ("", -1, -1, -1)


def next_batch(conn, run_id: int, after: tuple) -> list[sqlite3.Row]:
    """The staged rows after `after` (date, minute, second, id), oldest first, a batch."""
    return conn.execute(_BATCH_SQL, (run_id, *after, PUBLISH_BATCH)).fetchall()


def position_of(rows: list[sqlite3.Row]) -> tuple:
    last = rows[-1]
    return last["local_date"], last["local_minute"], last["second"], last["id"]


# -- what a staged row and its run keep, so that another process can finish it ----------------

def plan_json(plan: Plan, format_name: str, tz: ZoneInfo, metrics: dict) -> str:
    return json.dumps({"format": format_name, "tz": tz.key, "groups": plan.groups,
                       "extras": plan.extras, "metrics": metrics})


def entry_json(row, moment: Moment, label: str | None) -> str:
    """What a staged row holds besides the columns it is ordered and compared by."""
    song = row.song
    return json.dumps({
        "where": row.where, "at": moment.occurred_at_ms, "offset": moment.offset_s,
        "label": label, "activities": row.activities, "title": row.note_title,
        "time_known": row.minute is not None, "location": row.location,
        "song": [song.artist, song.title, song.album, song.source] if song else None,
        "metrics": [[name_key(m.name), m.name, m.value] for m in row.metrics],
        "source": row.source, "weather": row.weather})


def wanted_metrics(plan_metrics: dict, row) -> None:
    """name key -> [name, unit, min, max] of every scale the rows carry (the first met)."""
    for m in row.metrics:
        plan_metrics.setdefault(name_key(m.name), [m.name[:MAX_LABEL], (m.unit or "")[:32],
                                                   m.min if m.min is not None else
                                                   (0 if m.max is not None else None), m.max])
