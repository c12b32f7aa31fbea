"""The insights gate's rules, with threads (issue #36.3): the same question asked while it is
being answered is computed once; a person's second question waits its turn (429 with
Retry-After); the server computes at most a few at once, whoever asks (503); and a waiting
request, which holds a thread too, is bounded."""

from __future__ import annotations

import threading

import pytest

from kmood_lib.bootstrap import insight_gate
from kmood_lib.core.config import Config
from kmood_lib.core.gate import ComputeGate, ServerBusy, StillComputing
from tests.helpers import wait_until


class FakeMonotonic:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Asked:
    """A request in its own thread: gate.run(owner, key, compute) where compute counts itself
    and blocks until released; what it got back (or raised) is kept."""

    def __init__(self, gate: ComputeGate, owner, key, counter: list, release: threading.Event,
                 answer: object = "answer", error: BaseException | None = None):
        self.answer, self.raised = None, None

        def compute():
            counter.append(key)
            release.wait(30)
            if error is not None:
                raise error
            return answer

        def ask():
            try:
                self.answer = gate.run(owner, key, compute)
            except BaseException as exc:  # noqa: BLE001 - kept for the test to look at
                self.raised = exc

        self.thread = threading.Thread(target=ask, daemon=True)
        self.thread.start()

    def join(self):
        self.thread.join(30)
        assert not self.thread.is_alive()
        return self


def refusal(gate: ComputeGate, owner, key):
    with pytest.raises((StillComputing, ServerBusy)) as caught:
        gate.run(owner, key, lambda: pytest.fail("a refused request must not compute"))
    return caught.value


def test_the_same_question_asked_while_it_is_computed_is_computed_once():
    gate, computed, release = ComputeGate("insights", 2, 4), [], threading.Event()
    first = Asked(gate, "alice", "all", computed, release)
    wait_until(lambda: gate.stats()["running"] == 1, what="the first computation")
    others = [Asked(gate, "alice", "all", computed, release) for _ in range(3)]
    wait_until(lambda: gate.stats()["waiting"] == 3, what="three requests waiting")
    release.set()
    assert [a.join().answer for a in [first, *others]] == ["answer"] * 4
    assert computed == ["all"]
    stats = gate.stats()
    assert (stats["computed"], stats["shared"], stats["waiting"], stats["running"]) == (1, 3, 0, 0)


def test_a_persons_other_question_is_refused_with_retry_after_while_one_is_computed():
    clock = FakeMonotonic()
    gate, computed, release = ComputeGate("insights", 4, 4, clock), [], threading.Event()
    first = Asked(gate, "alice", "2024", computed, release)
    wait_until(lambda: gate.stats()["running"] == 1, what="the first computation")
    clock.now += 0.5
    refused = refusal(gate, "alice", "2025")
    assert (refused.status, refused.reason) == (429, "person")
    assert refused.headers == {"Retry-After": "2"}  # the first guess, 2 s, less 0.5 s, up
    assert refusal(gate, "alice", "2023").status == 429
    assert gate.run("bob", "2025", lambda: "bob's") == "bob's"  # another person is not held
    clock.now += 8.0
    release.set()
    assert first.join().answer == "answer"
    assert gate.run("alice", "2025", lambda: "now") == "now"  # her turn again
    release.clear()
    Asked(gate, "alice", "2022", computed, release)
    wait_until(lambda: gate.stats()["running"] == 1, what="another computation")
    clock.now += 3.0
    # Retry-After follows the last computation's length (0 s: the one just above) at least 1 s
    assert refusal(gate, "alice", "2021").retry_after_s == 1
    release.set()
    assert computed == ["2024", "2022"] and gate.stats()["refused"]["person"] == 3


def test_retry_after_is_what_the_blocking_computation_has_left_by_the_last_ones_length():
    clock = FakeMonotonic()
    gate, computed, release = ComputeGate("insights", 4, 4, clock), [], threading.Event()

    def slow():
        clock.now += 9.2
        return "slow"

    assert gate.run("alice", "all", slow) == "slow"
    Asked(gate, "alice", "90", computed, release)
    wait_until(lambda: gate.stats()["running"] == 1, what="a computation")
    clock.now += 3.0
    assert refusal(gate, "alice", "365").retry_after_s == 7  # 9.2 - 3.0, up
    release.set()


def test_sixteen_distinct_questions_of_one_person_compute_one_at_a_time():
    gate, computed, release = ComputeGate("insights", 2, 2), [], threading.Event()
    asked = [Asked(gate, "alice", f"range {i}", computed, release) for i in range(16)]
    wait_until(lambda: sum(a.raised is not None for a in asked) == 15, what="15 refusals")
    release.set()
    for a in asked:
        a.join()
    assert len(computed) == 1 and gate.stats()["peak"] == 1
    assert {type(a.raised) for a in asked if a.raised} == {StillComputing}
    assert sum(a.answer == "answer" for a in asked) == 1


def test_the_server_wide_cap_refuses_a_third_person_with_503_until_one_finishes():
    gate, computed, release = ComputeGate("insights", 2, 2), [], threading.Event()
    held = [Asked(gate, name, "all", computed, release) for name in ("alice", "bob")]
    wait_until(lambda: gate.stats()["running"] == 2, what="two computations")
    refused = refusal(gate, "carol", "all")
    assert (refused.status, refused.reason) == (503, "server")
    assert int(refused.headers["Retry-After"]) >= 1
    release.set()
    for a in held:
        a.join()
    assert gate.run("carol", "all", lambda: "carol's") == "carol's"
    assert gate.stats()["peak"] == 2 and gate.stats()["refused"]["server"] == 1


def test_requests_waiting_for_an_answer_are_bounded():
    gate, computed, release = ComputeGate("insights", 2, 1), [], threading.Event()
    first = Asked(gate, "alice", "all", computed, release)
    wait_until(lambda: gate.stats()["running"] == 1, what="the first computation")
    second = Asked(gate, "alice", "all", computed, release)
    wait_until(lambda: gate.stats()["waiting"] == 1, what="one request waiting")
    refused = refusal(gate, "alice", "all")
    assert (refused.status, refused.reason) == (429, "waiting")
    release.set()
    assert first.join().answer == second.join().answer == "answer" and computed == ["all"]


def test_a_failed_computation_reaches_its_waiters_and_frees_the_persons_turn():
    gate, computed, release = ComputeGate("insights", 2, 2), [], threading.Event()
    failure = ValueError("the database went away")
    first = Asked(gate, "alice", "all", computed, release, error=failure)
    wait_until(lambda: gate.stats()["running"] == 1, what="the first computation")
    second = Asked(gate, "alice", "all", computed, release)
    wait_until(lambda: gate.stats()["waiting"] == 1, what="one request waiting")
    release.set()
    assert first.join().raised is failure and second.join().raised is failure
    assert computed == ["all"] and gate.run("alice", "all", lambda: "again") == "again"
    assert gate.stats()["running"] == gate.stats()["waiting"] == 0


@pytest.mark.parametrize("threads,concurrency,running,waiting", [
    ("8", "0", 2, 2),  # the default: a quarter of the threads compute, as many may wait
    ("1", "0", 1, 0), ("3", "0", 1, 1), ("16", "0", 4, 4),
    ("8", "5", 5, 2),  # never so many waiting that insights hold every thread
    ("8", "7", 7, 0),
])
def test_the_gate_leaves_the_server_a_thread_for_everything_else(threads, concurrency, running,
                                                                  waiting):
    gate = insight_gate(Config.from_env({"KMOOD_THREADS": threads,
                                         "KMOOD_INSIGHTS_CONCURRENCY": concurrency}))
    assert (gate.max_running, gate.max_waiting) == (running, waiting)
