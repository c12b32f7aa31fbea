"""The `insights` job kind: the standard ranges' insights computed ahead of a visit (SPEC §11).

1. The sweeper finds people with a journal whose stored insights (journal.insight_store) are
   missing, older than their journal version, computed under other settings, or from an
   earlier day; one job each, keyed `insights:<user id>`. Saving an entry queues the same job
   (the prompt path), due SETTLE_MS later so that a burst of saves is one job; a visit that
   finds the stored ones out of date queues it due at once (not while a failed one cools
   down), and a job that finds the journal changed while it ran queues the next.
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
from kmood_lib.journal.versions import journal_version
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
                          prompt=sweeps.Prompt(_PROMPT, lambda user_id, entry_id, now_ms: (
                              key_of(user_id), user_id)))


_PROMPT = "SELECT ? AS key, json_object('user_id', ?) AS payload"


def handle_insights(ctx) -> None:
    services, conn = ctx.services, ctx.conn
    user_id = int(ctx.payload["user_id"])
    user = conn.execute("SELECT timezone FROM users WHERE id = ?", (user_id,)).fetchone()
    limits = thresholds_from(services.config)
    today = local_today(services.clock, user["timezone"]) if user else None
    if user is None or insight_store.is_current(conn, user_id, limits, today,
                                                services.clock.now_ms()):
        with ctx.completing():  # gone, or already computed by an earlier job
            return
    # the claim is kept between ranges; if it was reclaimed meanwhile, completing() says so
    computed = insight_store.compute_standard(conn, user_id, today, limits, ctx.extend_lease)
    with ctx.completing() as conn:
        insight_store.save(conn, user_id, computed, limits,
                           insight_store.end_of_day_ms(today, user["timezone"]),
                           services.clock.now_ms())
    log.info("insights for user %d computed: %s", user_id,
             ", ".join(f"{c['range']} in {c['took_ms']} ms (version {c['version']})"
                       for c in computed))
    if journal_version(conn, user_id) > min(c["version"] for c in computed):
        # saved while this job ran (its own enqueue found this job live): go again
        queue_job(services, conn, user_id, SETTLE_MS)


def queue_job(services, conn: sqlite3.Connection, user_id: int, delay_ms: int = 0) -> str:
    """Make sure a job is on its way for the person, without waiting on one that failed:
    "queued" (now, or one already was), "failed" (the last one was exhausted and is cooling
    down, as the sweep respects), or "not queued" (the database would not take it now: the
    sweep will). A probe first, so that a visit that finds a job queued writes nothing."""
    key, policy, now_ms = key_of(user_id), jobs.Policy.from_config(services.config), \
        services.clock.now_ms()
    found = conn.execute(
        f"SELECT max({jobs.LIVE_SQL}) AS live, max(status = 'exhausted' AND"
        " coalesce(finished_at, updated_at) > ?) AS cooling FROM jobs WHERE kind = ? AND key = ?",
        (now_ms - policy.cooldown_ms, KIND, key)).fetchone()
    if found["live"]:
        return "queued"
    if found["cooling"]:
        return "failed"
    try:
        with transaction(conn):
            sweeps.enqueue(conn, services.job_kinds, KIND, key, {"user_id": user_id}, now_ms,
                           policy, run_after_ms=now_ms + delay_ms)
    except sqlite3.Error as exc:
        log.warning("insights for user %d are out of date; queueing them now failed (%s):"
                    " the sweep will", user_id, exc)
        return "not queued"
    services.relay.wake()
    return "queued"


def standard_insights(services, conn: sqlite3.Connection, user_id: int, key: str, today: date
                      ) -> dict:
    """A standard range's insights for a visit: the stored ones at once, marked `updating`
    while a newer computation is on its way (`outdated` when the last one failed); computed
    on demand (through the insights gate) only when none are stored yet, with the job queued
    to follow it, so that the next visit finds them."""
    limits = thresholds_from(services.config)
    stored = insight_store.read(conn, user_id, key, limits, today, services.clock.now_ms())
    if stored is None:
        date_from, date_to = insight_store.standard_range(conn, user_id, key, today)
        found = insights.cached_insights(conn, services.insight_cache, user_id, date_from,
                                         date_to, today, limits, services.insight_gate)
        queue_job(services, conn, user_id, SETTLE_MS)  # after this computation, not beside it
        return {**found, "updating": False, "outdated": False, "computed_at": None}
    state = "current" if stored.current else queue_job(services, conn, user_id)
    return {**stored.body, "on_this_day": looking_back.on_this_day(conn, user_id, today),
            "updating": state in ("queued", "not queued"), "outdated": state == "failed",
            "computed_at": stored.computed_at}
