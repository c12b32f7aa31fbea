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


def test_waitress_warns_through_the_summary_without_a_record_for_each_queued_request():
    from kmood_lib.core.logs import QueueDepthLog

    clock = Clock()
    log, kept = logger_with(QueueDepthSummary(interval_s=60, clock=clock))
    made = []
    real_make = log.makeRecord
    log.makeRecord = lambda *a, **k: made.append(1) or real_make(*a, **k)
    fast = QueueDepthLog(log, next(f for f in log.filters if isinstance(f, QueueDepthSummary)))
    for depth in (1, 4, 2, 3):
        fast.warning("Task queue depth is %d", depth)
    assert len(made) == 1  # one line, one record; the three held back cost a counter
    clock.now += 61
    fast.warning("Task queue depth is %d", 2)
    assert kept.lines == [
        "1 request(s) found every one of the KMOOD_THREADS threads busy; the deepest wait"
        " queue was 1 (at most one such line per 60 s)",
        "4 request(s) found every one of the KMOOD_THREADS threads busy; the deepest wait"
        " queue was 4 (at most one such line per 60 s)"]
    fast.warning("something else %s", "entirely")
    assert kept.lines[-1] == "something else entirely"


def test_the_server_warns_through_the_fast_summary(tmp_path):
    from kmood_lib.cli.serve import build_server
    from kmood_lib.core.config import Config
    from kmood_lib.core.logs import QueueDepthLog
    from tests.helpers import base_env, free_port

    config = Config.from_env(base_env(tmp_path / "k.db", KMOOD_PORT=str(free_port())))
    server = build_server(config, lambda environ, start_response: [])
    try:
        assert isinstance(server.task_dispatcher.queue_logger, QueueDepthLog)
    finally:
        server.close()
