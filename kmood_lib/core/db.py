"""The thin SQLite layer: connections with explicit pragmas, explicit transactions, a
connection per server thread. Migrations are in migrate.py."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

from kmood_lib.core.errors import Busy, DomainError, StorageFull
from kmood_lib.core.text import name_key

log = logging.getLogger(__name__)

SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL = 5, 6, 8, 10, 13
RETRY_AFTER_S = 2


class WriteLockTimeout(sqlite3.OperationalError):
    """The process's write lock stayed taken past the busy timeout: what SQLite says of a
    writer in another process (SQLITE_BUSY), said of one in this process."""

    def __init__(self, waited_ms: int):
        super().__init__(f"database is locked (this process's writers held it for more than"
                         f" {waited_ms} ms)")
        self.sqlite_errorcode = SQLITE_BUSY
        self.sqlite_errorname = "SQLITE_BUSY"


def storage_error(exc: sqlite3.Error) -> DomainError | None:
    """A database error that says the storage cannot take a write now (busy past the timeout,
    a full disk, a read-only or failing file) as the refusal a person or client gets; None for
    any other (a bug, which stays a 500). Nothing was written in every case: the transaction
    that met it rolled back."""
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    if code in (SQLITE_BUSY, SQLITE_LOCKED):
        return Busy("The journal is busy with another write (an import, a backup) and could"
                    " not take this one in time. Nothing was saved; try again in a moment.",
                    RETRY_AFTER_S)
    if code == SQLITE_FULL:
        return StorageFull("The server's disk is full, so nothing was saved. Try again once"
                           " space has been freed; the server log says more.")
    if code in (SQLITE_READONLY, SQLITE_IOERR):
        return Busy("The server cannot write to its database right now (the file is"
                    " read-only or the disk failed), so nothing was saved. Try again later.",
                    RETRY_AFTER_S)
    return None


class DatabaseOpenError(Exception):
    """The database file cannot be opened or created (path, permissions, not a database)."""


# SQLite primary result codes that mean "this path is not usable", not "try again".
_CANNOT_OPEN = {3: "permission denied", 8: "read-only", 10: "I/O error", 14: "cannot open",
                23: "not authorised", 26: "not a database"}


class WriteLockNotHeld(RuntimeError):
    """The process's shared write connection was used by a thread not holding the write lock."""


def write_if_free(conn: sqlite3.Connection, sql: str, parameters=()) -> bool:
    """One autocommit write that is worth doing only if it costs nothing (a session's sliding
    expiry): never waits for another writer, and a busy, full or read-only database just skips
    it. Returns whether it was written."""
    lock = getattr(conn, "write_lock", None)
    if lock is not None and not lock.acquire(blocking=False):
        return False
    try:
        waited = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        try:
            conn.execute("PRAGMA busy_timeout = 0")
            conn.execute(sql, parameters)
            return True
        except sqlite3.OperationalError as exc:
            if storage_error(exc) is None:
                raise
            return False
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(waited)}")
    finally:
        if lock is not None:
            lock.release()


class OwnedLock:
    """The process's write lock: a plain mutex that also knows which thread holds it, so the
    shared write connection can refuse any use outside it. `with lock:` waits at most
    `wait_ms` (the busy timeout), then raises WriteLockTimeout as SQLite would."""

    def __init__(self, wait_ms: int | None = None):
        self._lock = threading.Lock()
        self._owner: int | None = None
        self.wait_ms = wait_ms

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if self._lock.acquire(blocking, timeout):
            self._owner = threading.get_ident()
            return True
        return False

    def release(self) -> None:
        self._owner = None
        self._lock.release()

    def held(self) -> bool:
        return self._owner == threading.get_ident()

    def locked(self) -> bool:
        return self._lock.locked()

    def __enter__(self) -> OwnedLock:
        if not self.acquire(timeout=-1 if self.wait_ms is None else self.wait_ms / 1000):
            raise WriteLockTimeout(self.wait_ms)
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class Connection(sqlite3.Connection):
    """A sqlite3 connection that may share a process-wide writer lock with its siblings, and
    can be put back into a clean state after whatever a request did with it.

    Threads of one process queue on `write_lock` (a fast mutex) before BEGIN IMMEDIATE instead
    of in SQLite's busy handler, which sleeps in steps of up to 100 ms; other processes are
    still held off by SQLite's own lock and busy_timeout.

    It remembers the cursors it made: a read that failed half-way (or was abandoned) leaves its
    statement un-reset, holding an old snapshot for as long as a traceback keeps the cursor
    alive; every later BEGIN IMMEDIATE on the connection then fails with "database is locked".
    `reset()` closes them all.
    """

    write_lock: threading.Lock | OwnedLock | None = None
    guard: OwnedLock | None = None  # set on the shared write connection: every use needs it held

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._cursors: weakref.WeakSet[sqlite3.Cursor] = weakref.WeakSet()

    def cursor(self, *args, **kwargs) -> sqlite3.Cursor:
        guard = self.guard
        if guard is not None and not guard.held():
            raise WriteLockNotHeld("the shared write connection was used without holding the "
                                   "process write lock (use services.writer())")
        return super().cursor(*args, **kwargs)

    def execute(self, sql: str, parameters=(), /) -> sqlite3.Cursor:
        cursor = self.cursor()
        self._cursors.add(cursor)
        return cursor.execute(sql, parameters)

    def executemany(self, sql: str, parameters, /) -> sqlite3.Cursor:
        cursor = self.cursor()
        self._cursors.add(cursor)
        return cursor.executemany(sql, parameters)

    def reset(self) -> None:
        """Every statement reset and no transaction open: what the next user may rely on."""
        for cursor in list(self._cursors):
            cursor.close()
        if self.in_transaction:
            log.warning("rolling back a transaction left open on a pooled connection")
            self.execute("ROLLBACK")


def connect(path: str, busy_timeout_ms: int, write_lock: threading.Lock | OwnedLock | None = None,
            autocheckpoint_pages: int | None = None,
            journal_size_limit_bytes: int | None = None,
            guard: OwnedLock | None = None, synchronous: str = "FULL",
            cache_bytes: int | None = None) -> sqlite3.Connection:
    """Open a connection with no implicit transactions, an explicit busy timeout, WAL and FKs.

    1. `busy_timeout` first, so every later statement waits for locks;
    2. `journal_mode=WAL`, retried on SQLITE_BUSY until the busy timeout has elapsed, because
       two processes opening a fresh file at once collide on it and busy_timeout does not cover it;
    3. `foreign_keys=ON`, `synchronous=FULL` unless told NORMAL (in WAL mode NORMAL lets a power
       cut roll back a commit already answered), `temp_store=MEMORY` (statement journals and
       sorts stay in memory: a write to a table with triggers keeps a statement journal, which
       otherwise spills to a temporary file — measured 2-3x the trigger's cost per row);
       rows come back as mappings (sqlite3.Row);
    4. `wal_autocheckpoint` when given: the services raise it so that a save does not pay for
       copying the WAL back (and its fsync) while holding the write lock; the worker checkpoints;
    5. `journal_size_limit` when given: the WAL file is cut back to it whenever it is reset;
       `cache_size` when given (in bytes): what the connection keeps of the file in memory;
    6. `kmood_name_key(text)`, the application's name key, for migrations that fill key columns.
    A path that cannot be opened at all raises DatabaseOpenError (a configuration problem).
    With `guard`, the connection may be used from any thread, but only by the one holding the
    guard (the process's shared write connection); transactions on it take no lock of their own.
    """
    try:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=guard is None,
                               factory=Connection)
    except (OSError, sqlite3.Error) as exc:
        raise DatabaseOpenError(f"cannot open the database {path}: {exc}") from None
    conn.write_lock = write_lock
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        _enable_wal(conn, path, busy_timeout_ms)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA synchronous = {'NORMAL' if synchronous == 'NORMAL' else 'FULL'}")
        conn.execute("PRAGMA temp_store = MEMORY")
        if autocheckpoint_pages is not None:
            conn.execute(f"PRAGMA wal_autocheckpoint = {int(autocheckpoint_pages)}")
        if journal_size_limit_bytes is not None:
            conn.execute(f"PRAGMA journal_size_limit = {int(journal_size_limit_bytes)}")
        if cache_bytes is not None:  # negative: in KiB, whatever the page size
            conn.execute(f"PRAGMA cache_size = {-max(1, int(cache_bytes) // 1024)}")
    except sqlite3.Error as exc:
        conn.close()
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        if code in _CANNOT_OPEN:
            raise DatabaseOpenError(f"cannot open the database {path}: {exc}") from None
        raise
    except BaseException:
        conn.close()
        raise
    conn.create_function("kmood_name_key", 1, _sql_name_key, deterministic=True)
    conn.row_factory = sqlite3.Row
    conn.guard = guard
    return conn


def _sql_name_key(value):
    return name_key(value) if isinstance(value, str) else value


def checkpoint(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """Copy committed WAL frames into the database file without blocking anyone (PASSIVE);
    returns (busy, frames in the WAL, frames checkpointed)."""
    return tuple(conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone())


def truncate_wal(conn: sqlite3.Connection) -> bool:
    """Reset the WAL file to zero bytes if that needs no waiting: TRUNCATE blocks writers while
    it waits for readers, so it runs with no busy timeout and simply gives up when anyone is
    in the way (the next idle moment will do). True when the WAL was truncated."""
    timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except sqlite3.OperationalError:  # locked: someone is writing right now
        busy = 1
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
    return not busy


def _enable_wal(conn: sqlite3.Connection, path: str, busy_timeout_ms: int) -> None:
    deadline = time.monotonic() + busy_timeout_ms / 1000
    pause = 0.001
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            break
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF != SQLITE_BUSY or time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
    if mode.lower() != "wal" and path != ":memory:":
        raise sqlite3.OperationalError(f"could not switch {path} to WAL (journal_mode={mode})")


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection, immediate: bool = True) -> Iterator[sqlite3.Connection]:
    """Run the block in one explicit transaction; IMMEDIATE takes the write lock up front."""
    lock = getattr(conn, "write_lock", None) if immediate else None
    if lock is not None:
        lock.__enter__()
    try:
        conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    finally:
        if lock is not None:
            lock.release()


class SharedWriter:
    """The process's one write connection, opened lazily and used only with the write lock held
    (`with writer() as conn:`): its page cache is not reset by the other threads' commits, as
    each thread's own connection's is."""

    def __init__(self, open_connection: Callable[[], sqlite3.Connection], lock: OwnedLock):
        self._open, self._lock = open_connection, lock
        self._conn: sqlite3.Connection | None = None

    @contextlib.contextmanager
    def __call__(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._conn is None:
                self._conn = self._open()
            yield self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class ConnectionPerThread:
    """Hands each thread its own connection, opened on first use (sqlite3 objects stay put)."""

    def __init__(self, open_connection: Callable[[], sqlite3.Connection]):
        self._open = open_connection
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def get(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def release(self) -> None:
        """Hand this thread's connection back clean (see Connection.reset); a connection that
        cannot even be reset is closed, and the thread's next get() opens a new one."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            return
        try:
            conn.reset()
        except sqlite3.Error as exc:
            log.warning("discarding a connection that could not be reset: %s", exc)
            self._local.conn = None
            with self._lock:
                self._all.remove(conn)
            with contextlib.suppress(sqlite3.Error):
                conn.close()

    def close_all(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            with contextlib.suppress(sqlite3.Error):
                conn.close()


