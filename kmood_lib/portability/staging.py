"""An import run: its rows staged, checked, then published into the journal in short steps.

An import used to write a whole file in one transaction, holding every writer off for as long
as it took (a 200 000-row file: ten seconds; a million rows: over a minute), and to hold every
row in memory. Now:

1. `begin` takes the user's one import slot (a second import of the same user is refused while
   the first one's lease runs; an expired run is finished or dropped first).
2. `stage` writes the rows as they are read into `import_rows`, a batch per short transaction;
   nothing reads that table but the import. A row whose import key came earlier in the file is
   a duplicate already.
3. Only a file that was read whole and found fit goes on: `publish` walks the staged rows oldest
   first, a batch per short transaction — decides which are already in the journal (the same
   import key, or the same local minute, mood and note, counted as multisets), inserts the
   rest, and deletes the batch from the staging. Between batches the database is left alone
   for as long as the batch held it, so other writers — in this process or another — get
   their turn (`Pacer`: the next batch is read and decoded in that time, only the rest is
   slept).
4. `finish` puts back what a k-mood export carries besides entries, and ends the run.

A run that dies (its lease runs out) is finished from what is left in the staging when it was
publishing, dropped when it was still staging: by the next import of that user or by the
worker (`recover`). Nothing reaches the journal before the whole file was read and checked,
and every staged row reaches it exactly once.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import secrets
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from kmood_lib.core.db import storage_error, transaction
from kmood_lib.core.errors import Busy, Conflict
from kmood_lib.core.text import name_key
from kmood_lib.journal import vocab, writes
from kmood_lib.journal.entry_input import MAX_LABEL, EntryInput, Moment, Song
from kmood_lib.portability import restore
from kmood_lib.portability.daylio.plan import Plan

log = logging.getLogger(__name__)

LEASE_MS = 60_000  # KMOOD_IMPORT_LEASE_S: a run not renewed for this long has died
STAGE_BATCH = 1000  # rows a staging transaction writes
PUBLISH_BATCH = 250  # rows a publishing transaction reads (about 20 ms of writing here)
DROP_BATCH = 5000
MIN_PAUSE_S = 0.002
MAX_PAUSE_S = 0.1


class ImportRunning(Conflict):
    def __init__(self):
        super().__init__("An import of yours is already running: wait for it to finish, then"
                         " try again.", {"file": "an import of yours is already running"})


class RunLost(Busy):
    """This process's lease on a run ran out and another took the run over: stop writing."""

    def __init__(self):
        super().__init__("The import was taken over after it stalled; it is being finished"
                         " elsewhere. Nothing is lost or doubled.", max(1, LEASE_MS // 1000))


class Pacer:
    """Other writers' turn between an import's transactions: before each one, the database
    has been left alone for as long as the last one held it (at least MIN_PAUSE_S, at most
    MAX_PAUSE_S). Work done outside the transactions (reading the file, decoding the next
    batch) counts; only what is still owed is slept."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.monotonic, self.sleep = monotonic, sleep
        self.held: float | None = None  # nothing held yet: nothing owed
        self.released = monotonic()

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Wait until it is this import's turn, then run the block (one transaction)."""
        if self.held is not None:
            owed = min(max(self.held, MIN_PAUSE_S), MAX_PAUSE_S) - (
                self.monotonic() - self.released)
            if owed > 0:
                self.sleep(owed)
        started = self.monotonic()
        try:
            yield
        finally:
            self.released = self.monotonic()
            self.held = self.released - started


@dataclass
class Run:
    id: int
    user_id: int
    started: float  # time.monotonic() when this process took it
    start_ms: int
    lease_ms: int = LEASE_MS
    owner: str = ""
    pacer: Pacer = field(default_factory=Pacer)  # its transactions take turns with others

    def now_ms(self) -> int:
        return self.start_ms + int((time.monotonic() - self.started) * 1000)

    def lease(self) -> int:
        return self.now_ms() + self.lease_ms

    def renew(self, conn, sql: str = "", parameters: tuple = ()) -> None:
        """Inside a write transaction: extend the lease (and make `sql`'s change) only while
        this process still holds it; else RunLost, which rolls the transaction back."""
        held = conn.execute("UPDATE import_runs SET lease_until = ?" + sql +
                            " WHERE id = ? AND owner = ? RETURNING id",
                            (self.lease(), *parameters, self.id, self.owner)).fetchall()
        if not held:
            raise RunLost()


BUSY_RETRIES = 5  # a batch that waited a whole busy timeout tries again this often
BUSY_PAUSE_S = 0.25


def patiently(step: Callable[[], object]) -> object:
    """Run one batch's transaction; one that waited the whole busy timeout for another writer
    (a burst of saves, a backup) is tried again a few times before the import gives up."""
    for attempt in range(BUSY_RETRIES + 1):
        try:
            return step()
        except sqlite3.OperationalError as exc:
            if attempt == BUSY_RETRIES or not isinstance(storage_error(exc), Busy) \
                    or getattr(exc, "sqlite_errorcode", 0) & 0xFF not in (5, 6):
                raise
            log.info("an import batch waited out the busy timeout; trying again")
            time.sleep(BUSY_PAUSE_S * (attempt + 1))
    raise AssertionError("unreachable")


def begin(conn: sqlite3.Connection, user_id: int, now_ms: int,
          finish_expired: Callable[[int, int], None], lease_ms: int = LEASE_MS) -> Run:
    """The user's import slot; raises ImportRunning while another run of theirs is alive. An
    expired run of theirs is finished (publishing) or dropped (staging) first."""
    started = time.monotonic()
    row = conn.execute("SELECT id, state, lease_until FROM import_runs WHERE user_id = ?",
                       (user_id,)).fetchone()
    if row is not None:
        if row["lease_until"] > now_ms:
            raise ImportRunning()
        owner = _claim(conn, row["id"], now_ms, lease_ms)
        if owner is None:
            raise ImportRunning()  # another request took it over just now
        if row["state"] == "publishing":
            finish_expired(row["id"], owner)
        else:
            drop(conn, row["id"])
    now_ms += int((time.monotonic() - started) * 1000)  # finishing the old one took time
    owner = secrets.token_hex(8)
    try:
        with transaction(conn):
            run_id = conn.execute(
                "INSERT INTO import_runs (user_id, state, owner, lease_until, created_at)"
                " VALUES (?, 'staging', ?, ?, ?) RETURNING id",
                (user_id, owner, now_ms + lease_ms, now_ms)).fetchall()[0][0]
    except sqlite3.IntegrityError:
        raise ImportRunning() from None
    return Run(run_id, user_id, time.monotonic(), now_ms, lease_ms, owner)


def _claim(conn, run_id: int, now_ms: int, lease_ms: int) -> str | None:
    """Take over an expired run (one statement: two takers cannot both win); the new owner."""
    owner = secrets.token_hex(8)
    return owner if conn.execute(
        "UPDATE import_runs SET lease_until = ?, owner = ? WHERE id = ? AND lease_until <= ?"
        " RETURNING id", (now_ms + lease_ms, owner, run_id, now_ms)).fetchall() else None


def stage(conn, run: Run, items: Iterable[tuple]) -> tuple[int, int]:
    """Write (import_key, local_date, local_minute, second, mood, note, entry JSON) tuples in
    batches; returns (staged, duplicates within the file)."""
    staged = duplicates = 0
    batch: list[tuple] = []

    def write() -> int:
        with transaction(conn):
            written = conn.executemany(
                "INSERT OR IGNORE INTO import_rows (run_id, import_key, local_date, local_minute,"
                " second, mood, note, entry) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(run.id, *item) for item in batch]).rowcount
            run.renew(conn, ", staged = staged + ?", (written,))
        return written

    def flush() -> None:
        nonlocal staged, duplicates
        with run.pacer.turn():
            written = patiently(write)
        staged += written
        duplicates += len(batch) - written
        batch.clear()

    for item in items:
        batch.append(item)
        if len(batch) >= STAGE_BATCH:
            flush()
    if batch:
        flush()
    return staged, duplicates


PHOTO_BATCH = 16  # staged photos moved onto their entries per transaction (images are big)


def stage_photos(conn, run: Run, import_key: str, prepared: list) -> None:
    """A row's checked photos (journal.photos.Prepared), staged in their own transaction."""
    def write() -> None:
        with transaction(conn):
            conn.executemany(
                "INSERT INTO import_photos (run_id, import_key, position, sha256, width, height,"
                " content_type, data, thumb_type, thumb) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(run.id, import_key, i, p.sha256, p.width, p.height, p.content_type, p.data,
                  p.thumb_type, p.thumb) for i, p in enumerate(prepared)])
            run.renew(conn)

    patiently(write)


def stage_memos(conn, run: Run, import_key: str, kept: list) -> None:
    """A row's voice memos (journal.memos.Memo), staged in their own transaction."""
    def write() -> None:
        with transaction(conn):
            conn.executemany(
                "INSERT INTO import_memos (run_id, import_key, position, sha256, content_type,"
                " data) VALUES (?, ?, ?, ?, ?, ?)",
                [(run.id, import_key, i, m.sha256, m.content_type, m.data)
                 for i, m in enumerate(kept)])
            run.renew(conn)

    patiently(write)


def _attach(conn, run: Run, table: str, move: Callable[[str], None]) -> int:
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

        def one_batch() -> int:
            with transaction(conn):
                ids = [r[0] for r in conn.execute(chosen_sql,
                                                  (run.user_id, run.id, PHOTO_BATCH))]
                if not ids:
                    return 0
                chosen = json.dumps(ids)
                move(chosen)
                conn.execute(f"DELETE FROM {table} WHERE id IN (SELECT value FROM json_each(?))",
                             (chosen,))
                run.renew(conn)
                return len(ids)

        with run.pacer.turn():
            done = patiently(one_batch)
        if not done:
            return moved
        moved += done


def attach_memos(conn, run: Run) -> int:
    """The staged voice memos onto their published entries (see _attach)."""
    def move(chosen: str) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO voice_memos (entry_id, position, sha256, content_type,"
            " created_at, data) SELECT e.id, im.position + 1 + coalesce((SELECT max(position)"
            " FROM voice_memos WHERE entry_id = e.id), 0), im.sha256, im.content_type, ?,"
            " im.data FROM import_memos im JOIN entries e ON e.user_id = ?"
            " AND e.import_key = im.import_key"
            " WHERE im.id IN (SELECT value FROM json_each(?)) ORDER BY im.id",
            (run.now_ms(), run.user_id, chosen))

    return _attach(conn, run, "import_memos", move)


def attach_photos(conn, run: Run) -> int:
    """The staged photos onto their published entries (see _attach); one the entry already
    has, from an earlier import of the same file, is left as it is."""
    def move(chosen: str) -> None:
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

    return _attach(conn, run, "import_photos", move)


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


def drop(conn, run_id: int) -> None:
    """A run and its staged rows and photos, deleted in short steps."""
    pacer = Pacer()
    while True:
        with pacer.turn(), transaction(conn):
            gone = conn.execute("DELETE FROM import_photos WHERE id IN (SELECT id FROM"
                                " import_photos WHERE run_id = ? LIMIT ?)",
                                (run_id, PHOTO_BATCH)).rowcount
            gone += conn.execute("DELETE FROM import_memos WHERE id IN (SELECT id FROM"
                                 " import_memos WHERE run_id = ? LIMIT ?)",
                                 (run_id, PHOTO_BATCH)).rowcount
            gone += conn.execute("DELETE FROM import_rows WHERE id IN (SELECT id FROM import_rows"
                                 " WHERE run_id = ? LIMIT ?)", (run_id, DROP_BATCH)).rowcount
            if not gone:
                conn.execute("DELETE FROM import_runs WHERE id = ?", (run_id,))
                return


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


class Deduplicator:
    """Which staged rows are already in the journal: the same import key, or the same local
    minute, mood and note — counted as multisets, so two identical rows stay two entries and
    importing them again adds neither. Batches come oldest first; a minute cut in two by a
    batch boundary keeps its counts (`carried`, kept with the run so that a run finished by
    another process counts the same), so the rows this import published there do not count."""

    def __init__(self, conn, user_id: int, carried: str | None = None):
        self.conn, self.user_id = conn, user_id
        self.carried: tuple[tuple[str, int], Counter] | None = None
        if carried:
            minute, counts = json.loads(carried)
            self.carried = (tuple(minute), Counter({tuple(s): n for s, n in counts}))

    def carried_json(self) -> str | None:
        if self.carried is None:
            return None
        minute, counts = self.carried
        return json.dumps([minute, [[list(s), n] for s, n in counts.items() if n]])

    def new_rows(self, rows: list[sqlite3.Row]) -> list[bool]:
        keys = [r["import_key"] for r in rows]
        present = {r[0] for r in self.conn.execute(
            "SELECT import_key FROM entries WHERE user_id = ? AND import_key IN"
            " (SELECT value FROM json_each(?))", (self.user_id, json.dumps(keys)))}
        minutes = {(r["local_date"], r["local_minute"]) for r in rows}
        existing: Counter = Counter()
        for r in self.conn.execute(
                "SELECT local_date, local_minute, mood, note, count(*) AS n FROM entries"
                " WHERE user_id = ? AND local_date BETWEEN ? AND ?"
                " GROUP BY local_date, local_minute, mood, note",
                (self.user_id, rows[0]["local_date"], rows[-1]["local_date"])):
            if (r["local_date"], r["local_minute"]) in minutes:
                existing[(r["local_date"], r["local_minute"], r["mood"], r["note"])] = r["n"]
        if self.carried is not None:
            minute, counts = self.carried
            for signature in [s for s in existing if s[:2] == minute]:
                del existing[signature]
            existing.update({s: n for s, n in counts.items() if s[:2] == minute})
        fresh = []
        for r in rows:
            signature = (r["local_date"], r["local_minute"], r["mood"], r["note"])
            if r["import_key"] in present or existing[signature] > 0:
                fresh.append(False)
                if r["import_key"] not in present:
                    existing[signature] -= 1
            else:
                fresh.append(True)
        last = (rows[-1]["local_date"], rows[-1]["local_minute"])
        self.carried = (last, Counter({s: n for s, n in existing.items() if s[:2] == last}))
        return fresh


# -- the plan a run keeps, so that another process can finish it ------------------------------

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


def publish(conn, run: Run, stored_plan: dict, warnings: list, progress=None,
            done_before: int = 0, total: int = 0) -> tuple[int, int]:
    """Publish every staged row of the run; returns (imported, duplicates). Raises RunLost
    (the batch rolled back) if another process took the run over."""
    with transaction(conn):
        run.renew(conn, ", state = 'publishing'")
        defs = _metric_ids(conn, run.user_id, stored_plan.get("metrics") or {}, run.now_ms())
        carried = conn.execute("SELECT carried FROM import_runs WHERE id = ?",
                               (run.id,)).fetchone()[0]
    dedup = Deduplicator(conn, run.user_id, carried)
    imported = duplicates = 0
    done = done_before
    after = FIRST

    def one_batch(rows: list[sqlite3.Row], entries: list[Staged]) -> list[bool]:
        carried = dedup.carried
        try:
            with transaction(conn):
                fresh = dedup.new_rows(rows)
                run.renew(conn, ", published = published + ?, carried = ?",
                          (len(rows), dedup.carried_json()))
                _publish(conn, run, rows, entries, fresh, warnings)
            return fresh
        except BaseException:
            dedup.carried = carried  # the batch rolled back: so do its counts
            raise

    while True:
        # Read and decoded outside the write: only this run's owner changes its staged rows,
        # and the batch's own transaction checks that this process still is (run.renew).
        rows = next_batch(conn, run.id, after)
        if not rows:
            break
        entries = [_staged(r, defs) for r in rows]
        with run.pacer.turn():
            fresh = patiently(functools.partial(one_batch, rows, entries))
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
        warnings.append(f"{left} photo or memo file{'s' if left != 1 else ''} of entries"
                        " already in the journal from another file were left out")
    return imported, duplicates


@dataclass
class Staged:
    """A staged row decoded into what publishing writes (outside its transaction)."""

    entry: EntryInput
    source: str
    weather: dict | None
    warnings: list[str]  # said only if the row is new to the journal


def _staged(r: sqlite3.Row, defs: dict) -> Staged:
    e, warnings = json.loads(r["entry"]), []
    return Staged(_entry_input(r, e, defs, warnings), e["source"], e.get("weather"), warnings)


def _publish(conn, run: Run, rows: list[sqlite3.Row], entries: list[Staged], fresh: list[bool],
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


def count_new(conn, run: Run) -> tuple[int, int]:
    """What publishing would import and skip, reading only (a dry run)."""
    dedup = Deduplicator(conn, run.user_id)
    imported = duplicates = 0
    after = FIRST
    while True:
        with transaction(conn, immediate=False):  # a read holds nobody up: no pause
            rows = next_batch(conn, run.id, after)
            if not rows:
                return imported, duplicates
            fresh = dedup.new_rows(rows)
        after = position_of(rows)
        imported += sum(fresh)
        duplicates += len(fresh) - sum(fresh)


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


def resume(conn, run_id: int, user_id: int, owner: str, now_ms: int, allow_private_urls: bool,
           lease_ms: int = LEASE_MS) -> tuple[int, int]:
    """Finish a run that died while publishing, from its staged rows and kept plan; `owner`
    is the lease this process claimed on it."""
    row = conn.execute("SELECT plan FROM import_runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        return 0, 0
    stored = json.loads(row["plan"])
    run = Run(run_id, user_id, time.monotonic(), now_ms, lease_ms, owner)
    extras = dict(stored.get("extras") or {})
    if isinstance(extras.get("moods"), dict):  # JSON made the levels text
        extras["moods"] = {int(k): v for k, v in extras["moods"].items() if str(k).isdigit()}
    plan = Plan(stored.get("format", ""), groups=stored.get("groups") or {}, extras=extras)
    counts = publish(conn, run, stored, plan.warnings)
    finish(conn, run, stored, plan, allow_private_urls)
    log.info("finished the import of user %d that stopped half-way: %d more entries, %d"
             " already there", user_id, *counts)
    return counts


def recover(conn, now_ms: int, allow_private_urls: bool, lease_ms: int = LEASE_MS) -> int:
    """The worker's step: every run whose lease ran out, finished (publishing) or dropped
    (staging); one that fails is logged and left for the next round. Returns how many runs
    it handled."""
    started = time.monotonic()
    handled = 0
    for row in conn.execute("SELECT id, user_id, state FROM import_runs WHERE lease_until <= ?",
                            (now_ms,)).fetchall():
        now = now_ms + int((time.monotonic() - started) * 1000)
        owner = _claim(conn, row["id"], now, lease_ms)
        if owner is None:
            continue
        try:
            if row["state"] == "publishing":
                resume(conn, row["id"], row["user_id"], owner, now, allow_private_urls,
                       lease_ms)
            else:
                drop(conn, row["id"])
                log.info("dropped the staged rows of an import of user %d that stopped before"
                         " it was checked", row["user_id"])
            handled += 1
        except (sqlite3.Error, ValueError, KeyError, TypeError, Busy) as exc:
            log.error("could not finish the stalled import of user %d (run %d): %s; trying"
                      " again once its lease runs out", row["user_id"], row["id"], exc)
    return handled


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
            warnings.append(f"{e['where']}: {name} {value:g} is outside the metric's range,"
                            f" left out")
            continue
        values[metric_id] = value
    song = Song(*e["song"]) if e["song"] else None
    return EntryInput(
        moment=Moment(e["at"], e["offset"], r["local_date"], r["local_minute"]), mood=r["mood"],
        mood_label=e["label"], activities=e["activities"], note_title=e["title"],
        note=r["note"], time_known=e["time_known"], import_key=r["import_key"],
        location=tuple(e["location"]) if e["location"] else None, song=song, metrics=values)
