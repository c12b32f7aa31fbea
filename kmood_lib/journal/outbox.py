"""A device's offline outbox as the server sees it: one log line per synced batch."""

from __future__ import annotations

import logging
import re
import threading

log = logging.getLogger(__name__)


class OutboxBatches:
    """A device sending its offline outbox marks each request `X-Kmood-Outbox: <batch> i/n`;
    the server writes one line per batch when its last item arrives: how many were new, were
    already here (a replay), had been deleted since (answered 410) or refused. At most MAX
    batches are followed at once (in memory: a restart loses only the count of a batch under
    way)."""

    MAX = 256
    HEADER = re.compile(r"([0-9a-f-]{8,36}) ([0-9]{1,6})/([0-9]{1,6})")

    def __init__(self):
        self.lock = threading.Lock()
        self.batches: dict[tuple[int, str], dict[str, int]] = {}

    def count(self, user, header: str | None, outcome: str) -> None:
        found = self.HEADER.fullmatch(header or "")
        if not found:
            return
        key, (i, n) = (user.id, found.group(1)), (int(found.group(2)), int(found.group(3)))
        with self.lock:
            tally = self.batches.pop(key, {"new": 0, "replayed": 0, "deleted": 0, "refused": 0})
            tally[outcome] += 1
            if i < n:
                self.batches[key] = tally
                while len(self.batches) > self.MAX:
                    del self.batches[next(iter(self.batches))]
                return
        deleted = f", {tally['deleted']} deleted since" if tally["deleted"] else ""
        log.info("outbox sync for %s: %d of %d entries sent (%d new, %d already here%s), "
                 "%d refused", user.username,
                 tally["new"] + tally["replayed"] + tally["deleted"], n, tally["new"],
                 tally["replayed"], deleted, tally["refused"])
