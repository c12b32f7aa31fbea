"""Job kinds (each a sweeper query plus a handler, registered together) and the prompt path.

The sweeps are the truth: a kind's sweeper finds the work in domain state. The server's
prompt enqueue after a save only makes that work start sooner; if it cannot get the lock in
KMOOD_HOOK_BUSY_TIMEOUT_MS it gives up, and the next sweep finds the same work.
"""

from __future__ import annotations

import logging

from kmood_lib.core.db import transaction
from kmood_lib.enrich.places import place_kind
from kmood_lib.enrich.song_metadata import song_metadata_kind
from kmood_lib.enrich.weather import weather_kind
from kmood_lib.queue import jobs
from kmood_lib.reminders.delivery import reminder_kind

log = logging.getLogger(__name__)


def production_kinds(config) -> list[jobs.JobKind]:
    """The kinds this build runs in production (enrichment and reminders register here)."""
    return [weather_kind(config), place_kind(config), song_metadata_kind(config),
            reminder_kind(config)]


def prompt_enqueue_hook(services):
    """The post-save hook: enqueue every kind's work for the saved entry, in its own small
    transaction on the short-timeout hook connection."""
    policy = jobs.Policy.from_config(services.config)
    prompt_kinds = [kind for kind in services.job_kinds if kind.prompt]

    def enqueue_for_entry(conn, user_id: int, entry_id: int, now_ms: int) -> list[str]:
        """Returns the kinds that have work for the entry (queued now, or already live)."""
        kinds = []
        with transaction(conn):
            for kind in prompt_kinds:
                for key, payload in kind.prompt(conn, user_id, entry_id, now_ms):
                    jobs.enqueue(conn, services.job_kinds, kind.name, key, payload, now_ms,
                                 policy)
                    if kind.name not in kinds:
                        kinds.append(kind.name)
        return kinds

    return enqueue_for_entry
