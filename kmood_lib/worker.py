"""The worker loop: a plain `while not stop` over step functions that report whether they worked.

Each iteration: quarantine unreadable job rows, reclaim stalled jobs, run due sweeps, claim a
batch and run its handlers, then due maintenance (session cleanup, pruning). Between
iterations that found nothing it idles cheaply, waking on another connection's commit
(PRAGMA data_version), on the earliest run_after, or on the next due step.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import socket
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kmood_lib import __version__
from kmood_lib.bootstrap import Services
from kmood_lib.core.db import storage_error, transaction
from kmood_lib.core.logs import EveryInterval
from kmood_lib.core.signals import StopSignal
from kmood_lib.maintenance import maintenance_steps, run_sweeps
from kmood_lib.queue import heartbeat, jobs

log = logging.getLogger(__name__)


class LeaseLost(Exception):
    """The job's lease was reclaimed before the handler finished: its work must not count."""


class PermanentJobError(Exception):
    """The work can never succeed as asked: exhaust the job now instead of retrying."""

    permanent = True


@dataclass
class Periodic:
    """A step that runs at most once every `interval_s` seconds."""

    name: str
    interval_s: float
    run: Callable[[Services, sqlite3.Connection, int], bool]
    last_ms: int | None = None

    def due(self, now_ms: int) -> bool:
        return self.last_ms is None or now_ms - self.last_ms >= self.interval_s * 1000

    def next_due_ms(self) -> int | None:
        return None if self.last_ms is None else self.last_ms + int(self.interval_s * 1000)


@dataclass
class JobContext:
    """What a handler gets: the services, the worker's connection, the job and its payload."""

    services: Services
    conn: sqlite3.Connection
    job: jobs.ClaimedJob
    payload: dict
    worker: Worker
    completed: bool = False

    def extend_lease(self) -> bool:
        """Keep the claim during long work; False means another worker has reclaimed it.
        Handlers that may run past half the lease call this; it also writes the batch's
        waiting acknowledgements, whose leases would otherwise run out meanwhile."""
        self.worker.flush_acks()
        self.worker.beat(force=True)
        return jobs.extend_lease(self.conn, self.job.id, self.worker.worker_id,
                                 self.services.clock.now_ms(), self.worker.policy.lease_ms)

    @contextlib.contextmanager
    def completing(self) -> Iterator[sqlite3.Connection]:
        """One BEGIN IMMEDIATE transaction holding the handler's writes and the job's
        completion: both land or neither does. If the job was reclaimed meanwhile, the
        writes roll back (LeaseLost), so the new claimant's run is the only one that counts;
        and the job costs one write transaction instead of two."""
        with transaction(self.conn):
            yield self.conn
            if not jobs.complete(self.conn, self.job.id, self.worker.worker_id,
                                 self.services.clock.now_ms()):
                raise LeaseLost(f"job {self.job.id} was reclaimed by another worker before it"
                                f" finished; its writes were rolled back")
        self.completed = True


MAX_ACK_DELAY_MS = 250
MAX_RETRY_AFTER_S = 24 * 3600  # an upstream asking for longer is not believed


class PendingAcks:
    """Successful jobs of the batch in hand, waiting to be marked done in one statement."""

    def __init__(self, worker: Worker):
        self.worker = worker
        self.jobs: dict[int, jobs.ClaimedJob] = {}
        self.oldest_ms: int | None = None

    def add(self, job: jobs.ClaimedJob) -> None:
        self.jobs[job.id] = job
        if self.oldest_ms is None:
            self.oldest_ms = self.worker.now_ms()

    def flush_if_due(self) -> None:
        """Before the next handler starts: write what has waited MAX_ACK_DELAY_MS or more."""
        if self.oldest_ms is not None and \
                self.worker.now_ms() - self.oldest_ms >= MAX_ACK_DELAY_MS:
            self.flush()

    def flush(self) -> None:
        if not self.jobs:
            return
        waiting, self.jobs, self.oldest_ms = self.jobs, {}, None
        done = jobs.complete_many(self.worker.conn, list(waiting), self.worker.worker_id,
                                  self.worker.now_ms())
        for job_id in waiting.keys() - done:
            log.warning("job %d (%s) finished after its lease was reclaimed; its new claimant "
                        "owns it now", job_id, waiting[job_id].kind)


def retry_delay_ms(retry_after_s) -> int:
    """An upstream's Retry-After as the least delay before the next attempt: a finite positive
    number of seconds, at most MAX_RETRY_AFTER_S; anything else is no delay (the failure path
    must never raise)."""
    if isinstance(retry_after_s, bool) or not isinstance(retry_after_s, (int, float)) \
            or not math.isfinite(retry_after_s) or retry_after_s <= 0:
        return 0
    return int(min(retry_after_s, MAX_RETRY_AFTER_S) * 1000)


def new_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Worker:
    """One process's worker state (its id, its connection, when each periodic step last ran)."""

    def __init__(self, services: Services, stop: StopSignal | None = None):
        self.services = services
        self.config = services.config
        self.policy = jobs.Policy.from_config(services.config)
        self.stop = stop or StopSignal()
        self.worker_id = new_worker_id()
        self.conn = services.connect()
        started = self.now_ms()
        self.state = heartbeat.Beat(self.worker_id, socket.gethostname(), os.getpid(),
                                    __version__, started, step_since=started)
        self._beat_at: int | None = None  # when the row was last written
        self._acks: PendingAcks | None = None  # the batch in hand's waiting acknowledgements
        self.failed = False  # a step of this iteration failed
        self.backoff_s = 0.0  # the pause after the last failing iteration
        self._storage_log = EveryInterval()  # a full disk fails every step: one line a minute
        self.before: list[Periodic] = [Periodic("sweep", self.config.sweep_interval_s, run_sweeps)]
        self.after: list[Periodic] = [
            Periodic(name, interval, step) for name, interval, step in maintenance_steps(services)
        ]

    def close(self) -> None:
        """A clean stop: the heartbeat row goes, so nobody mistakes this worker for a stuck one."""
        self._guarded("heartbeat", lambda: heartbeat.remove(self.conn, self.worker_id))
        self.conn.close()

    def beat(self, step: str | None = None, force: bool = False) -> None:
        """Say what this worker is doing. A new step is written at once; the same step again
        only once KMOOD_WORKER_HEARTBEAT_S has passed (or when forced), so a busy worker costs
        one small write per change of step, and one that stops beating shows where it stuck."""
        now_ms = self.now_ms()
        state = self.state
        if step is not None and step != state.step:
            state.step, state.step_since = step, now_ms
        elif not force and self._beat_at is not None and \
                now_ms - self._beat_at < self.config.worker_heartbeat_s * 1000:
            return
        self._beat_at = now_ms
        self._guarded("heartbeat", lambda: heartbeat.beat(self.conn, state, now_ms))

    def now_ms(self) -> int:
        return self.services.clock.now_ms()

    def run_once(self, now_ms: int | None = None) -> bool:
        """One iteration; True when it ran jobs (so the loop should not idle)."""
        now_ms = self.now_ms() if now_ms is None else now_ms
        self._guarded("quarantine", lambda: jobs.quarantine_unclaimable(self.conn, now_ms))
        self._guarded("reclaim", lambda: jobs.reclaim_stalled(self.conn, now_ms))
        self._run_periodic(self.before, now_ms)
        worked = bool(self._guarded("jobs", self.run_jobs))
        self._run_periodic(self.after, now_ms)
        return worked

    def _run_periodic(self, steps: list[Periodic], now_ms: int) -> None:
        for step in steps:
            if step.due(now_ms) and not self.stop.is_set():
                step.last_ms = now_ms
                self.beat(step.name)
                self._guarded(step.name, lambda s=step: s.run(self.services, self.conn, now_ms))

    def _guarded(self, name: str, step: Callable):
        """The loop never dies of a step: log it and carry on next iteration. A database that
        cannot take writes (a full disk, a read-only file, busy past the timeout) fails every
        step alike: one line a minute without a traceback, since it is no bug."""
        try:
            return step()
        except Exception as exc:
            self.failed = True
            if not isinstance(exc, sqlite3.Error) or storage_error(exc) is None:
                log.exception("worker step %s failed; will try again next iteration", name)
            elif held := self._storage_log.due():
                log.error("worker step %s: the database cannot take writes now (%s); %d such"
                          " failure(s) since the last line, at most one line a minute", name,
                          exc, held)
            return None

    def pause_after_failure(self) -> float:
        """How long to wait after an iteration in which a step failed: from the wake interval,
        doubling with each failing iteration in a row up to the poll interval, so a full disk
        does not spin the loop. A clean iteration resets it (run_forever)."""
        first = self.config.wake_interval_ms / 1000
        self.backoff_s = min(max(first, 2 * self.backoff_s), max(first, self.config.poll_interval_s))
        return self.backoff_s

    # --- jobs -----------------------------------------------------------------------------

    def run_jobs(self) -> int:
        """Claim one batch (after a read-only probe) and run it; return how many were handled.

        Jobs whose handlers did not complete them in their own transaction are acknowledged
        together in one statement at the end of the batch, or before the next handler starts
        once the oldest waiting one is MAX_ACK_DELAY_MS old: one write instead of one per job.
        A crash can re-run those few unacknowledged jobs, as it can re-run the job in hand.
        Once half the lease has gone, waiting acknowledgements are written and the leases of
        the jobs not yet started renewed, so a slow batch's tail is never run twice.
        """
        now_ms = self.now_ms()
        if self.stop.is_set() or not jobs.has_due_jobs(self.conn, now_ms):
            return 0
        batch = jobs.claim(self.conn, self.worker_id, now_ms, self.config.job_batch,
                           self.policy.lease_ms)
        acks = self._acks = PendingAcks(self)
        leased_at = now_ms
        try:
            for index, job in enumerate(batch):
                if self.stop.is_set():
                    acks.flush()
                    rest = [j.id for j in batch[index:]]
                    released = jobs.release(self.conn, rest, self.worker_id, self.now_ms())
                    log.info("stopping: released %d claimed job(s) back to the queue", released)
                    return index
                acks.flush_if_due()
                if self.now_ms() - leased_at >= self.policy.lease_ms // 2:
                    acks.flush()
                    leased_at, ours = self._renew_leases(batch[index:])
                    if job.id not in ours:
                        continue
                if self.run_job(job):
                    acks.add(job)
        finally:
            acks.flush()
            self._acks = None
        return len(batch)

    def flush_acks(self) -> None:
        if self._acks is not None:
            self._acks.flush()

    def _renew_leases(self, waiting: list[jobs.ClaimedJob]) -> tuple[int, set[int]]:
        """Half the batch's lease is gone: renew it for the jobs not yet run, so a slow batch's
        tail is not reclaimed (and run twice) before it even starts. Returns (now, ids kept)."""
        now_ms = self.now_ms()
        ours = jobs.extend_leases(self.conn, [j.id for j in waiting], self.worker_id, now_ms,
                                  self.policy.lease_ms)
        for job in waiting:
            if job.id not in ours:
                log.warning("job %d (%s) was reclaimed before it started; its new claimant "
                            "runs it", job.id, job.kind)
        return now_ms, ours

    def run_job(self, job: jobs.ClaimedJob) -> bool:
        """Run one claimed job; True when it succeeded and still needs its acknowledgement."""
        self.beat(f"job {job.kind}")
        kind = self.services.job_kinds.get(job.kind)
        if kind is None:
            self._fail(job, f"unknown job kind {job.kind!r}: no handler in this build",
                       permanent=True)
            return False
        try:
            payload = json.loads(job.payload)
            if not isinstance(payload, dict):
                raise ValueError("not a JSON object")
        except (TypeError, ValueError) as exc:
            self._fail(job, f"unreadable payload: {exc}", permanent=True)
            return False
        context = JobContext(self.services, self.conn, job, payload, self)
        try:
            kind.handler(context)
        except LeaseLost as exc:
            log.warning("%s", exc)
            return False
        except jobs.Defer as exc:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            jobs.defer(self.conn, job, self.worker_id, str(exc), self.now_ms(),
                       exc.not_before_ms, exc.spacing_ms)
            log.debug("job %d (%s) deferred: %s", job.id, job.kind, exc)
            return False
        except Exception as exc:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            self._fail(job, f"{type(exc).__name__}: {exc}",
                       permanent=getattr(exc, "permanent", False),
                       not_before_ms=retry_delay_ms(getattr(exc, "retry_after_s", None)))
            return False
        self.state.done += 1
        return not context.completed

    def _fail(self, job: jobs.ClaimedJob, error: str, permanent: bool = False,
              not_before_ms: int = 0) -> None:
        self.state.failed += 1
        status = jobs.fail(self.conn, job, self.worker_id, error, self.now_ms(), self.policy,
                           self.services.rng, permanent, not_before_ms)
        if status == "exhausted":
            log.warning("job %d (%s %s) exhausted after %d attempt(s): %s", job.id, job.kind,
                        job.key, job.attempts, jobs.one_line(error))
        elif status == "retrying":
            log.warning("job %d (%s %s) failed attempt %d, will retry: %s", job.id, job.kind,
                        job.key, job.attempts, jobs.one_line(error))

    # --- the loop -------------------------------------------------------------------------

    def run_forever(self) -> None:
        """Loop until `stop` is set; idle between iterations that found nothing to do."""
        log.info("worker %s started (job kinds: %s)", self.worker_id,
                 ", ".join(self.services.job_kinds.names()) or "none")
        self.beat("starting", force=True)
        self._guarded("heartbeat", lambda: heartbeat.forget_dead(self.conn, self.now_ms()))
        while not self.stop.is_set():
            self.failed = False
            worked = self.run_once()
            if self.failed:
                self.stop.wait(self.pause_after_failure())
                continue
            self.backoff_s = 0.0
            if not worked:
                self.idle()
        log.info("worker %s stopped", self.worker_id)

    def idle(self) -> None:
        """Sleep until the next full poll, the earliest run_after or the next due step.

        Every KMOOD_WAKE_INTERVAL_MS it checks PRAGMA data_version (another connection
        committed): if a job is now due it wakes at once, and a job queued for later only moves
        the wake-up earlier. A commit with no due job (a heartbeat, a session touch) does not
        start an iteration, so workers never wake each other in a loop. The heartbeat is
        refreshed meanwhile; a poke (the NATS relay) wakes at once."""
        now_ms = self.now_ms()
        self.beat("idle")
        wake_at = now_ms + int(self.config.poll_interval_s * 1000)
        earliest = self._guarded("probe", lambda: jobs.earliest_run_after(self.conn))
        candidates = [earliest] + [s.next_due_ms() for s in self.before + self.after]
        wake_at = min([wake_at] + [c for c in candidates if c is not None])
        version = self._data_version()
        check_at = now_ms + self.config.wake_interval_ms
        beat_ms = int(self.config.worker_heartbeat_s * 1000)
        while not self.stop.is_set():
            now_ms = self.now_ms()
            if now_ms >= wake_at:
                return
            next_beat = (self._beat_at or now_ms) + beat_ms
            timeout_ms = max(0, min(wake_at, check_at, next_beat) - now_ms)
            if self.stop.wait(timeout_ms / 1000) or self.stop.take_poke():
                return
            now_ms = self.now_ms()
            if now_ms >= next_beat:
                self.beat()
            if now_ms >= check_at:
                check_at = now_ms + self.config.wake_interval_ms
                seen = self._data_version()
                if seen != version:
                    version = seen
                    earliest = self._guarded("probe",
                                             lambda: jobs.earliest_run_after(self.conn))
                    if earliest is not None:
                        wake_at = min(wake_at, earliest)

    def _data_version(self) -> int | None:
        return self._guarded("data_version",
                             lambda: self.conn.execute("PRAGMA data_version").fetchone()[0])


def run_once(services: Services, now_ms: int | None = None) -> bool:
    """Run one iteration with a throwaway worker (for cron-style `--once` and tests)."""
    worker = Worker(services)
    try:
        return worker.run_once(now_ms)
    finally:
        worker.close()
