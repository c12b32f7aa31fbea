"""Saving entries from the web layer: one path for POST/PATCH /api/entries and the log and edit
forms — the same checks, the same one-transaction save, the same post-save hooks."""

from __future__ import annotations

import logging
from zoneinfo import ZoneInfo

from kmood_lib.journal import vocab, writes
from kmood_lib.journal.entry_input import parse_entry, utc_now

log = logging.getLogger(__name__)


class EntryWrites:
    """Built once per app. Saves and their post-save hooks go through the process's shared
    write connection, under the write lock."""

    def __init__(self, services):
        self.services = services

    def _input(self, conn, user, body: dict, patch: bool):
        defs = vocab.metric_defs(conn, user.id) if body.get("metrics") else {}
        return parse_entry(body, tz=ZoneInfo(user.timezone), now=utc_now(self.services.clock),
                           metric_defs=defs, patch=patch)

    def create(self, conn, user, body: dict, source: str) -> writes.Saved:
        """Check and save a new entry (ValidationError names bad fields); a replayed client_id
        returns the existing entry with `created` False."""
        data = self._input(conn, user, body, patch=False)
        with self.services.writer() as writer:
            saved = writes.create_entry(writer, user.id, data, source,
                                         self.services.clock.now_ms())
            if saved.created:
                self._after_save(writer, user.id, saved.entry_id)
        return saved

    def update(self, conn, user, entry_id: int, body: dict) -> bool:
        data = self._input(conn, user, body, patch=True)
        with self.services.writer() as writer:
            changed = writes.update_entry(writer, user.id, entry_id, data,
                                           self.services.clock.now_ms())
            if changed:
                self._after_save(writer, user.id, entry_id)
        return changed

    def after_save(self, user_id: int, entry_id: int) -> None:
        with self.services.writer() as writer:
            self._after_save(writer, user_id, entry_id)

    def _after_save(self, writer, user_id: int, entry_id: int) -> None:
        """Downstream notifications after the entry committed, in their own transactions on
        the same warm write connection while the lock is still held, with the short hook busy
        timeout (another process holding the database gives up quietly): failures are logged,
        never raised (the sweep will find the work)."""
        config = self.services.config
        writer.execute(f"PRAGMA busy_timeout = {int(config.hook_busy_timeout_ms)}")
        try:
            for hook in self.services.after_entry_saved:
                try:
                    hook(writer, user_id, entry_id, self.services.clock.now_ms())
                except Exception as exc:
                    log.warning("post-save hook %s gave up for entry %d: %s",
                                getattr(hook, "__name__", hook), entry_id, exc)
        finally:
            writer.execute(f"PRAGMA busy_timeout = {int(config.busy_timeout_ms)}")

    def close(self) -> None:
        pass
