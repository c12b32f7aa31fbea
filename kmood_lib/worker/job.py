"""One claimed job: its kind and payload read, its handler run with a JobContext, and what came
of it (done, deferred, failed, exhausted) written on the job."""

from __future__ import annotations

import contextlib
import json
import logging
import math
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kmood_lib.bootstrap import Services
from kmood_lib.core.db import transaction
from kmood_lib.queue import jobs
from kmood_lib.queue.sweeps import JobKind, JobKinds
from kmood_lib.worker.context import Heartbeat, WorkerContext

log = logging.getLogger(__name__)

MAX_RETRY_AFTER_S = 24 * 3600  # an upstream asking for longer is not believed


class LeaseLost(Exception):
    """The job's lease was reclaimed before the handler finished: its work must not count."""


class PermanentJobError(Exception):
    """The work can never succeed as asked: exhaust the job now instead of retrying."""

    permanent = True


class UnreadableJob(Exception):
    """A claimed job whose kind or payload this build cannot read: exhausted, never skipped
    (skipped, it would be claimed, reclaimed and claimed again for ever)."""


@dataclass
class JobContext:
    """What a handler gets: the services, the worker's connection, the job and its payload, and
    what it may do with its claim (extend it, complete it together with its writes)."""

    services: Services
    conn: sqlite3.Connection
    job: jobs.ClaimedJob
    payload: dict
    worker_id: str
    lease_ms: int
    flush_acks: Callable[[], None]  # writes the batch's waiting acknowledgements
    heartbeat: Heartbeat
    completed: bool = False

    def extend_lease(self) -> bool:
        """Keep the claim during long work; False means another worker has reclaimed it.
        Handlers that may run past half the lease call this; it also writes the batch's
        waiting acknowledgements, whose leases would otherwise run out meanwhile."""
        self.flush_acks()
        self.heartbeat.beat(force=True)
        return jobs.extend_lease(self.conn, self.job.id, self.worker_id,
                                 self.services.clock.now_ms(), self.lease_ms)

    @contextlib.contextmanager
    def completing(self) -> Iterator[sqlite3.Connection]:
        """One BEGIN IMMEDIATE transaction holding the handler's writes and the job's
        completion: both land or neither does. If the job was reclaimed meanwhile, the
        writes roll back (LeaseLost), so the new claimant's run is the only one that counts;
        and the job costs one write transaction instead of two."""
        with transaction(self.conn):
            yield self.conn
            if not jobs.complete(self.conn, self.job.id, self.worker_id,
                                 self.services.clock.now_ms()):
                raise LeaseLost(f"job {self.job.id} was reclaimed by another worker before it"
                                f" finished; its writes were rolled back")
        self.completed = True


def job_step(job: jobs.ClaimedJob) -> str:
    """The heartbeat's step while `job` runs."""
    return f"job {job.kind}"


def run_job(ctx: WorkerContext, job: jobs.ClaimedJob, flush_acks: Callable[[], None]) -> bool:
    """Run one claimed job; True when it succeeded and still needs its acknowledgement (its
    handler did not complete it in its own transaction)."""
    ctx.heartbeat.beat(job_step(job))
    try:
        kind, payload = hydrate(ctx.services.job_kinds, job)
    except UnreadableJob as exc:
        fail(ctx, job, str(exc), permanent=True)
        return False
    context = JobContext(ctx.services, ctx.conn, job, payload, ctx.worker_id,
                         ctx.policy.lease_ms, flush_acks, ctx.heartbeat)
    try:
        kind.handler(context)
    except LeaseLost as exc:
        log.warning("%s", exc)
        return False
    except jobs.Defer as exc:
        roll_back(ctx.conn)
        jobs.defer(ctx.conn, job, ctx.worker_id, str(exc), ctx.clock.now_ms(),
                   exc.not_before_ms, exc.spacing_ms)
        log.debug("job %d (%s) deferred: %s", job.id, job.kind, exc)
        return False
    except Exception as exc:
        roll_back(ctx.conn)
        fail(ctx, job, f"{type(exc).__name__}: {exc}", permanent=getattr(exc, "permanent", False),
             not_before_ms=retry_delay_ms(getattr(exc, "retry_after_s", None)))
        return False
    ctx.heartbeat.row.done += 1
    return not context.completed


def hydrate(kinds: JobKinds, job: jobs.ClaimedJob) -> tuple[JobKind, dict]:
    """The job's kind and payload, or UnreadableJob naming what could not be read."""
    kind = kinds.get(job.kind)
    if kind is None:
        raise UnreadableJob(f"unknown job kind {job.kind!r}: no handler in this build")
    try:
        payload = json.loads(job.payload)
    except (TypeError, ValueError) as exc:
        raise UnreadableJob(f"unreadable payload: {exc}") from None
    if not isinstance(payload, dict):
        raise UnreadableJob("unreadable payload: not a JSON object")
    return kind, payload


def roll_back(conn: sqlite3.Connection) -> None:
    """Undo what a handler that gave up left half-written in its transaction."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def fail(ctx: WorkerContext, job: jobs.ClaimedJob, error: str, permanent: bool = False,
         not_before_ms: int = 0) -> None:
    """Record a failed attempt: retrying after a backoff, or exhausted (out of attempts, or
    `permanent`); one log line either way."""
    ctx.heartbeat.row.failed += 1
    status = jobs.fail(ctx.conn, job, ctx.worker_id, error, ctx.clock.now_ms(), ctx.policy,
                       ctx.services.rng, permanent, not_before_ms)
    if status == "exhausted":
        log.warning("job %d (%s %s) exhausted after %d attempt(s): %s", job.id, job.kind,
                    job.key, job.attempts, jobs.one_line(error))
    elif status == "retrying":
        log.warning("job %d (%s %s) failed attempt %d, will retry: %s", job.id, job.kind,
                    job.key, job.attempts, jobs.one_line(error))


def retry_delay_ms(retry_after_s) -> int:
    """An upstream's Retry-After as the least delay before the next attempt: a finite positive
    number of seconds, at most MAX_RETRY_AFTER_S; anything else is no delay (the failure path
    must never raise)."""
    if isinstance(retry_after_s, bool) or not isinstance(retry_after_s, (int, float)) \
            or not math.isfinite(retry_after_s) or retry_after_s <= 0:
        return 0
    return int(min(retry_after_s, MAX_RETRY_AFTER_S) * 1000)
