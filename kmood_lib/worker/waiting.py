"""Waiting for work between iterations that found none, cheaply.

1. Wake at the next full poll (KMOOD_POLL_INTERVAL_S), or sooner at the earliest run_after or
   the next due periodic step.
2. Every KMOOD_WAKE_INTERVAL_MS read PRAGMA data_version (it changes when another connection
   commits); on a change, look again at the earliest run_after: a job now due wakes at once,
   one queued for later only moves the wake-up earlier. A commit with no due job (a heartbeat,
   a session touch) starts no iteration, so workers never wake each other in a loop.
3. A poke (the NATS relay's message) or a stop wakes at once; the heartbeat goes on meanwhile.
"""

from __future__ import annotations

import sqlite3

from kmood_lib.queue import jobs
from kmood_lib.worker.context import WorkerContext


def wait_for_work(ctx: WorkerContext, now: int) -> None:
    """Return when there may be work: see the module's steps 1-3."""
    ctx.heartbeat.beat("idle")
    wake_at = first_wake(ctx, now)
    version = ctx.guard.run("data_version", data_version, ctx.conn)
    check_at = now + ctx.config.wake_interval_ms
    while not ctx.stop.is_set():
        now = ctx.clock.now_ms()
        if now >= wake_at:
            return
        timeout_ms = max(0, min(wake_at, check_at, ctx.heartbeat.next_due(now)) - now)
        if ctx.stop.wait(timeout_ms / 1000) or ctx.stop.take_poke():
            return
        ctx.heartbeat.beat()
        now = ctx.clock.now_ms()
        if now >= check_at:
            check_at = now + ctx.config.wake_interval_ms
            version, wake_at = after_commits(ctx, version, wake_at)


def first_wake(ctx: WorkerContext, now: int) -> int:
    """The next full poll, or the earliest run_after or next due periodic step if sooner."""
    candidates = [now + int(ctx.config.poll_interval_s * 1000),
                  ctx.guard.run("probe", jobs.earliest_run_after, ctx.conn)]
    candidates += [step.next_due_ms() for step in ctx.sweeps + ctx.maintenance]
    return min(c for c in candidates if c is not None)


def after_commits(ctx: WorkerContext, version: int | None, wake_at: int
                  ) -> tuple[int | None, int]:
    """(data_version, wake-up) after another look: when another connection has committed
    since `version`, the wake-up moves to the earliest run_after if that is sooner."""
    seen = ctx.guard.run("data_version", data_version, ctx.conn)
    if seen == version:
        return version, wake_at
    earliest = ctx.guard.run("probe", jobs.earliest_run_after, ctx.conn)
    return seen, wake_at if earliest is None else min(wake_at, earliest)


def data_version(conn: sqlite3.Connection) -> int:
    """A counter that changes when another connection commits to the file (≈ 5 µs)."""
    return conn.execute("PRAGMA data_version").fetchone()[0]
