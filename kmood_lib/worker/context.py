"""What the steps of one worker process share: its connection and id, its heartbeat, the
schedule of its periodic steps, its stop signal, and the guard that keeps a failing step from
killing the loop."""

from __future__ import annotations

import logging
import os
import socket
import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from kmood_lib import __version__
from kmood_lib.bootstrap import Services
from kmood_lib.core.clock import SystemClock
from kmood_lib.core.config import Config
from kmood_lib.core.db import storage_error
from kmood_lib.core.logs import EveryInterval
from kmood_lib.core.signals import StopSignal
from kmood_lib.queue import heartbeat, jobs
from kmood_lib.worker.maintenance import maintenance_steps, run_sweeps

log = logging.getLogger(__name__)


class StepGuard:
    """Runs steps so that the loop never dies of one. A bug is logged with its traceback; a
    database that cannot take writes (a full disk, a read-only file, busy past the timeout)
    fails every step alike, so that is one line a minute without one, since it is no bug.
    `failures` only grows: the loop compares it across an iteration to know one failed."""

    def __init__(self):
        self.failures = 0
        self._storage_log = EveryInterval()

    def run(self, name: str, step: Callable, *args):
        """`step(*args)`, or None when it raised."""
        try:
            return step(*args)
        except Exception as exc:
            self.failures += 1
            if not isinstance(exc, sqlite3.Error) or storage_error(exc) is None:
                log.exception("worker step %s failed; will try again next iteration", name)
            elif held := self._storage_log.due():
                log.error("worker step %s: the database cannot take writes now (%s); %d such"
                          " failure(s) since the last line, at most one line a minute", name,
                          exc, held)
            return None


# A busy worker changes step several times a second (a job, idle, the next job): a new step
# is written at most this often, so its heartbeat costs a commit a second, not one per job.
STEP_SPACING_MS = 1000


class Heartbeat:
    """This worker's row in `workers`, saying what it is doing.

    1. A job's or idleness's step is written at once when the row is at least
       STEP_SPACING_MS old (or the heartbeat interval, if shorter), else once it is (the wait
       for work wakes for it); a step over sooner is never written. A job that hangs within a
       second of the last write shows the step before it; the queue shows the job running,
       claimed by this worker.
    2. A periodic step (a sweep, a backup) is written as it starts (`force`): those are few,
       and one of them that hangs must show where.
    3. The same step again is written only once KMOOD_WORKER_HEARTBEAT_S has passed, so one
       that stops beating shows where it stuck.
    4. A batch's claim carries the beat in its own transaction (`beat_within`, then `written`
       once it committed): a worker starting on jobs says so without a commit of its own.
    A beat is stamped with the clock's time, not the iteration's `now`: it says the worker is
    alive at this moment, after a step that may have taken minutes (a backup)."""

    def __init__(self, conn: sqlite3.Connection, row: heartbeat.Beat, clock: SystemClock,
                 interval_ms: int, guard: StepGuard):
        self.conn, self.row, self.clock = conn, row, clock
        self.interval_ms, self.guard = interval_ms, guard
        self.written_at: int | None = None
        self.step_unwritten = False

    def beat(self, step: str | None = None, force: bool = False) -> None:
        now = self._step(step)
        if force or now >= self.next_due(now):
            self.written_at, self.step_unwritten = now, False
            self.guard.run("heartbeat", heartbeat.beat, self.conn, self.row, now)

    def beat_within(self, conn: sqlite3.Connection, step: str) -> int:
        """The beat as one more statement of the caller's open transaction; returns its time,
        for `written` once that transaction has committed."""
        now = self._step(step)
        heartbeat.beat(conn, self.row, now)
        return now

    def written(self, at: int) -> None:
        self.written_at, self.step_unwritten = at, False

    def next_due(self, now: int) -> int:
        """When the row is written next: `now` when it never was."""
        if self.written_at is None:
            return now
        if self.step_unwritten:
            return self.written_at + min(STEP_SPACING_MS, self.interval_ms)
        return self.written_at + self.interval_ms

    def _step(self, step: str | None) -> int:
        now = self.clock.now_ms()
        if step is not None and step != self.row.step:
            self.row.step, self.row.step_since = step, now
            self.step_unwritten = True
        return now


@dataclass
class Periodic:
    """A step that runs at most once every `interval_s` seconds:
    `run(services, conn, now) -> whether it found work`."""

    name: str
    interval_s: float
    run: Callable[[Services, sqlite3.Connection, int], bool]
    last_ms: int | None = None

    def due(self, now: int) -> bool:
        return self.last_ms is None or now - self.last_ms >= self.interval_s * 1000

    def next_due_ms(self) -> int | None:
        return None if self.last_ms is None else self.last_ms + int(self.interval_s * 1000)


@dataclass
class WorkerContext:
    """One worker process, as its steps see it (built by open_worker)."""

    services: Services
    conn: sqlite3.Connection  # the worker's own: every step runs on it, one at a time
    worker_id: str
    policy: jobs.Policy
    stop: StopSignal
    guard: StepGuard
    heartbeat: Heartbeat
    sweeps: list[Periodic]  # before the jobs, so what they queue runs in the same iteration
    maintenance: list[Periodic]  # after the jobs

    @property
    def config(self) -> Config:
        return self.services.config

    @property
    def clock(self) -> SystemClock:
        return self.services.clock


def new_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def open_worker(services: Services, stop: StopSignal | None = None) -> WorkerContext:
    """A worker on a connection of its own, with a fresh id, a heartbeat not yet written and
    every periodic step due."""
    config, conn, worker_id, guard = services.config, services.connect(), new_worker_id(), StepGuard()
    started = services.clock.now_ms()
    row = heartbeat.Beat(worker_id, socket.gethostname(), os.getpid(), __version__, started,
                         step_since=started)
    return WorkerContext(
        services=services, conn=conn, worker_id=worker_id, policy=jobs.Policy.from_config(config),
        stop=stop or StopSignal(), guard=guard,
        heartbeat=Heartbeat(conn, row, services.clock, int(config.worker_heartbeat_s * 1000), guard),
        sweeps=[Periodic("sweep", config.sweep_interval_s, run_sweeps)],
        maintenance=[Periodic(name, interval_s, step)
                     for name, interval_s, step in maintenance_steps(services)],
    )


def close_worker(ctx: WorkerContext) -> None:
    """A clean stop: the heartbeat row goes, so nobody mistakes this worker for a stuck one."""
    ctx.guard.run("heartbeat", heartbeat.remove, ctx.conn, ctx.worker_id)
    ctx.conn.close()
