"""An import run: the user's one import slot, held by a lease on the injected clock, its
transactions taking turns with every other writer.

An import used to write a whole file in one transaction, holding every writer off for as long
as it took (a 200 000-row file: ten seconds; a million rows: over a minute), and to hold every
row in memory. Now:

1. `begin` takes the user's one import slot (a second import of the same user is refused while
   the first one's lease runs; an expired run is finished or dropped first).
2. `staging.stage` writes the rows as they are read into `import_rows`, a batch per short
   transaction; nothing reads that table but the import. A row whose import key came earlier
   in the file is a duplicate already.
3. Only a file that was read whole and found fit goes on: `publishing.publish` walks the staged
   rows oldest first, a batch per short transaction — decides which are already in the journal
   (`duplicates.Deduplicator`), inserts the rest, and deletes the batch from the staging.
   Between batches the database is left alone for as long as the batch held it, so other
   writers — in this process or another — get their turn (`Pacer`: the next batch is read and
   decoded in that time, only the rest is waited for).
4. `publishing.finish` puts back what a k-mood export carries besides entries, and ends the run.

A run that dies (its lease runs out) is finished from what is left in the staging when it was
publishing, dropped when it was still staging: by the next import of that user or by the
worker (`recovery.recover`). Nothing reaches the journal before the whole file was read and
checked, and every staged row reaches it exactly once. A run's time is its clock's (the
services' clock; a fake one in tests), so its lease runs out when that clock says so.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from kmood_lib.core.clock import SystemClock
from kmood_lib.core.db import storage_error, transaction
from kmood_lib.core.errors import Busy, Conflict
from kmood_lib.core.i18n import Phrase

log = logging.getLogger(__name__)

LEASE_MS = 60_000  # KMOOD_IMPORT_LEASE_S: a run not renewed for this long has died
PHOTO_BATCH = 16  # staged photos or memos a transaction moves or deletes (images are big)
DROP_BATCH = 5000  # staged rows a dropping transaction deletes
MIN_PAUSE_S = 0.002
MAX_PAUSE_S = 0.1
BUSY_RETRIES = 5  # a batch that waited a whole busy timeout tries again this often
BUSY_PAUSE_S = 0.25


class ImportRunning(Conflict):
    def __init__(self):
        super().__init__(Phrase("An import of yours is already running: wait for it to finish,"
                                " then try again."),
                         {"file": Phrase("an import of yours is already running")})


class RunLost(Busy):
    """This process's lease on a run ran out and another took the run over: stop writing."""

    def __init__(self):
        super().__init__(Phrase("The import was taken over after it stalled; it is being"
                                " finished elsewhere. Nothing is lost or doubled."),
                         max(1, LEASE_MS // 1000))


class Pacer:
    """Other writers' turn between an import's transactions: before each one, the database
    has been left alone for as long as the last one held it (at least MIN_PAUSE_S, at most
    MAX_PAUSE_S). Work done outside the transactions (reading the file, decoding the next
    batch) counts; only what is still owed is waited for, on the clock's `sleep`."""

    def __init__(self, monotonic: Callable[[], float], sleep: Callable[[float], None]) -> None:
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


def pacer_of(clock) -> Pacer:
    """A pacer that measures and waits on `clock` (its `monotonic` and `sleep`)."""
    return Pacer(clock.monotonic, clock.sleep)


@dataclass
class Run:
    """A run this process holds: its lease is renewed on `clock` by every transaction it
    makes, and those transactions take turns with other writers (`pacer`)."""

    id: int
    user_id: int
    owner: str
    clock: SystemClock  # the services' clock (a FakeClock in tests)
    lease_ms: int = LEASE_MS
    pacer: Pacer = field(init=False)

    def __post_init__(self) -> None:
        self.pacer = pacer_of(self.clock)

    def now_ms(self) -> int:
        return self.clock.now_ms()

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


def patiently(step: Callable[[], object], sleep: Callable[[float], None]) -> object:
    """Run one batch's transaction; one that waited the whole busy timeout for another writer
    (a burst of saves, a backup) is tried again a few times, after `sleep`, before the import
    gives up."""
    for attempt in range(BUSY_RETRIES + 1):
        try:
            return step()
        except sqlite3.OperationalError as exc:
            if attempt == BUSY_RETRIES or not isinstance(storage_error(exc), Busy) \
                    or getattr(exc, "sqlite_errorcode", 0) & 0xFF not in (5, 6):
                raise
            log.info("an import batch waited out the busy timeout; trying again")
            sleep(BUSY_PAUSE_S * (attempt + 1))
    raise AssertionError("unreachable")


def begin(conn: sqlite3.Connection, user_id: int, clock,
          finish_expired: Callable[[Run], object], lease_ms: int = LEASE_MS) -> Run:
    """The user's import slot, its lease on `clock`; raises ImportRunning while another run
    of theirs is alive. An expired run of theirs is claimed and finished (publishing:
    `finish_expired(run)`) or dropped (staging) first."""
    row = conn.execute("SELECT id, state, lease_until FROM import_runs WHERE user_id = ?",
                       (user_id,)).fetchone()
    if row is not None:
        if row["lease_until"] > clock.now_ms():
            raise ImportRunning()
        expired = claim(conn, row["id"], user_id, clock, lease_ms)
        if expired is None:
            raise ImportRunning()  # another request took it over just now
        if row["state"] == "publishing":
            finish_expired(expired)
        else:
            drop(conn, row["id"], clock)
    now_ms = clock.now_ms()  # finishing the old one took time
    owner = secrets.token_hex(8)
    try:
        with transaction(conn):
            run_id = conn.execute(
                "INSERT INTO import_runs (user_id, state, owner, lease_until, created_at)"
                " VALUES (?, 'staging', ?, ?, ?) RETURNING id",
                (user_id, owner, now_ms + lease_ms, now_ms)).fetchall()[0][0]
    except sqlite3.IntegrityError:
        raise ImportRunning() from None
    return Run(run_id, user_id, owner, clock, lease_ms)


def claim(conn, run_id: int, user_id: int, clock, lease_ms: int) -> Run | None:
    """Take over an expired run (one statement: two takers cannot both win): the run as this
    process now holds it, or None when its lease has not run out on `clock`."""
    owner, now_ms = secrets.token_hex(8), clock.now_ms()
    taken = conn.execute(
        "UPDATE import_runs SET lease_until = ?, owner = ? WHERE id = ? AND lease_until <= ?"
        " RETURNING id", (now_ms + lease_ms, owner, run_id, now_ms)).fetchall()
    return Run(run_id, user_id, owner, clock, lease_ms) if taken else None


def drop(conn, run_id: int, clock) -> None:
    """A run and its staged rows and photos, deleted in short steps paced on `clock`."""
    pacer = pacer_of(clock)
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
