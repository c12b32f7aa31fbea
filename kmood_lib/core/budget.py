"""A budget of bytes that memory-hungry work (decoding photos) reserves before it starts, so the
process's peak memory is bounded whatever arrives at once: work that would need more than the
whole budget is refused outright, work that must wait for others waits a little, in a short
queue, and is then told to come back (503 with Retry-After) instead of holding a server thread.
"""

from __future__ import annotations

import collections
import contextlib
import threading
import time
from collections.abc import Callable, Iterator

from kmood_lib.core.errors import Busy, TooLarge


class MemoryBudget:
    """`total` bytes shared by everyone; `reserve(n)` holds n of them for a `with` block and
    hands out a Reservation that can grow once more is known (a header read).

    At most `max_waiting` reservations wait at once, each for at most `wait_s`: a server
    thread spent waiting is a thread no one else can use, so past that a request is answered
    at once with Busy (its Retry-After says when to come back)."""

    def __init__(self, total: int, wait_s: float = 10.0, max_waiting: int = 2,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.total, self.wait_s, self.max_waiting = total, wait_s, max_waiting
        self.monotonic = monotonic
        self.used = 0
        self._queue: collections.deque[object] = collections.deque()
        self.peak = 0  # the most ever reserved at once, for /metrics
        self.refused_busy = self.refused_large = 0
        self._changed = threading.Condition()

    @contextlib.contextmanager
    def reserve(self, wanted: int, what: str, field: str | None = None
                ) -> Iterator[Reservation]:
        """Hold `wanted` bytes while the block runs. TooLarge when more than the whole budget,
        Busy when the queue is full or the wait runs out; nothing is held after either."""
        held = Reservation(self, what, field)
        try:
            held.grow_to(wanted)
            yield held
        finally:
            with self._changed:
                self.used -= held.bytes
                self._changed.notify_all()

    def _take(self, wanted: int, what: str, field: str | None) -> None:
        if wanted > self.total:
            with self._changed:
                self.refused_large += 1
            raise TooLarge(f"{what} would need about {_mb(wanted)} of memory to read; this"
                           f" server reads images within {_mb(self.total)}"
                           " (KMOOD_PHOTO_MEMORY_BYTES)",
                           {field: f"too large to read here (it needs about {_mb(wanted)} of"
                                   f" memory; this server allows {_mb(self.total)}): save it"
                                   " smaller, or as a JPEG"} if field else None)
        with self._changed:
            if self.used + wanted <= self.total and not self._queue:
                self._hold(wanted)
                return
            if len(self._queue) >= self.max_waiting:
                self.refused_busy += 1
                raise Busy(f"the server is reading other images; send {what} again shortly",
                           retry_after_s=max(1, round(self.wait_s / 2)))
            ticket = object()  # first come, first served: no one passes a waiter
            self._queue.append(ticket)
            deadline = self.monotonic() + self.wait_s
            try:
                while self._queue[0] is not ticket or self.used + wanted > self.total:
                    left = deadline - self.monotonic()
                    if left <= 0:
                        self.refused_busy += 1
                        raise Busy(f"the server is reading other images; send {what} again"
                                   " shortly", retry_after_s=max(1, round(self.wait_s)))
                    self._changed.wait(left)
                self._hold(wanted)
            finally:
                self._queue.remove(ticket)
                self._changed.notify_all()

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def stats(self) -> dict:
        with self._changed:
            return {"used": self.used, "peak": self.peak, "total": self.total,
                    "waiting": len(self._queue), "refused_large": self.refused_large,
                    "refused_busy": self.refused_busy}

    def _hold(self, wanted: int) -> None:
        self.used += wanted
        self.peak = max(self.peak, self.used)


class Reservation:
    """What one piece of work holds of a MemoryBudget."""

    def __init__(self, budget: MemoryBudget, what: str, field: str | None) -> None:
        self.budget, self.what, self.field = budget, what, field
        self.bytes = 0

    def grow_to(self, wanted: int) -> None:
        """Hold `wanted` bytes in all (more is taken under the budget's rules; less keeps
        what is held). On a refusal what was held so far stays held until the block ends."""
        if wanted > self.bytes:
            if wanted > self.budget.total:
                self.budget._take(wanted, self.what, self.field)  # refused as too large
            self.budget._take(wanted - self.bytes, self.what, self.field)
            self.bytes = wanted


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MB"
