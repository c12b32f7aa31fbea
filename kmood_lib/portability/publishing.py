"""Publishing a checked run: its staged rows into the journal oldest first, a batch per short
transaction taking turns with other writers, their photos and memos onto their entries, and
the run ended with what an export carries besides entries (see portability.runs)."""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from kmood_lib.core.db import transaction
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import name_key
from kmood_lib.journal import vocab, writes
from kmood_lib.journal.entry_input import EntryInput, Moment, Song
from kmood_lib.portability import restore
from kmood_lib.portability.counted import n_
from kmood_lib.portability.daylio.plan import Plan, where_again
from kmood_lib.portability.duplicates import Deduplicator
from kmood_lib.portability.runs import PHOTO_BATCH, Run, patiently
from kmood_lib.portability.staging import FIRST, next_batch, position_of


@dataclass
class Staged:
    """A staged row decoded into what publishing writes (outside its transaction)."""

    entry: EntryInput
    source: str
    weather: dict | None
    warnings: list[str]  # said only if the row is new to the journal


def publish(conn, run: Run, stored_plan: dict, warnings: list, progress=None,
            total: int = 0) -> tuple[int, int]:
    """Publish every staged row of the run; returns (imported, duplicates). Raises RunLost
    (the batch rolled back) if another process took the run over."""
    defs, dedup = _start(conn, run, stored_plan)
    imported = duplicates = done = 0
    after = FIRST
    while True:
        # Read and decoded outside the write: only this run's owner changes its staged rows,
        # and the batch's own transaction checks that this process still is (run.renew).
        rows = next_batch(conn, run.id, after)
        if not rows:
            break
        entries = [_staged(r, defs) for r in rows]
        with run.pacer.turn():
            fresh = patiently(functools.partial(_publish_batch, conn, run, dedup, rows,
                                                entries, warnings), run.clock.sleep)
        after = position_of(rows)
        attach_photos(conn, run)  # the batch's photos onto its entries, a few at a time
        attach_memos(conn, run)
        new = sum(fresh)
        imported += new
        duplicates += len(rows) - new
        done += len(rows)
        if progress is not None:
            progress(done, max(total, done))  # outside the batch: whatever it does
    left = forget_photos(conn, run)
    if left:
        warnings.append(n_("{n} photo or memo file of entries already in the journal from"
                           " another file was left out",
                           "{n} photo or memo files of entries already in the journal from"
                           " another file were left out", left))
    return imported, duplicates


def _start(conn, run: Run, stored_plan: dict) -> tuple[dict, Deduplicator]:
    """The run marked publishing, its metrics made, and its deduplicator where it stopped."""
    with transaction(conn):
        run.renew(conn, ", state = 'publishing'")
        defs = _metric_ids(conn, run.user_id, stored_plan.get("metrics") or {}, run.now_ms())
        carried = conn.execute("SELECT carried FROM import_runs WHERE id = ?",
                               (run.id,)).fetchone()[0]
    return defs, Deduplicator(conn, run.user_id, carried)


def _publish_batch(conn, run: Run, dedup: Deduplicator, rows: list[sqlite3.Row],
                   entries: list[Staged], warnings: list) -> list[bool]:
    """One batch's transaction; returns which of its rows were new. A batch that rolls back
    puts the deduplicator's counts back as they were."""
    carried = dedup.carried
    try:
        with transaction(conn):
            fresh = dedup.new_rows(rows)
            run.renew(conn, ", published = published + ?, carried = ?",
                      (len(rows), dedup.carried_json()))
            _insert(conn, run, rows, entries, fresh, warnings)
        return fresh
    except BaseException:
        dedup.carried = carried  # the batch rolled back: so do its counts
        raise


def _staged(r: sqlite3.Row, defs: dict) -> Staged:
    e, warnings = json.loads(r["entry"]), []
    return Staged(_entry_input(r, e, defs, warnings), e["source"], e.get("weather"), warnings)


def _insert(conn, run: Run, rows: list[sqlite3.Row], entries: list[Staged], fresh: list[bool],
            warnings: list) -> None:
    """One batch into the journal (inside its transaction): the new rows as entries, with
    the weather an export carried, and the whole batch out of the staging."""
    now_ms = run.now_ms()
    by_source: dict[str, list[EntryInput]] = {}
    weather = []
    for r, staged, new in zip(rows, entries, fresh, strict=True):
        if new:
            by_source.setdefault(staged.source, []).append(staged.entry)
            warnings.extend(staged.warnings)
            if staged.weather:
                weather.append((r["import_key"], staged.weather))
    for source in sorted(by_source):
        writes.insert_imported(conn, run.user_id, by_source[source], source, now_ms)
    restore.weather(conn, run.user_id, weather, now_ms)
    conn.execute("DELETE FROM import_rows WHERE id IN (SELECT value FROM json_each(?))",
                 (json.dumps([r["id"] for r in rows]),))


# -- the staged files onto their published entries --------------------------------------------

Move = Callable[[sqlite3.Connection, Run, str], None]


def _attach(conn, run: Run, table: str, move: Move) -> int:
    """Move a run's staged files (`table`: import_photos or import_memos) whose entry is
    published onto it, PHOTO_BATCH per transaction: `move` copies the chosen rows (their ids,
    as JSON) to where they belong; they are then deleted from the staging. Returns how many
    were moved."""
    moved = 0
    chosen_sql = (f"SELECT s.id FROM {table} s JOIN entries e ON e.user_id = ?"  # a constant
                  " AND e.import_key = s.import_key WHERE s.run_id = ? ORDER BY s.id LIMIT ?")
    while True:
        if not conn.execute(chosen_sql, (run.user_id, run.id, 1)).fetchall():
            return moved  # probed first: nothing to move takes no write lock
        with run.pacer.turn():
            done = patiently(functools.partial(_attach_batch, conn, run, table, chosen_sql, move),
                             run.clock.sleep)
        if not done:
            return moved
        moved += done


def _attach_batch(conn, run: Run, table: str, chosen_sql: str, move: Move) -> int:
    """One transaction of _attach; returns how many files it moved."""
    with transaction(conn):
        ids = [r[0] for r in conn.execute(chosen_sql, (run.user_id, run.id, PHOTO_BATCH))]
        if not ids:
            return 0
        chosen = json.dumps(ids)
        move(conn, run, chosen)
        conn.execute(f"DELETE FROM {table} WHERE id IN (SELECT value FROM json_each(?))",
                     (chosen,))
        run.renew(conn)
        return len(ids)


def attach_memos(conn, run: Run) -> int:
    """The staged voice memos onto their published entries (see _attach)."""
    return _attach(conn, run, "import_memos", _move_memos)


def _move_memos(conn, run: Run, chosen: str) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO voice_memos (entry_id, position, sha256, content_type,"
        " created_at, data) SELECT e.id, im.position + 1 + coalesce((SELECT max(position)"
        " FROM voice_memos WHERE entry_id = e.id), 0), im.sha256, im.content_type, ?,"
        " im.data FROM import_memos im JOIN entries e ON e.user_id = ?"
        " AND e.import_key = im.import_key"
        " WHERE im.id IN (SELECT value FROM json_each(?)) ORDER BY im.id",
        (run.now_ms(), run.user_id, chosen))


def attach_photos(conn, run: Run) -> int:
    """The staged photos onto their published entries (see _attach); one the entry already
    has, from an earlier import of the same file, is left as it is."""
    return _attach(conn, run, "import_photos", _move_photos)


def _move_photos(conn, run: Run, chosen: str) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO photos (entry_id, position, sha256, width, height,"
        " created_at) SELECT e.id, ip.position + 1 + coalesce((SELECT max(position)"
        " FROM photos WHERE entry_id = e.id), 0), ip.sha256, ip.width, ip.height, ?"
        " FROM import_photos ip JOIN entries e ON e.user_id = ?"
        " AND e.import_key = ip.import_key"
        " WHERE ip.id IN (SELECT value FROM json_each(?)) ORDER BY ip.id",
        (run.now_ms(), run.user_id, chosen))
    for size, kind, data in (("full", "content_type", "data"),
                             ("thumb", "thumb_type", "thumb")):
        conn.execute(  # kept once per person (migration 0026): a file they have stays
            f"INSERT OR IGNORE INTO photo_files (user_id, sha256, size, content_type, data)"
            f" SELECT ?, ip.sha256, '{size}', ip.{kind}, ip.{data} FROM import_photos ip"
            " WHERE ip.id IN (SELECT value FROM json_each(?))",
            (run.user_id, chosen))


def forget_photos(conn, run: Run) -> int:
    """The staged photos no published entry claimed (their row was already in the journal
    from another file), deleted a few at a time; returns how many."""
    forgotten = 0
    while True:
        with transaction(conn):
            gone = conn.execute("DELETE FROM import_photos WHERE id IN (SELECT id FROM"
                                " import_photos WHERE run_id = ? LIMIT ?)",
                                (run.id, PHOTO_BATCH)).rowcount
            gone += conn.execute("DELETE FROM import_memos WHERE id IN (SELECT id FROM"
                                 " import_memos WHERE run_id = ? LIMIT ?)",
                                 (run.id, PHOTO_BATCH)).rowcount
            run.renew(conn)
        if not gone:
            return forgotten
        forgotten += gone


# -- the run ended -------------------------------------------------------------------------------

def finish(conn, run: Run, stored_plan: dict, plan: Plan, allow_private_urls: bool
           ) -> list[str]:
    """The export's extras and the backup's groups put back, and the run ended, in one
    transaction; returns the report's lines about the extras."""
    tz = ZoneInfo(stored_plan["tz"])
    with run.pacer.turn(), transaction(conn):
        for activity, group in (stored_plan.get("groups") or {}).items():
            group_id = vocab.ensure_group(conn, run.user_id, group)
            conn.execute("UPDATE activities SET group_id = ? WHERE user_id = ? AND name_key = ?"
                         " AND group_id IS NULL", (group_id, run.user_id, name_key(activity)))
        run.renew(conn)
        restored = restore.apply(conn, run.user_id, tz, plan, run.now_ms(), allow_private_urls)
        conn.execute("DELETE FROM import_runs WHERE id = ?", (run.id,))
    return restored


def _metric_ids(conn, user_id: int, wanted: dict, now_ms: int) -> dict:
    """name key -> (id, min, max) for every scale the rows carry, creating missing metrics."""
    defs = vocab.metric_defs(conn, user_id)
    for key, (name, unit, low, high) in wanted.items():
        if key not in defs:
            conn.execute("INSERT INTO metrics (user_id, name, name_key, unit, min_value,"
                         " max_value, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (user_id, name, key, unit, low, high, now_ms))
    defs = vocab.metric_defs(conn, user_id)
    return {key: (d[0], d[2], d[3]) for key, d in defs.items()}


def _entry_input(r, e: dict, defs: dict, warnings: list) -> EntryInput:
    values = {}
    for key, name, value in e["metrics"]:
        metric_id, low, high = defs[key]
        if (low is not None and value < low) or (high is not None and value > high):
            warnings.append(Phrase("{where}: {metric} {value} is outside the metric's range,"
                                   " left out", where=where_again(e["where"]), metric=name,
                                   value=f"{value:g}"))
            continue
        values[metric_id] = value
    song = Song(*e["song"]) if e["song"] else None
    return EntryInput(
        moment=Moment(e["at"], e["offset"], r["local_date"], r["local_minute"]), mood=r["mood"],
        mood_label=e["label"], activities=e["activities"], note_title=e["title"],
        note=r["note"], time_known=e["time_known"], import_key=r["import_key"],
        location=tuple(e["location"]) if e["location"] else None, song=song, metrics=values)
