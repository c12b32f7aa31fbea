"""waitress's per-request queue warnings become one summary line per interval."""

import inspect
import logging

import waitress.task

from kmood_lib.core.logs import QUEUE_LOGGER, QueueDepthSummary, configure_logging


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Kept(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def logger_with(summary: QueueDepthSummary) -> tuple[logging.Logger, Kept]:
    log = logging.Logger("test.waitress.queue")  # not registered: nothing leaks between tests
    kept = Kept()
    log.addHandler(kept)
    log.addFilter(summary)
    return log, kept


def test_a_burst_of_queue_warnings_is_one_line_per_interval():
    clock = Clock()
    log, kept = logger_with(QueueDepthSummary(interval_s=60, clock=clock))
    log.warning("Task queue depth is %d", 1)
    for depth in [2, 7, 3] * 33:  # 99 more within the minute
        clock.now += 0.5
        log.warning("Task queue depth is %d", depth)
    assert kept.lines == ["1 request(s) found every one of the KMOOD_THREADS threads busy; the"
                          " deepest wait queue was 1 (at most one such line per 60 s)"]
    clock.now = 1060.0
    log.warning("Task queue depth is %d", 2)
    assert kept.lines[1] == ("100 request(s) found every one of the KMOOD_THREADS threads busy;"
                             " the deepest wait queue was 7 (at most one such line per 60 s)")
    assert len(kept.lines) == 2


def test_other_messages_pass_untouched():
    log, kept = logger_with(QueueDepthSummary(clock=Clock()))
    log.warning("Task queue depth is %d", 1)
    log.warning("something else entirely: %s", "kept")
    log.error("Task queue depth is %d and %d", 1, 2)
    assert kept.lines[1:] == ["something else entirely: kept", "Task queue depth is 1 and 2"]


def test_the_filter_matches_what_the_pinned_waitress_logs():
    assert waitress.task.ThreadedTaskDispatcher.queue_logger.name == QUEUE_LOGGER
    assert '"Task queue depth is %d"' in inspect.getsource(waitress.task.ThreadedTaskDispatcher)


def test_configure_logging_attaches_the_summary_once():
    queue_log = logging.getLogger(QUEUE_LOGGER)
    before = list(queue_log.filters)
    try:
        configure_logging("WARNING")
        configure_logging("WARNING")
        assert sum(isinstance(f, QueueDepthSummary) for f in queue_log.filters) == 1
    finally:
        queue_log.filters[:] = before
