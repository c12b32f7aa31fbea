"""Logging for both binaries: one line format, and waitress's queue warnings summarised."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

QUEUE_LOGGER = "waitress.queue"
QUEUE_MESSAGE = "Task queue depth is %d"  # waitress's own words, one per queued request
QUEUE_SUMMARY_INTERVAL_S = 60.0


class QueueDepthSummary(logging.Filter):
    """waitress warns "Task queue depth is N" for every request that finds all threads busy, so
    a burst writes a line per request and buries everything else. This lets one through per
    interval, saying the deepest queue and how many warnings it stands for."""

    def __init__(self, interval_s: float = QUEUE_SUMMARY_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.interval_s = interval_s
        self.clock = clock
        self._lock = threading.Lock()
        self._next_at: float | None = None
        self._deepest = 0
        self._held = 0

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        if record.msg != QUEUE_MESSAGE or len(args) != 1:
            return True  # not the queue warning: untouched
        said = self.line_for(int(args[0]))
        if said is None:
            return False
        record.msg, record.args = said
        return True

    def line_for(self, depth: int) -> tuple[str, tuple] | None:
        """One queue warning counted: the summary line (message, args) when one is due."""
        now = self.clock()
        with self._lock:
            self._deepest = max(self._deepest, depth)
            self._held += 1
            if self._next_at is not None and now < self._next_at:
                return None
            said = ("%d request(s) found every one of the KMOOD_THREADS threads busy;"
                    " the deepest wait queue was %d (at most one such line per %g s)",
                    (self._held, self._deepest, self.interval_s))
            self._next_at, self._deepest, self._held = now + self.interval_s, 0, 0
            return said


class QueueDepthLog:
    """What waitress's task dispatcher warns through (its `queue_logger`), deciding before any
    LogRecord is made: under a burst every queued request warns, on the thread that reads all
    the sockets, and building a record each time (the caller's frame looked up) cost a
    twentieth of a save's CPU. A counted warning costs a lock; the line an interval goes to the
    real logger."""

    def __init__(self, logger: logging.Logger, summary: QueueDepthSummary):
        self.logger, self.summary = logger, summary

    def warning(self, msg: str, *args) -> None:
        if msg == QUEUE_MESSAGE and len(args) == 1:
            said = self.summary.line_for(int(args[0]))
            if said is not None:
                self.logger.warning(said[0], *said[1])
        else:
            self.logger.warning(msg, *args)


def queue_depth_log() -> QueueDepthLog:
    """The waitress queue logger's fast face, sharing the summary its filter keeps."""
    queue_log = logging.getLogger(QUEUE_LOGGER)
    summary = next((f for f in queue_log.filters if isinstance(f, QueueDepthSummary)), None)
    return QueueDepthLog(queue_log, summary or QueueDepthSummary())


class EveryInterval:
    """At most one log line per interval for a condition that can repeat on every request
    (a full disk, a refused connection): `due()` says whether to write one now, and how many
    occurrences it stands for."""

    def __init__(self, interval_s: float = QUEUE_SUMMARY_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic):
        self.interval_s, self.clock = interval_s, clock
        self._lock = threading.Lock()
        self._next_at: float | None = None
        self._held = 0

    def due(self) -> int:
        """0 while within the interval of the last line; else the occurrences since it."""
        now = self.clock()
        with self._lock:
            self._held += 1
            if self._next_at is not None and now < self._next_at:
                return 0
            held, self._held, self._next_at = self._held, 0, now + self.interval_s
            return held


class EveryKey:
    """EveryInterval for each key on its own (a sign-in refused for one name does not hide
    another's), holding at most `max_keys` keys: past that the oldest are forgotten."""

    def __init__(self, interval_s: float = QUEUE_SUMMARY_INTERVAL_S, max_keys: int = 1024,
                 clock: Callable[[], float] = time.monotonic):
        self.interval_s, self.max_keys, self.clock = interval_s, max_keys, clock
        self._lock = threading.Lock()
        self._keys: dict[str, list] = {}  # key -> [next_at, held], oldest first

    def due(self, key: str) -> int:
        now = self.clock()
        with self._lock:
            state = self._keys.setdefault(key, [None, 0])
            state[1] += 1
            if state[0] is not None and now < state[0]:
                return 0
            held, state[0], state[1] = state[1], now + self.interval_s, 0
            while len(self._keys) > self.max_keys:
                del self._keys[next(iter(self._keys))]
            return held


def configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    queue_log = logging.getLogger(QUEUE_LOGGER)
    if not any(isinstance(f, QueueDepthSummary) for f in queue_log.filters):
        queue_log.addFilter(QueueDepthSummary())
