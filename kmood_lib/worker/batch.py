"""A batch of jobs: claimed in one statement after a read-only probe, run one after another,
acknowledged together.

1. The batch is claimed at the iteration's `now`; what happens while it runs (acknowledgements,
   lease renewals, failures) is timed by the worker's clock.
2. Jobs whose handlers did not complete them in their own transaction wait to be acknowledged
   in one statement: at the end of the batch, or before the next handler starts once the
   oldest has waited MAX_ACK_DELAY_MS. A crash can re-run those few, as it can the job in hand.
3. Once half the lease has gone, the waiting acknowledgements are written and the leases of
   the jobs not yet started renewed, so a slow batch's tail is never run twice; a job that
   another worker has reclaimed meanwhile is left to it, wherever it stands in the batch.
4. On a stop the job in hand finishes and the rest go back to the queue, the claim uncounted.
"""

from __future__ import annotations

import logging
import sqlite3

from kmood_lib.core.clock import SystemClock
from kmood_lib.core.db import transaction
from kmood_lib.queue import jobs
from kmood_lib.worker.context import WorkerContext
from kmood_lib.worker.job import job_step, run_job

log = logging.getLogger(__name__)

MAX_ACK_DELAY_MS = 250


class PendingAcks:
    """Successful jobs of the batch in hand, waiting to be marked done in one statement."""

    def __init__(self, conn: sqlite3.Connection, worker_id: str, clock: SystemClock):
        self.conn, self.worker_id, self.clock = conn, worker_id, clock
        self.jobs: dict[int, jobs.ClaimedJob] = {}
        self.oldest_ms: int | None = None

    def add(self, job: jobs.ClaimedJob) -> None:
        self.jobs[job.id] = job
        if self.oldest_ms is None:
            self.oldest_ms = self.clock.now_ms()

    def flush_if_due(self) -> None:
        """Before the next handler starts: write what has waited MAX_ACK_DELAY_MS or more."""
        if self.oldest_ms is not None and \
                self.clock.now_ms() - self.oldest_ms >= MAX_ACK_DELAY_MS:
            self.flush()

    def flush(self) -> None:
        if not self.jobs:
            return
        waiting, self.jobs, self.oldest_ms = self.jobs, {}, None
        done = jobs.complete_many(self.conn, list(waiting), self.worker_id, self.clock.now_ms())
        for job_id in waiting.keys() - done:
            log.warning("job %d (%s) finished after its lease was reclaimed; its new claimant "
                        "owns it now", job_id, waiting[job_id].kind)


def run_batch(ctx: WorkerContext, now: int) -> bool:
    """Claim the jobs due at `now` (up to KMOOD_JOB_BATCH) and run them; True when there
    were any."""
    if ctx.stop.is_set() or not jobs.has_due_jobs(ctx.conn, now):
        return False
    beat_at = None
    with transaction(ctx.conn):  # the claim and the beat saying so: one commit
        batch = jobs.claim(ctx.conn, ctx.worker_id, now, ctx.config.job_batch,
                           ctx.policy.lease_ms)
        if batch:
            beat_at = ctx.heartbeat.beat_within(ctx.conn, job_step(batch[0]))
    if beat_at is not None:
        ctx.heartbeat.written(beat_at)
    acks = PendingAcks(ctx.conn, ctx.worker_id, ctx.clock)
    try:
        run_claimed(ctx, batch, acks, leased_at=now)
    finally:
        acks.flush()
    return bool(batch)


def run_claimed(ctx: WorkerContext, batch: list[jobs.ClaimedJob], acks: PendingAcks,
                leased_at: int) -> None:
    """Each job in turn while the worker is not stopping and the job is still its own."""
    ours = {job.id for job in batch}
    for index, job in enumerate(batch):
        if ctx.stop.is_set():
            acks.flush()
            release(ctx, batch[index:])
            return
        acks.flush_if_due()
        if ctx.clock.now_ms() - leased_at >= ctx.policy.lease_ms // 2:
            acks.flush()
            leased_at, ours = renew_leases(ctx, batch[index:])
        if job.id in ours and run_job(ctx, job, acks.flush):
            acks.add(job)


def renew_leases(ctx: WorkerContext, waiting: list[jobs.ClaimedJob]) -> tuple[int, set[int]]:
    """Half the batch's lease is gone: renew it for the jobs not yet run, so a slow batch's
    tail is not reclaimed (and run twice) before it even starts. Returns (now, ids kept)."""
    now = ctx.clock.now_ms()
    ours = jobs.extend_leases(ctx.conn, [j.id for j in waiting], ctx.worker_id, now,
                              ctx.policy.lease_ms)
    for job in waiting:
        if job.id not in ours:
            log.warning("job %d (%s) was reclaimed before it started; its new claimant "
                        "runs it", job.id, job.kind)
    return now, ours


def release(ctx: WorkerContext, rest: list[jobs.ClaimedJob]) -> None:
    """Stopping: the jobs not started go back to the queue, their claim not counted."""
    released = jobs.release(ctx.conn, [j.id for j in rest], ctx.worker_id, ctx.clock.now_ms())
    log.info("stopping: released %d claimed job(s) back to the queue", released)
