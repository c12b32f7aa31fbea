"""The maintenance the worker owns besides jobs: sweeps, session cleanup, job pruning, deleted
entries' client ids pruned, missed reminders, rotating backups and WAL checkpoints, each a step
run at its own interval."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import pending_sign_ins, throttle
from kmood_lib.core import db
from kmood_lib.journal import writes
from kmood_lib.portability import backup, recovery
from kmood_lib.queue import jobs, sweeps
from kmood_lib.reminders import delivery as reminder_delivery

if TYPE_CHECKING:
    from kmood_lib.bootstrap import Services

log = logging.getLogger(__name__)


def run_sweeps(services: Services, conn: sqlite3.Connection, now_ms: int) -> bool:
    inserted = sweeps.sweep_all(conn, services.job_kinds, now_ms, services.config.sweep_limit,
                                jobs.Policy.from_config(services.config))
    return any(inserted.values())


def clean_up_sessions(services: Services, conn: sqlite3.Connection, now_ms: int) -> bool:
    """Delete expired sessions, sign-ins never finished, and login failures that fell out of
    the throttle window."""
    sessions = auth_store.delete_expired_sessions(conn, now_ms)
    failures = throttle.prune_failures(conn, now_ms, services.config.login_window_s)
    unfinished = pending_sign_ins.prune(conn, now_ms)
    if sessions or failures or unfinished:
        log.info("cleaned up %d expired session(s), %d old login failure(s), %d sign-in(s)"
                 " never finished", sessions, failures, unfinished)
    return False


def prune_jobs(services: Services, conn: sqlite3.Connection, now_ms: int) -> bool:
    pruned = jobs.prune(conn, now_ms, jobs.Policy.from_config(services.config).retention_ms)
    if pruned:
        log.info("pruned %d finished job(s) older than the retention", pruned)
    return False


def prune_deleted_client_ids(services: Services, conn: sqlite3.Connection, now_ms: int) -> bool:
    """Forget deleted entries' client ids older than KMOOD_DELETED_CLIENT_IDS_KEEP_S: past it,
    an outbox that still holds such an entry would bring it back."""
    pruned = writes.prune_deleted_client_ids(conn, now_ms,
                                             services.config.deleted_client_ids_keep_s * 1000)
    if pruned:
        log.info("forgot %d deleted entries' client id(s) older than the retention", pruned)
    return False


def checkpoint_wal(services: Services, conn: sqlite3.Connection, now_ms: int) -> bool:
    """Copy the WAL back into the database file here, off the server's save path; once all of
    it is copied and nobody is writing, cut the file to zero so an idle deployment's WAL is
    small (a busy one is cut back to KMOOD_WAL_SIZE_LIMIT_BYTES whenever the WAL restarts).
    KMOOD_CHECKPOINT_MODE=passive copies and never truncates."""
    busy, frames, copied = db.checkpoint(conn)
    log.debug("WAL checkpoint: %d of %d frame(s) copied%s", copied, frames,
              " (readers kept the rest)" if copied < frames else "")
    if (services.config.checkpoint_mode == "truncate" and not busy and frames > 0
            and copied == frames):
        db.truncate_wal(conn)
    return False


def take_rotating_backup(services: Services, conn: sqlite3.Connection, now_ms: int) -> bool:
    """A backup into KMOOD_BACKUP_DIR when the newest one there is older than the interval."""
    config = services.config
    directory = Path(config.backup_dir)
    if backup.due(directory, config.backup_interval_s, now_ms):
        backup.rotate(config.db_path, directory, config.backup_keep, config.busy_timeout_ms,
                      now_ms)
    return False


BACKUP_CHECK_S = 60  # how often the worker looks whether a backup is due


def recover_imports(services: Services, conn: sqlite3.Connection, now_ms: int) -> bool:
    """Imports whose process died: finished when they were publishing, dropped when they were
    still being read (portability.recovery); their leases are on the services' clock."""
    config = services.config
    return recovery.recover(conn, now_ms, services.clock, config.allow_private_notify_urls,
                            config.import_lease_s * 1000) > 0


IMPORT_CHECK_S = 30  # how often the worker looks for imports that stopped half-way


MISSED_CHECK_S = 60  # how often it looks for reminder occurrences past their grace window


def maintenance_steps(services: Services) -> list[tuple[str, float, Callable]]:
    """(name, interval_s, step) for the maintenance the worker owns."""
    steps = [
        ("session_cleanup", services.config.session_cleanup_interval_s, clean_up_sessions),
        ("prune_jobs", services.config.session_cleanup_interval_s, prune_jobs),
        ("prune_deleted_client_ids", services.config.session_cleanup_interval_s,
         prune_deleted_client_ids),
        ("reminders_missed", MISSED_CHECK_S, reminder_delivery.record_missed),
        ("import_recovery", IMPORT_CHECK_S, recover_imports),
    ]
    if services.config.backup_dir:
        steps.append(("backup", min(BACKUP_CHECK_S, services.config.backup_interval_s),
                      take_rotating_backup))
    # Last, so an iteration's own writes (its heartbeats among them) are copied back too.
    # KMOOD_CHECKPOINT_MODE=off: Litestream replicates the WAL and owns the checkpoints.
    if services.config.checkpoint_mode != "off":
        steps.append(("wal_checkpoint", services.config.checkpoint_interval_s, checkpoint_wal))
    return steps
