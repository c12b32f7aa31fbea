"""The memory budget photos are read within (issue #36.1): more than the whole is refused at
once, a short queue waits its turn, and past it a request is told to come back — never more
reserved than the budget, never a server thread held for long."""

from __future__ import annotations

import threading

import pytest

from kmood_lib.core.budget import MemoryBudget
from kmood_lib.core.errors import Busy, TooLarge

MB = 1024 * 1024


class Ticking:
    """A monotonic clock that moves only when told, for the waits' deadlines."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_more_than_the_whole_budget_is_refused_at_once_naming_what_it_needs():
    budget = MemoryBudget(100 * MB)
    with pytest.raises(TooLarge) as refused:
        with budget.reserve(600 * MB, "photo 1", "photo"):
            pass
    assert "about 600 MB" in refused.value.message and "100 MB" in refused.value.message
    assert refused.value.fields == {"photo": "too large to read here (it needs about 600 MB of"
                                             " memory; this server allows 100 MB): save it"
                                             " smaller, or as a JPEG"}
    assert budget.used == 0 and budget.refused_large == 1


def test_what_fits_is_held_while_the_block_runs_and_given_back_after_it_even_on_error():
    budget = MemoryBudget(100 * MB)
    with budget.reserve(30 * MB, "a"):
        with budget.reserve(70 * MB, "b"):
            assert budget.used == 100 * MB
    assert budget.used == 0 and budget.peak == 100 * MB
    with pytest.raises(RuntimeError), budget.reserve(40 * MB, "c"):
        raise RuntimeError("a decoder failed")
    assert budget.used == 0


def test_a_reservation_grows_once_the_header_says_what_decoding_takes():
    budget = MemoryBudget(100 * MB)
    with budget.reserve(10 * MB, "photo") as held:
        held.grow_to(60 * MB)
        assert budget.used == 60 * MB
        held.grow_to(20 * MB)  # less than held: keeps what it has
        assert budget.used == 60 * MB
        with pytest.raises(TooLarge):
            held.grow_to(101 * MB)
        assert budget.used == 60 * MB  # still held until the block ends
    assert budget.used == 0


def test_one_that_must_wait_waits_for_room_and_then_runs():
    budget = MemoryBudget(100 * MB, wait_s=60)
    holding, done = threading.Event(), threading.Event()
    order = []

    def first():
        with budget.reserve(80 * MB, "first"):
            holding.set()
            done.wait(30)
            order.append("first ends")

    thread = threading.Thread(target=first)
    thread.start()
    holding.wait(30)
    waiter = threading.Thread(target=lambda: _reserve_and_note(budget, 50 * MB, order))
    waiter.start()
    _wait_for(lambda: budget.waiting == 1)
    assert order == [] and budget.used == 80 * MB  # it waits: 80 + 50 would pass 100
    done.set()
    thread.join(30)
    waiter.join(30)
    assert order == ["first ends", "second runs"]
    assert budget.peak == 80 * MB and budget.used == 0


def _reserve_and_note(budget, wanted, order):
    with budget.reserve(wanted, "second"):
        order.append("second runs")


def _wait_for(condition, seconds: float = 30) -> None:
    event = threading.Event()
    for _ in range(int(seconds * 100)):
        if condition():
            return
        event.wait(0.01)
    raise AssertionError("the condition never held")


def test_past_the_queue_a_request_is_told_at_once_to_come_back():
    budget = MemoryBudget(100 * MB, wait_s=60, max_waiting=1)
    release = threading.Event()
    with budget.reserve(90 * MB, "held"):
        waiter = threading.Thread(target=lambda: _reserve_quietly(budget, release))
        waiter.start()
        _wait_for(lambda: budget.waiting == 1)
        with pytest.raises(Busy) as busy:  # the queue (one) is full: no thread held for it
            with budget.reserve(20 * MB, "photo 2"):
                pass
        assert busy.value.status == 503 and int(busy.value.headers["Retry-After"]) >= 1
        assert budget.refused_busy == 1
        release.set()
    waiter.join(30)
    assert budget.used == 0


def _reserve_quietly(budget, release):
    with budget.reserve(20 * MB, "waiting"):
        release.wait(30)


def test_a_wait_that_runs_out_is_busy_with_retry_after_and_holds_nothing():
    clock = Ticking()
    budget = MemoryBudget(100 * MB, wait_s=5, monotonic=clock)
    outcome = []
    with budget.reserve(90 * MB, "held"):
        def waiting():
            try:
                with budget.reserve(20 * MB, "photo"):
                    outcome.append("ran")
            except Busy as exc:
                outcome.append(exc.headers["Retry-After"])

        thread = threading.Thread(target=waiting)
        thread.start()
        _wait_for(lambda: budget.waiting == 1)
        clock.now = 6.0  # past its deadline
        with budget._changed:
            budget._changed.notify_all()
        thread.join(30)
    assert outcome == ["5"] and budget.used == 0 and budget.waiting == 0


def test_a_newcomer_does_not_pass_one_already_waiting():
    budget = MemoryBudget(100 * MB, wait_s=60, max_waiting=2)
    release = threading.Event()
    order = []
    with budget.reserve(60 * MB, "held"):
        big = threading.Thread(target=lambda: _reserve_and_note(budget, 80 * MB, order))
        big.start()
        _wait_for(lambda: budget.waiting == 1)
        small = threading.Thread(target=lambda: order.append(
            "small" if _try(budget, 30 * MB, release) else "small refused"))
        small.start()  # 60 + 30 fits, but someone waits: it queues behind
        _wait_for(lambda: budget.waiting == 2)
        assert order == []
    big.join(30)
    release.set()
    small.join(30)
    assert order[0] == "second runs"


def _try(budget, wanted, release) -> bool:
    try:
        with budget.reserve(wanted, "small"):
            return True
    except Busy:
        return False
