"""Online backups with SQLite's backup API: a consistent copy while server and worker write,
checked with `PRAGMA integrity_check` before it takes its name. The worker keeps rotating
copies in KMOOD_BACKUP_DIR; `kmood.py backup DEST` takes one on demand.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from datetime import datetime, timezone
from pathlib import Path

log = logging.getLogger(__name__)

PREFIX, SUFFIX = "kmood-", ".db"


class BackupError(Exception):
    """The copy could not be made or did not check out; nothing was left under its name."""


def take_backup(db_path: str, dest: Path, busy_timeout_ms: int) -> dict:
    """Copy the database to `dest` (which must not exist) in one read snapshot; the copy is a
    single file (rollback journal, not WAL), checked before it is renamed into place."""
    dest = Path(dest)
    if dest.exists():
        raise BackupError(f"{dest} exists already; choose a new name")
    partial = dest.with_name(dest.name + ".partial")
    started = time.monotonic()
    if not Path(db_path).is_file():
        raise BackupError(f"there is no database at {db_path}")
    try:
        source = sqlite3.connect(db_path, isolation_level=None)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open the database {db_path}: {exc}") from None
    try:
        source.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        partial.unlink(missing_ok=True)
        target = sqlite3.connect(partial, isolation_level=None)
        try:
            source.backup(target)  # all pages in one step: one consistent snapshot
            target.execute("PRAGMA journal_mode = DELETE")
            check = target.execute("PRAGMA integrity_check").fetchall()
            if check != [("ok",)]:
                raise BackupError(f"the copy failed its integrity check: {check[:3]}")
            pages = target.execute("PRAGMA page_count").fetchone()[0]
        finally:
            target.close()
        with open(partial, "rb") as handle:
            os.fsync(handle.fileno())
        partial.replace(dest)
    except (sqlite3.Error, OSError) as exc:
        partial.unlink(missing_ok=True)
        raise BackupError(f"backup to {dest} failed: {exc}") from None
    except BackupError:
        partial.unlink(missing_ok=True)
        raise
    finally:
        source.close()
    size = dest.stat().st_size
    log.info("backup written to %s (%d pages, %d bytes) in %.1f s", dest, pages, size,
             time.monotonic() - started)
    return {"path": str(dest), "bytes": size, "pages": pages}


def backup_name(now_ms: int) -> str:
    stamp = datetime.fromtimestamp(now_ms / 1000, timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{PREFIX}{stamp}{SUFFIX}"


def rotating_backups(directory: Path) -> list[Path]:
    """The worker's backups in `directory`, oldest first (their names sort by time)."""
    return sorted(p for p in directory.glob(f"{PREFIX}*{SUFFIX}") if p.is_file())


def due(directory: Path, interval_s: float, now_ms: int) -> bool:
    """From the files themselves, so a restarted worker does not take an extra copy."""
    existing = rotating_backups(directory)
    return not existing or now_ms / 1000 - existing[-1].stat().st_mtime >= interval_s


def rotate(db_path: str, directory: Path, keep: int, busy_timeout_ms: int, now_ms: int) -> dict:
    """Take a backup into `directory`, then delete all but the newest `keep`."""
    directory.mkdir(parents=True, exist_ok=True)
    made = take_backup(db_path, directory / backup_name(now_ms), busy_timeout_ms)
    for old in rotating_backups(directory)[:-keep]:
        old.unlink(missing_ok=True)
        log.info("removed old backup %s (keeping %d)", old, keep)
    return made
