"""The worker loop: a plain `while not stop` over step functions, each given the iteration's
`now` and reporting whether it found work.

An iteration quarantines unreadable job rows, reclaims stalled jobs, runs the sweeps when due,
claims and runs a batch of jobs, then the maintenance that is due. One that found work is
followed at once by the next; one that found none waits for work; one in which a step failed
pauses, for longer while steps keep failing.
"""

from __future__ import annotations

import logging

from kmood_lib.core.config import Config
from kmood_lib.queue import heartbeat, jobs
from kmood_lib.worker.batch import run_batch
from kmood_lib.worker.context import Periodic, WorkerContext
from kmood_lib.worker.waiting import wait_for_work

log = logging.getLogger(__name__)


def run_once(ctx: WorkerContext, now: int) -> bool:
    """One iteration, every step given `now`; True when any of them found work."""
    guard = ctx.guard
    found = [
        guard.run("quarantine", jobs.quarantine_unclaimable, ctx.conn, now),
        guard.run("reclaim", jobs.reclaim_stalled, ctx.conn, now),
        run_due(ctx, ctx.sweeps, now),
        guard.run("jobs", run_batch, ctx, now),
        run_due(ctx, ctx.maintenance, now),
    ]
    return any(found)


def run_forever(ctx: WorkerContext) -> None:
    """Iterations until `ctx.stop` is set: the next at once after one that found work, after
    waiting for work after one that found none, after a pause after one in which a step
    failed (doubling while they keep failing, so a full disk does not spin the loop)."""
    log.info("worker %s started (job kinds: %s)", ctx.worker_id,
             ", ".join(ctx.services.job_kinds.names()) or "none")
    ctx.heartbeat.beat("starting", force=True)
    ctx.guard.run("heartbeat", heartbeat.forget_dead, ctx.conn, ctx.clock.now_ms())
    pause = 0.0
    while not ctx.stop.is_set():
        failures = ctx.guard.failures
        found = run_once(ctx, ctx.clock.now_ms())
        if ctx.guard.failures > failures:
            pause = pause_after_failure(ctx.config, pause)
            ctx.stop.wait(pause)
            continue
        pause = 0.0
        if not found:
            wait_for_work(ctx, ctx.clock.now_ms())
    log.info("worker %s stopped", ctx.worker_id)


def run_due(ctx: WorkerContext, steps: list[Periodic], now: int) -> bool:
    """The periodic steps whose interval has passed, each written in the heartbeat as it
    starts; True when any found work."""
    found = False
    for step in steps:
        if step.due(now) and not ctx.stop.is_set():
            step.last_ms = now
            ctx.heartbeat.beat(step.name, force=True)  # a backup that hangs shows where
            found |= bool(ctx.guard.run(step.name, step.run, ctx.services, ctx.conn, now))
    return found


def pause_after_failure(config: Config, last_pause: float) -> float:
    """The pause after an iteration in which a step failed: the wake interval at first, then
    double the last one, up to the poll interval."""
    first = config.wake_interval_ms / 1000
    return min(max(first, 2 * last_pause), max(first, config.poll_interval_s))
