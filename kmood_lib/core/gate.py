"""Slow computations that cannot take every server thread (issue #36.3): one at a time per
person, a few in all, and the same question asked again while it is being answered waits for
that answer instead of computing it twice. Anything else is refused at once with how long to
wait: a refused request gives its thread back, a waiting one holds it, so waiting is bounded
too."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from kmood_lib.core.errors import Busy, TooMany

FIRST_GUESS_S = 2.0  # how long a computation takes, until one has finished


class StillComputing(TooMany):
    """This person's computation is under way: another question waits its turn (429).
    `reason` is "person" (a different question) or "waiting" (enough already wait for this)."""

    def __init__(self, what: str, reason: str, retry_after_s: int):
        message = (f"still computing your other {what} request" if reason == "person" else
                   f"this {what} request is being computed and enough requests wait for it")
        super().__init__(f"{message}; try again in {retry_after_s} s", retry_after_s)
        self.reason = reason


class ServerBusy(Busy):
    """As many computations run as the server takes at once (503)."""

    reason = "server"

    def __init__(self, what: str, retry_after_s: int):
        super().__init__(f"the server is computing as many {what} requests as it takes at once;"
                         f" try again in {retry_after_s} s", retry_after_s)


@dataclass
class _Flight:
    """One computation under way, and what the requests waiting for it need."""

    started: float
    done: threading.Event = field(default_factory=threading.Event)
    value: object = None
    error: BaseException | None = None


class ComputeGate:
    """Admits a computation of `key` for `owner` (a person) when:

    1. the same (owner, key) is under way: wait for its answer, if fewer than `max_waiting`
       requests wait in all; else StillComputing ("waiting");
    2. the owner has another key under way: StillComputing ("person");
    3. `max_running` computations are under way: ServerBusy;
    4. otherwise compute it here.

    Retry-After is how long the blocking computation has left by the last one's duration, at
    least 1 s. The counters feed /metrics."""

    def __init__(self, what: str, max_running: int, max_waiting: int,
                 monotonic: Callable[[], float] = time.monotonic):
        self.what, self.max_running, self.max_waiting = what, max_running, max_waiting
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._flights: dict[tuple[Hashable, Hashable], _Flight] = {}
        self._owners: dict[Hashable, _Flight] = {}
        self.waiting = 0
        self.last_duration_s = FIRST_GUESS_S
        self.computed = self.shared = self.peak = 0
        self.refused = {"person": 0, "waiting": 0, "server": 0}

    def run(self, owner: Hashable, key: Hashable, compute: Callable[[], object]):
        """compute()'s answer, computed here or by the request already computing it."""
        with self._lock:
            flight = self._flights.get((owner, key))
            joined = flight is not None
            if joined:
                self._join(flight)
            else:
                flight = self._admit(owner, key)
        if joined:
            return self._wait(flight)
        return self._compute(owner, key, flight, compute)

    def _join(self, flight: _Flight) -> None:
        """Under the lock: count this request among those waiting for `flight`, or refuse."""
        if self.waiting >= self.max_waiting:
            self.refused["waiting"] += 1
            raise StillComputing(self.what, "waiting", self._left(flight))
        self.waiting += 1

    def _admit(self, owner: Hashable, key: Hashable) -> _Flight:
        """Under the lock: a new computation for `owner`, or a refusal."""
        mine = self._owners.get(owner)
        if mine is not None:
            self.refused["person"] += 1
            raise StillComputing(self.what, "person", self._left(mine))
        if len(self._flights) >= self.max_running:
            self.refused["server"] += 1
            raise ServerBusy(self.what, min(self._left(f) for f in self._flights.values()))
        flight = _Flight(self._monotonic())
        self._flights[owner, key] = self._owners[owner] = flight
        self.peak = max(self.peak, len(self._flights))
        return flight

    def _compute(self, owner: Hashable, key: Hashable, flight: _Flight,
                 compute: Callable[[], object]):
        try:
            flight.value = compute()
            return flight.value
        except BaseException as exc:
            flight.error = exc  # the requests waiting for it get the same refusal
            raise
        finally:
            with self._lock:
                del self._flights[owner, key], self._owners[owner]
                self.computed += 1
                self.last_duration_s = self._monotonic() - flight.started
            flight.done.set()

    def _wait(self, flight: _Flight):
        try:
            flight.done.wait()
        finally:
            with self._lock:
                self.waiting -= 1
                self.shared += 1
        if flight.error is not None:
            raise flight.error
        return flight.value

    def _left(self, flight: _Flight) -> int:
        """Whole seconds `flight` should still take, judged by the last one's duration."""
        elapsed = self._monotonic() - flight.started
        return max(1, math.ceil(self.last_duration_s - elapsed))

    def stats(self) -> dict:
        with self._lock:
            return {"running": len(self._flights), "waiting": self.waiting, "peak": self.peak,
                    "computed": self.computed, "shared": self.shared,
                    "refused": dict(self.refused), "max_running": self.max_running}
