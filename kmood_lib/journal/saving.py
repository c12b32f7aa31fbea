"""Saving entries as the API and the forms do it: one path for POST/PATCH /api/entries and the
log and edit pages — the same checks, the same one-transaction save through the process's
shared write connection (under the write lock), the same post-save hooks."""

from __future__ import annotations

import logging
from zoneinfo import ZoneInfo

from kmood_lib.journal import vocab, writes
from kmood_lib.journal.entry_input import EntryInput, parse_entry, utc_now

log = logging.getLogger(__name__)


def checked(services, conn, user, body: dict, patch: bool) -> EntryInput:
    defs = vocab.metric_defs(conn, user.id) if body.get("metrics") else {}
    return parse_entry(body, tz=ZoneInfo(user.timezone), now=utc_now(services.clock),
                       metric_defs=defs, patch=patch)


def create(services, conn, user, body: dict, source: str) -> writes.Saved:
    """Check and save a new entry (ValidationError names bad fields); a replayed client_id
    returns the existing entry with `created` False."""
    data = checked(services, conn, user, body, patch=False)
    with services.writer() as writer:
        saved = writes.create_entry(writer, user.id, data, source, services.clock.now_ms())
        if saved.created:
            run_hooks(services, writer, user.id, saved.entry_id)
    return saved


def update(services, conn, user, entry_id: int, body: dict) -> bool:
    data = checked(services, conn, user, body, patch=True)
    with services.writer() as writer:
        changed = writes.update_entry(writer, user.id, entry_id, data, services.clock.now_ms())
        if changed:
            run_hooks(services, writer, user.id, entry_id)
    return changed


def after_save(services, user_id: int, entry_id: int) -> None:
    """The post-save hooks for an entry saved some other way (tests, tools)."""
    with services.writer() as writer:
        run_hooks(services, writer, user_id, entry_id)


def run_hooks(services, writer, user_id: int, entry_id: int) -> None:
    """Downstream notifications after the entry committed, in their own transactions on the
    same warm write connection while the lock is still held, with the short hook busy timeout
    (another process holding the database gives up quietly): failures are logged, never raised
    (the sweep will find the work)."""
    config = services.config
    writer.execute(f"PRAGMA busy_timeout = {int(config.hook_busy_timeout_ms)}")
    try:
        for hook in services.after_entry_saved:
            try:
                hook(writer, user_id, entry_id, services.clock.now_ms())
            except Exception as exc:
                log.warning("post-save hook %s gave up for entry %d: %s",
                            getattr(hook, "__name__", hook), entry_id, exc)
    finally:
        writer.execute(f"PRAGMA busy_timeout = {int(config.busy_timeout_ms)}")
