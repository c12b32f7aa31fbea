"""The insights API and page go through one gate (issue #36.3): while a person's range is
being computed, another range of theirs is answered 429 and, with the server's computations
all taken, anyone's is 503 — both with Retry-After, the page a calm "try again" rather than
an error — and an answer already kept is served whatever is being computed."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

import pytest

from tests.helpers import base_env, wait_until
from tests.insight_data import Plan, plant


@pytest.fixture
def env(db_path):
    return base_env(db_path, KMOOD_INSIGHTS_CONCURRENCY="1")


@pytest.fixture
def people(client_for, clock, conn):
    clock.set(datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc))
    alice, bob = client_for("alice"), client_for("bob")
    for name in ("alice", "bob"):
        plant(conn, user_id(conn, name), seed=3, plan=Plan(days=60, noise=2))
    return alice, bob


class Held:
    """Someone's insights computation under way, from another thread, until released."""

    def __init__(self, gate, owner: int):
        self.release = threading.Event()
        self.thread = threading.Thread(target=gate.run, args=(owner, "held", self.release.wait),
                                       daemon=True)
        self.thread.start()
        wait_until(lambda: gate.stats()["running"] == 1, what="the held computation")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.thread.join(30)


def user_id(conn, name: str) -> int:
    return conn.execute("SELECT id FROM users WHERE username = ?", (name,)).fetchone()[0]


def test_a_persons_other_range_is_429_with_retry_after_and_a_kept_one_is_served(
        people, services, conn):
    alice, _ = people
    kept = alice.get("/api/insights?from=2026-10-01")
    assert kept.status == 200
    with Held(services.insight_gate, user_id(conn, "alice")):
        refused = alice.get("/api/insights?from=2026-11-01")
        assert refused.status == 429, refused.text
        assert refused.json["error"]["code"] == "too_many_requests"
        assert int(refused.headers["Retry-After"]) >= 1
        assert alice.get("/api/insights?from=2026-10-01").json == kept.json  # kept: served
        page = alice.get("/insights?range=90")
        assert page.status == 429 and int(page.headers["Retry-After"]) >= 1
        assert "k-mood is still working out your insights." in page.text
        assert "Try again in" in page.text and 'href="/insights?range=90"' in page.text
    assert alice.get("/api/insights?from=2026-11-01").status == 200  # her turn now
    assert services.insight_gate.stats()["refused"]["person"] == 2


def test_with_every_computation_taken_anyones_range_is_503_with_retry_after(
        people, services, conn):
    alice, bob = people
    with Held(services.insight_gate, user_id(conn, "alice")):
        refused = bob.get("/api/insights")
        assert refused.status == 503, refused.text
        assert int(refused.headers["Retry-After"]) >= 1
        page = bob.get("/insights")
        assert page.status == 503 and int(page.headers["Retry-After"]) >= 1
        assert "k-mood is working out insights for others just now." in page.text
        assert "<h1>Insights</h1>" in page.text  # the page itself, not an error page
    assert bob.get("/insights").status == 200
    assert services.insight_gate.stats()["refused"]["server"] == 2
