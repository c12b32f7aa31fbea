"""Politeness towards upstreams, shared by every worker process through the database.

Nominatim and MusicBrainz allow one request a second from the whole deployment: a request may
go only when it takes the upstream's slot in `upstream_slots` (one UPDATE ... RETURNING that
matches only a free slot). Open-Meteo counts weighted calls per minute, hour and day: each
request books its weight in `upstream_budgets` under BEGIN IMMEDIATE. When the slot is taken
or the budget is full, the job is handed back to the queue unattempted (jobs.Defer), due when
the upstream is free again: a worker never waits long on an upstream, so it keeps running
other kinds of work meanwhile.
"""

from __future__ import annotations

from kmood_lib.core.db import transaction
from kmood_lib.queue.jobs import Defer


class UpstreamBusy(Defer):
    """The upstream's allowance is taken until `not_before_ms`."""


def take_slot(conn, upstream: str, now_ms: int, interval_ms: int) -> int | None:
    """None when the request may go now (the slot is taken for it, in one statement, so two
    processes can never both take it); else the moment the slot is free again."""
    taken = conn.execute("UPDATE upstream_slots SET next_at = ? + ? WHERE upstream = ?"
                         " AND next_at <= ? RETURNING next_at",
                         (now_ms, interval_ms, upstream, now_ms)).fetchall()
    if taken:
        return None
    return conn.execute("SELECT next_at FROM upstream_slots WHERE upstream = ?",
                        (upstream,)).fetchone()[0]


def take_slot_now(conn, upstream: str, clock, interval_ms: int) -> int | None:
    """take_slot at the time read once the write lock is held: read before, a wait for the
    lock (another worker writing) would date the slot earlier than the request it lets go, and
    the next request could follow this one sooner than the interval."""
    with transaction(conn):
        return take_slot(conn, upstream, clock.now_ms(), interval_ms)


def wait_for_slot(ctx, upstream: str) -> None:
    """Take the upstream's slot, or hand the job back until the slot is free. A slot that
    frees within a quarter interval is waited for: a job due when the slot frees may wake a
    little before it (the previous request went out a little late)."""
    clock, interval_ms = ctx.services.clock, ctx.services.config.polite_interval_ms
    free_at = take_slot_now(ctx.conn, upstream, clock, interval_ms)
    if free_at is not None and 0 < free_at - clock.now_ms() <= interval_ms // 4:
        clock.sleep((free_at - clock.now_ms()) / 1000)  # under 250 ms at the default interval
        free_at = take_slot_now(ctx.conn, upstream, clock, interval_ms)
    if free_at is not None:
        raise UpstreamBusy(f"waiting for a {upstream} request slot (one per"
                           f" {interval_ms} ms across all workers)", free_at, interval_ms)


def book(conn, upstream: str, cost: float, now_ms: int) -> int:
    """Book `cost` calls in every window of the upstream's budget: 0 when booked, else the
    moment the fullest window rolls over (nothing booked)."""
    with transaction(conn):
        windows = conn.execute("SELECT span_ms, capacity, window_start, used"
                               " FROM upstream_budgets WHERE upstream = ?", (upstream,)).fetchall()
        free_at = 0
        for w in windows:
            ends = w["window_start"] + w["span_ms"]
            if now_ms < ends and w["used"] + cost > w["capacity"]:
                free_at = max(free_at, ends)
        if free_at:
            return free_at
        conn.execute(
            "UPDATE upstream_budgets SET"
            " used = CASE WHEN ? < window_start + span_ms THEN used ELSE 0 END + ?,"
            " window_start = CASE WHEN ? < window_start + span_ms THEN window_start"
            " ELSE ? - ? % span_ms END WHERE upstream = ?",
            (now_ms, cost, now_ms, now_ms, now_ms, upstream))
    return 0


def wait_for_budget(ctx, upstream: str, cost: float) -> None:
    """Book the request's weight, or hand the job back until the budget has room."""
    free_at = book(ctx.conn, upstream, cost, ctx.services.clock.now_ms())
    if free_at:
        raise UpstreamBusy(f"{upstream}'s fair-use budget is spent until its window rolls"
                           f" over", free_at)
