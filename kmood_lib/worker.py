"""The worker loop: a plain `while not stop` over step functions that report whether they worked."""

from __future__ import annotations

import logging
import os
import socket
import sqlite3
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from kmood_lib import auth as auth_store
from kmood_lib import throttle
from kmood_lib.bootstrap import Services

log = logging.getLogger(__name__)


@dataclass
class Periodic:
    """A maintenance step that runs at most once every `interval_s` seconds."""

    name: str
    interval_s: float
    run: Callable[[Worker, sqlite3.Connection, int], bool]
    last_ms: int | None = None

    def due(self, now_ms: int) -> bool:
        return self.last_ms is None or now_ms - self.last_ms >= self.interval_s * 1000


def new_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Worker:
    """One process's worker state (its id, its connection, when each periodic step last ran)."""

    def __init__(self, services: Services, stop: threading.Event | None = None):
        self.services = services
        self.config = services.config
        self.stop = stop or threading.Event()
        self.worker_id = new_worker_id()
        self.conn = services.connect()
        self.periodic: list[Periodic] = [
            Periodic(name, interval, step) for name, interval, step in periodic_steps(services)
        ]

    def close(self) -> None:
        self.conn.close()

    def run_once(self, now_ms: int | None = None) -> bool:
        """One iteration: every due step once; True when any of them found work."""
        now_ms = self.services.clock.now_ms() if now_ms is None else now_ms
        worked = False
        for step in self.periodic:
            if self.stop.is_set():
                break
            if step.due(now_ms):
                step.last_ms = now_ms
                worked = self._guarded(step.name, step.run, now_ms) or worked
        return worked

    def _guarded(self, name: str, step, now_ms: int) -> bool:
        try:
            return bool(step(self, self.conn, now_ms))
        except sqlite3.Error:
            log.exception("worker step %s failed on the database; will retry next iteration", name)
        except Exception:
            log.exception("worker step %s failed; will retry next iteration", name)
        return False

    def run_forever(self) -> None:
        """Loop until `stop` is set; idle between iterations that found nothing to do."""
        log.info("worker %s started", self.worker_id)
        while not self.stop.is_set():
            if not self.run_once():
                self.idle()
        log.info("worker %s stopped", self.worker_id)

    def idle(self) -> None:
        self.stop.wait(self.config.poll_interval_s)


def clean_up_sessions(worker: Worker, conn: sqlite3.Connection, now_ms: int) -> bool:
    """Delete expired sessions and login failures that fell out of the throttle window."""
    sessions = auth_store.delete_expired_sessions(conn, now_ms)
    failures = throttle.prune_failures(conn, now_ms, worker.config.login_window_s)
    if sessions or failures:
        log.info("cleaned up %d expired session(s), %d old login failure(s)", sessions, failures)
    return False  # maintenance: never a reason to skip idling


def periodic_steps(services: Services) -> list[tuple[str, float, Callable]]:
    """(name, interval_s, step) for the maintenance the worker owns."""
    return [
        ("session_cleanup", services.config.session_cleanup_interval_s, clean_up_sessions),
    ]


def run_once(services: Services, now_ms: int | None = None) -> bool:
    """Run one iteration with a throwaway worker (for cron-style `--once` and tests)."""
    worker = Worker(services)
    try:
        return worker.run_once(now_ms)
    finally:
        worker.close()
