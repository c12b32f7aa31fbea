"""The thin SQLite layer: connections with explicit pragmas, explicit transactions, migrations."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
SQLITE_BUSY = 5
_MIGRATION_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_FORBIDDEN_FIRST_WORDS = {
    "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE",
    "PRAGMA", "VACUUM", "ATTACH", "DETACH",
}


class MigrationError(Exception):
    """The database cannot be brought to this build's schema; start-up must stop (exit 3)."""


class Connection(sqlite3.Connection):
    """A sqlite3 connection that may share a process-wide writer lock with its siblings.

    Threads of one process queue on `write_lock` (a fast mutex) before BEGIN IMMEDIATE instead
    of in SQLite's busy handler, which sleeps in steps of up to 100 ms; other processes are
    still held off by SQLite's own lock and busy_timeout.
    """

    write_lock: threading.Lock | None = None


def connect(path: str, busy_timeout_ms: int, write_lock: threading.Lock | None = None,
            autocheckpoint_pages: int | None = None) -> sqlite3.Connection:
    """Open a connection with no implicit transactions, an explicit busy timeout, WAL and FKs.

    1. `busy_timeout` first, so every later statement waits for locks;
    2. `journal_mode=WAL`, retried on SQLITE_BUSY until the busy timeout has elapsed, because
       two processes opening a fresh file at once collide on it and busy_timeout does not cover it;
    3. `foreign_keys=ON`, `synchronous=NORMAL`; rows come back as mappings (sqlite3.Row);
    4. `wal_autocheckpoint` when given: the services raise it so that a save does not pay for
       copying the WAL back (and its fsync) while holding the write lock; the worker checkpoints.
    """
    if path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=True,
                           factory=Connection)
    conn.write_lock = write_lock
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        _enable_wal(conn, path, busy_timeout_ms)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
        if autocheckpoint_pages is not None:
            conn.execute(f"PRAGMA wal_autocheckpoint = {int(autocheckpoint_pages)}")
    except BaseException:
        conn.close()
        raise
    conn.row_factory = sqlite3.Row
    return conn


def checkpoint(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """Copy committed WAL frames into the database file without blocking anyone (PASSIVE);
    returns (busy, frames in the WAL, frames checkpointed)."""
    return tuple(conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone())


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
        lock.acquire()
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

    def close_all(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            with contextlib.suppress(sqlite3.Error):
                conn.close()


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str
    checksum: str

    @property
    def statements(self) -> list[str]:
        return split_statements(self.sql, f"{self.version:04d}_{self.name}.sql")


def load_migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """Read NNNN_name.sql files in version order; refuse stray or duplicate names."""
    found: dict[int, Migration] = {}
    for path in sorted(Path(directory).glob("*.sql")):
        match = _MIGRATION_FILE.match(path.name)
        if not match:
            raise MigrationError(f"migration file {path.name} is not named NNNN_name.sql")
        version = int(match.group(1))
        if version in found:
            raise MigrationError(f"two migration files have version {version:04d}")
        data = path.read_bytes()
        found[version] = Migration(
            version, match.group(2), data.decode("utf-8"), hashlib.sha256(data).hexdigest()
        )
    return [found[v] for v in sorted(found)]


def split_statements(sql: str, source: str = "<sql>") -> list[str]:
    """Split plain DDL/DML into statements with sqlite3.complete_statement; refuse BEGIN/PRAGMA."""
    statements, buffer = [], ""
    for line in sql.splitlines(keepends=True):
        if not buffer.strip() and (not line.strip() or line.lstrip().startswith("--")):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        raise MigrationError(f"{source}: incomplete statement at the end: {buffer.strip()[:60]!r}")
    for statement in statements:
        first = re.sub(r"^(\s|--[^\n]*\n)*", "", statement).split(None, 1)[0].upper().rstrip(";")
        if first in _FORBIDDEN_FIRST_WORDS:
            raise MigrationError(
                f"{source}: migrations hold plain statements only, found {first}"
            )
    return statements


_SCHEMA_MIGRATIONS = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at INTEGER NOT NULL
)"""


def migrate(
    conn: sqlite3.Connection,
    migrations: list[Migration],
    now_ms: Callable[[], int],
    *,
    _single_transaction: bool = True,
    _pause_after_read_s: float = 0.0,
) -> list[int]:
    """Bring the database to this build's schema in one BEGIN IMMEDIATE; return versions applied.

    1. take the write lock, create schema_migrations if missing;
    2. refuse (MigrationError, nothing changed) a recorded version this build does not know
       or a recorded checksum that differs from the file's;
    3. run each pending file statement by statement and record it; commit once at the end.
    The underscored arguments exist only for the test that proves the race is real.
    """
    if _single_transaction:
        with transaction(conn, immediate=True):
            return _migrate_locked(conn, migrations, now_ms, _pause_after_read_s)
    return _migrate_locked(conn, migrations, now_ms, _pause_after_read_s)


def _migrate_locked(conn, migrations, now_ms, pause_after_read_s) -> list[int]:
    conn.execute(_SCHEMA_MIGRATIONS)
    applied = {
        row["version"]: row
        for row in conn.execute("SELECT version, name, checksum FROM schema_migrations")
    }
    known = {m.version: m for m in migrations}
    unknown = sorted(set(applied) - set(known))
    if unknown:
        raise MigrationError(
            f"the database has migration {unknown[-1]:04d} ({applied[unknown[-1]]['name']}), "
            f"which this build does not know (newest known: "
            f"{max(known) if known else 0:04d}); run a newer k-mood or restore a backup"
        )
    for version, row in applied.items():
        if row["checksum"] != known[version].checksum:
            raise MigrationError(
                f"migration {version:04d}_{row['name']}.sql was edited after it was applied "
                f"(checksum differs); landed migrations must never change"
            )
    if pause_after_read_s:
        time.sleep(pause_after_read_s)
    done = []
    for migration in migrations:
        if migration.version in applied:
            continue
        for statement in migration.statements:
            try:
                conn.execute(statement)
            except sqlite3.Error as exc:
                raise MigrationError(
                    f"migration {migration.version:04d}_{migration.name}.sql failed: {exc}"
                ) from exc
        conn.execute(
            "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
            (migration.version, migration.name, migration.checksum, now_ms()),
        )
        done.append(migration.version)
        log.info("applied migration %04d_%s", migration.version, migration.name)
    return done
