"""Politeness towards upstreams, shared by every worker process through the database.

Nominatim and MusicBrainz allow one request a second from the whole deployment: each request
claims the next slot in `upstream_slots` with one UPDATE ... RETURNING and waits for it.
Open-Meteo counts weighted calls per minute, hour and day: each request books its weight in
`upstream_budgets` under BEGIN IMMEDIATE, and waits for the window to roll over when full.
Waiting longer than MAX_WAIT_MS hands the job back to the queue instead.
"""

from __future__ import annotations

import time

from kmood_lib.db import transaction

MAX_WAIT_MS = 30_000


class UpstreamBusy(Exception):
    """The upstream's allowance is taken for a while: try the job again after that."""

    def __init__(self, upstream: str, delay_ms: int):
        super().__init__(f"{upstream}: no request allowed for the next {delay_ms / 1000:.0f} s")
        self.retry_after_s = delay_ms / 1000


def claim_slot(conn, upstream: str, now_ms: int, interval_ms: int) -> int:
    """The moment this request may go out: one statement takes the next free slot for the
    upstream, so two processes can never take the same one."""
    rows = conn.execute("UPDATE upstream_slots SET next_at = max(next_at, ?) + ?"
                        " WHERE upstream = ? RETURNING next_at - ?",
                        (now_ms, interval_ms, upstream, interval_ms)).fetchall()
    return rows[0][0]


def wait_for_slot(ctx, upstream: str) -> None:
    """Claim the next slot and wait for it (never sending early), or give the job back."""
    interval_ms = ctx.services.config.polite_interval_ms
    slot = claim_slot(ctx.conn, upstream, ctx.services.clock.now_ms(), interval_ms)
    delay_ms = slot - ctx.services.clock.now_ms()
    if delay_ms > MAX_WAIT_MS:
        raise UpstreamBusy(upstream, delay_ms)
    if delay_ms > 0:
        time.sleep(delay_ms / 1000)  # pacing an outside request, as the upstream asks


def book(conn, upstream: str, cost: float, now_ms: int) -> int:
    """Book `cost` calls in every window of the upstream's budget: 0 when booked, else the
    milliseconds until the fullest window rolls over (nothing booked)."""
    with transaction(conn):
        windows = conn.execute("SELECT span_ms, capacity, window_start, used"
                               " FROM upstream_budgets WHERE upstream = ?", (upstream,)).fetchall()
        wait_ms = 0
        for w in windows:
            current = now_ms < w["window_start"] + w["span_ms"]
            if current and w["used"] + cost > w["capacity"]:
                wait_ms = max(wait_ms, w["window_start"] + w["span_ms"] - now_ms)
        if wait_ms:
            return wait_ms
        conn.execute(
            "UPDATE upstream_budgets SET"
            " used = CASE WHEN ? < window_start + span_ms THEN used ELSE 0 END + ?,"
            " window_start = CASE WHEN ? < window_start + span_ms THEN window_start"
            " ELSE ? - ? % span_ms END WHERE upstream = ?",
            (now_ms, cost, now_ms, now_ms, now_ms, upstream))
    return 0


def wait_for_budget(ctx, upstream: str, cost: float) -> None:
    """Book the request's weight, waiting (briefly) for room, or give the job back."""
    for _ in range(3):
        wait_ms = book(ctx.conn, upstream, cost, ctx.services.clock.now_ms())
        if not wait_ms:
            return
        if wait_ms > MAX_WAIT_MS:
            break
        time.sleep(wait_ms / 1000)  # the budget's window rolls over: wait rather than exceed
    raise UpstreamBusy(upstream, wait_ms)
