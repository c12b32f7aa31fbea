"""Migrations: NNNN_name.sql files applied in order, all of them in one BEGIN IMMEDIATE."""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kmood_lib.core.db import transaction

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"
_MIGRATION_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_FORBIDDEN_FIRST_WORDS = {
    "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE",
    "PRAGMA", "VACUUM", "ATTACH", "DETACH",
}


class MigrationError(Exception):
    """The database cannot be brought to this build's schema; start-up must stop (exit 3)."""


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


def run(conn: sqlite3.Connection, migrations: list[Migration], now_ms: Callable[[], int]
        ) -> list[int]:
    """Bring the database to this build's schema in one BEGIN IMMEDIATE; return versions applied.

    1. turn foreign keys off on this connection (before BEGIN: inside a transaction the pragma
       does nothing), so a table can be rebuilt without cascading deletes into its children;
    2. take the write lock before reading anything, so two processes starting at once never
       both read a version as pending (a deferred BEGIN's read->write upgrade fails in WAL);
    3. apply what is pending (apply_pending);
    4. `PRAGMA foreign_key_check` when anything ran: any violation rolls everything back (MigrationError);
       commit once at the end; foreign keys are back on afterwards, whatever happened.
    """
    conn.execute("PRAGMA foreign_keys = OFF")
    try:
        with transaction(conn, immediate=True):
            done = apply_pending(conn, migrations, now_ms)
            if done:
                _check_foreign_keys(conn)
            return done
    finally:
        conn.execute("PRAGMA foreign_keys = ON")


def _check_foreign_keys(conn: sqlite3.Connection) -> None:
    broken = conn.execute("PRAGMA foreign_key_check").fetchall()
    if broken:
        table, rowid, parent, _ = tuple(broken[0])
        raise MigrationError(
            f"the migrations would leave {len(broken)} row(s) pointing at missing parents "
            f"(first: {table} row {rowid} -> {parent}); nothing was changed")


def apply_pending(conn: sqlite3.Connection, migrations: list[Migration],
                  now_ms: Callable[[], int]) -> list[int]:
    """Inside the caller's transaction: create schema_migrations if missing, refuse (MigrationError)
    a recorded version this build does not know or a recorded checksum that differs from the
    file's, then run each pending file statement by statement and record it."""
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
