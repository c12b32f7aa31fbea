"""Insights cannot occupy every server thread (issue #36.3): 16 parallel insights requests for
16 different ranges of one person (3 years, ~4 400 entries) made 8-24 s answers and a 16.6 s
/healthz. Now the real server computes one range per person at a time and answers the rest
429 with Retry-After at once, while /healthz keeps answering; the same range asked at once
is computed once."""

from __future__ import annotations

import re
import threading
from datetime import date, timedelta

from kmood_lib.bootstrap import bootstrap
from kmood_lib.core.config import Config
from tests.helpers import http
from tests.insight_data import Plan, plant

LAST = date.today() - timedelta(days=1)


def seed(stack, name: str) -> int:
    """Three years of four entries a day or so, written straight into the tables."""
    services = bootstrap(Config.from_env(stack.env))
    conn = services.connect()
    try:
        uid = conn.execute("SELECT id FROM users WHERE username = ?", (name,)).fetchone()[0]
        plant(conn, uid, seed=36, plan=Plan(days=3 * 365, entries_per_day=(3, 4, 5)), last=LAST)
        return conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    finally:
        conn.close()
        services.hasher.close()


def metric(stack, auth: dict, name: str) -> float:
    status, _, text = http("GET", stack.url + "/metrics", headers=auth)
    assert status == 200, text
    found = re.search(rf"^{name} ([0-9.e+]+)$", text, re.M)
    assert found, name
    return float(found.group(1))


def in_parallel(stack, auth: dict, paths: list[str]) -> list[tuple[int, dict, object]]:
    answers: list = [None] * len(paths)

    def ask(i: int) -> None:
        answers[i] = http("GET", stack.url + paths[i], headers=auth, timeout=300)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(paths))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    return answers


class HealthProbe:
    """/healthz from another client, over and over, until stopped; counts the answers that
    came back while `busy` was still set."""

    def __init__(self, url: str, busy: threading.Event):
        self.url, self.busy = url, busy
        self.statuses: list[int] = []
        self.during = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            status, _, _ = http("GET", self.url + "/healthz", timeout=120)
            self.statuses.append(status)
            self.during += self.busy.is_set()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(150)


def test_sixteen_ranges_at_once_compute_one_at_a_time_while_healthz_answers(stack_factory):
    stack = stack_factory()
    stack.create_user("root")  # the first user: an admin, to read /metrics
    stack.create_user("alice")
    assert seed(stack, "alice") > 4000
    stack.start(worker=False)
    alice, root = stack.log_in("alice"), stack.log_in("root")
    paths = [f"/api/insights?from={LAST - timedelta(days=400 + 30 * i)}&to={LAST}"
             for i in range(16)]
    busy = threading.Event()
    busy.set()
    with HealthProbe(stack.url, busy) as probe:
        answers = in_parallel(stack, alice, paths)
        busy.clear()
    statuses = [status for status, _, _ in answers]
    print(f"16 ranges at once: {statuses.count(200)} computed, {statuses.count(429)} refused;"
          f" /healthz answered {probe.during} times meanwhile")
    assert set(statuses) <= {200, 429} and 200 in statuses, statuses
    assert statuses.count(429) >= 9, statuses  # most: they came while one was computed
    for status, headers, body in answers:
        if status == 429:
            assert int(headers["Retry-After"]) >= 1
            assert body["error"]["code"] == "too_many_requests"
    assert metric(stack, root, "kmood_insights_running_peak") == 1
    assert metric(stack, root, "kmood_insights_computed_total") == statuses.count(200)
    assert metric(stack, root, 'kmood_insights_refused_total{reason="person"}') \
        == statuses.count(429)
    assert probe.during >= 1 and set(probe.statuses) == {200}, probe.statuses

    # the same range three times at once: computed once, answered to all three
    same = in_parallel(stack, alice, [f"/api/insights?from={LAST - timedelta(days=99)}"] * 3)
    assert [status for status, _, _ in same] == [200] * 3
    assert same[0][2] == same[1][2] == same[2][2]
    assert metric(stack, root, "kmood_insights_computed_total") == statuses.count(200) + 1
    assert stack.stop()["server"] == 0
