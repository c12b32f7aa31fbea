"""The `insights` job kind: the standard ranges' insights computed ahead of a visit (SPEC §11).

1. The sweeper finds people with a journal whose stored insights (journal.insight_store) are
   missing, older than their journal version, computed under other settings, or from an
   earlier day; one job each, keyed `insights:<user id>`. Saving an entry queues the same job
   (the prompt path), due SETTLE_MS later so that a burst of saves is one job; a visit that
   finds the stored ones out of date queues it due at once.
2. The handler computes each standard range in its own read snapshot (so each row carries
   the version it was computed from, and no snapshot is held across ranges), extending the
   lease between them, and stores all of them in the transaction that completes the job.
"""

from __future__ import annotations

import logging
import sqlite3
from datetime import date

from kmood_lib.core.db import transaction
from kmood_lib.core.timezones import local_today
from kmood_lib.journal import insight_store, insights, looking_back
from kmood_lib.journal.insights import thresholds_from
from kmood_lib.queue import jobs, sweeps

log = logging.getLogger(__name__)

KIND = "insights"
# A save queues the job this long after it: the saves of a burst (an outbox catching up, a
# person fixing three entries) share one computation instead of one each.
SETTLE_MS = 10_000


def key_of(user_id: int) -> str:
    return f"insights:{user_id}"


def insights_kind(config) -> sweeps.JobKind:
    settings = insight_store.settings_of(thresholds_from(config))
    return sweeps.JobKind(KIND, insight_store.STALE_SQL, handle_insights,
                          sweep_params=lambda now_ms: (settings, now_ms),
                          prompt_delay_ms=SETTLE_MS,
                          prompt=lambda conn, user_id, entry_id, now_ms: [
                              (key_of(user_id), {"user_id": user_id})])


def handle_insights(ctx) -> None:
    services, conn = ctx.services, ctx.conn
    user_id = int(ctx.payload["user_id"])
    user = conn.execute("SELECT timezone FROM users WHERE id = ?", (user_id,)).fetchone()
    limits = thresholds_from(services.config)
    if user is None or insight_store.is_current(conn, user_id, limits, services.clock.now_ms()):
        with ctx.completing():  # gone, or already computed by an earlier job
            return
    today = local_today(services.clock, user["timezone"])
    # the claim is kept between ranges; if it was reclaimed meanwhile, completing() says so
    computed = insight_store.compute_standard(conn, user_id, today, limits, ctx.extend_lease)
    with ctx.completing() as conn:
        insight_store.save(conn, user_id, computed, limits,
                           insight_store.end_of_day_ms(today, user["timezone"]),
                           services.clock.now_ms())
    log.info("insights for user %d computed: %s", user_id,
             ", ".join(f"{c['range']} in {c['took_ms']} ms (version {c['version']})"
                       for c in computed))


def prompt_visit(services, conn: sqlite3.Connection, user_id: int) -> bool:
    """A visit found the stored insights out of date: make sure a job is on its way (a probe
    first, so a visit that finds one queued writes nothing). False when none could be queued
    (the database is busy or read-only: the sweep will)."""
    key = key_of(user_id)
    if conn.execute(f"SELECT 1 FROM jobs WHERE kind = ? AND key = ? AND {jobs.LIVE_SQL}",
                    (KIND, key)).fetchone():
        return True
    try:
        with transaction(conn):
            sweeps.enqueue(conn, services.job_kinds, KIND, key, {"user_id": user_id},
                           services.clock.now_ms(), jobs.Policy.from_config(services.config))
    except sqlite3.Error as exc:
        log.warning("insights for user %d are out of date; queueing them now failed (%s):"
                    " the sweep will", user_id, exc)
        return False
    services.relay.wake()
    return True


def standard_insights(services, conn: sqlite3.Connection, user_id: int, key: str, today: date
                      ) -> dict:
    """A standard range's insights for a visit: the stored ones at once, marked `updating`
    while a newer computation is on its way; computed on demand (through the insights gate)
    only when none are stored yet, with the job queued so that the next visit finds them."""
    limits = thresholds_from(services.config)
    stored = insight_store.read(conn, user_id, key, limits, today, services.clock.now_ms())
    if stored is None or not stored.current:
        prompt_visit(services, conn, user_id)
    if stored is None:
        date_from, date_to = insight_store.standard_range(conn, user_id, key, today)
        return {**insights.cached_insights(conn, services.insight_cache, user_id, date_from,
                                           date_to, today, limits, services.insight_gate),
                "updating": False, "computed_at": None}
    return {**stored.body, "on_this_day": looking_back.on_this_day(conn, user_id, today),
            "updating": not stored.current, "computed_at": stored.computed_at}
