"""The place kind against a fake Nominatim on 127.0.0.1: one lookup per cell ever, shared by
every entry in it, "no result" recorded, a changed location linked again (issue #11)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kmood_lib.queue import jobs, sweeps
from tests.fakes import FakeNominatim, Reply
from tests.helpers import base_env, one_worker_iteration
from tests.unit.test_weather import drain

NOW = datetime(2025, 4, 10, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def nominatim():
    with FakeNominatim({(52.5, 13.4): ("Berlin", "DE"), (48.1, 11.6): ("München", "DE")}) as fake:
        yield fake


@pytest.fixture
def env(db_path, nominatim):
    return base_env(db_path, KMOOD_NOMINATIM_URL=nominatim.url, KMOOD_ENRICH_WEATHER="0",
                    KMOOD_JOB_BACKOFF_BASE_S="1", KMOOD_JOB_BACKOFF_CAP_S="2")


@pytest.fixture
def alice(client_for, clock):
    clock.set(NOW)
    return client_for("alice")


def place_of(client, entry_id: int):
    return client.get(f"/api/entries/{entry_id}").json["location"]["place"]


def test_one_lookup_per_cell_names_every_entry_in_it(alice, client_for, services, clock,
                                                     nominatim):
    ids = [alice.post("/api/entries", {"mood": 3, "location": {"lat": 52.5 + i * 0.004,
                                                               "lon": 13.4}}).json["id"]
           for i in range(10)]
    munich = alice.post("/api/entries", {"mood": 4, "location": {"lat": 48.1, "lon": 11.6}}
                        ).json["id"]
    nowhere = alice.post("/api/entries", {"mood": 2, "location": {"lat": 0.0, "lon": -150.0}}
                         ).json["id"]
    drain(services, clock)
    assert {place_of(alice, i) for i in ids} == {"Berlin, DE"}
    assert place_of(alice, munich) == "München, DE" and place_of(alice, nowhere) is None
    assert len(nominatim.requests) == 3  # one per cell, the ocean included
    request = nominatim.requests[0]
    assert request["query"]["zoom"] == "10" and request["query"]["format"] == "jsonv2"
    assert request["headers"]["User-Agent"] == services.config.user_agent
    later = client_for("bob").post("/api/entries", {"mood": 5, "location": {"lat": 52.501,
                                                                             "lon": 13.402}})
    drain(services, clock)
    assert place_of(alice, ids[0]) == "Berlin, DE"
    assert len(nominatim.requests) == 3  # a known cell is never asked again
    assert later.status == 201
    assert sweeps.sweep_all(services.connect(), services.job_kinds, clock.now_ms(), 100,
                            jobs.Policy.from_config(services.config))["place"] == 0


def test_a_failed_lookup_is_retried_and_a_new_location_is_named_again(alice, services, clock,
                                                                     nominatim, conn):
    nominatim.failure = Reply({"error": "busy"}, 503)
    entry = alice.post("/api/entries", {"mood": 3, "location": {"lat": 52.5, "lon": 13.4}}).json
    one_worker_iteration(services)
    job = jobs.list_jobs(conn, kind="place")[0]
    assert job["status"] == "retrying" and "503" in job["last_error"]
    nominatim.failure = None
    drain(services, clock)
    assert place_of(alice, entry["id"]) == "Berlin, DE"
    alice.patch(f"/api/entries/{entry['id']}", {"location": {"lat": 48.1, "lon": 11.6}})
    assert place_of(alice, entry["id"]) is None
    drain(services, clock)
    assert place_of(alice, entry["id"]) == "München, DE"


def test_a_slot_is_taken_only_when_free_and_says_when_it_frees(conn):
    from kmood_lib.queue.polite import take_slot

    assert take_slot(conn, "nominatim", 10_000, 1000) is None  # taken: the request may go
    assert take_slot(conn, "nominatim", 10_400, 1000) == 11_000  # busy until then
    assert take_slot(conn, "musicbrainz", 10_400, 1000) is None  # each upstream its own
    assert take_slot(conn, "nominatim", 11_000, 1000) is None
    assert take_slot(conn, "nominatim", 11_999, 1000) == 12_000


def test_a_slot_is_dated_when_the_write_lock_is_had_not_before_waiting_for_it(services, clock,
                                                                          db_path):
    """Another worker writing holds the lock while this one's clock moves on 600 ms: the slot
    is dated from when it was taken, so the next request cannot follow sooner than the
    interval after this one really went."""
    import sqlite3
    import threading
    from types import SimpleNamespace

    from kmood_lib.queue.polite import wait_for_slot

    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    before, asked = clock.now_ms(), threading.Event()

    def take() -> None:
        conn = services.connect()
        try:
            asked.set()
            wait_for_slot(SimpleNamespace(conn=conn, services=services), "nominatim")
        finally:
            conn.close()

    taking = threading.Thread(target=take)
    taking.start()
    asked.wait(10)
    threading.Event().wait(0.3)  # the taker is queued behind the other writer's lock
    clock.advance(0.6)
    other.execute("COMMIT")
    taking.join(10)
    next_at = other.execute("SELECT next_at FROM upstream_slots WHERE upstream = 'nominatim'"
                            ).fetchone()[0]
    other.close()
    assert next_at == before + 600 + services.config.polite_interval_ms


def test_a_busy_upstream_defers_jobs_unattempted_and_one_by_one(alice, services, clock, conn,
                                                                nominatim):
    for i in range(3):
        alice.post("/api/entries", {"mood": 3, "location": {"lat": 10.0 + i, "lon": 20.0}})
    conn.execute("UPDATE upstream_slots SET next_at = ? WHERE upstream = 'nominatim'",
                 (clock.now_ms() + 5000,))  # another worker's request just went out
    one_worker_iteration(services)
    rows = conn.execute("SELECT status, attempts, run_after, last_error FROM jobs"
                        " WHERE kind = 'place' ORDER BY run_after").fetchall()
    assert nominatim.requests == []
    assert [(r["status"], r["attempts"]) for r in rows] == [("queued", 0)] * 3
    assert [r["run_after"] - clock.now_ms() for r in rows] == [5000, 5001, 5002]  # spaced
    assert "nominatim request slot" in rows[0]["last_error"]
    clock.advance(6)
    drain(services, clock)
    assert len(nominatim.requests) == 3


def test_place_stats_rank_places_by_entries_with_their_mean_mood(alice, client_for, services,
                                                                 clock, nominatim):
    nominatim.places[(52.6, 13.4)] = ("Berlin", "DE")  # a second cell with the same name
    for lat, mood in ((52.5, 5), (52.5, 3), (52.61, 4), (48.1, 1)):  # two Berlin cells
        alice.post("/api/entries", {"mood": mood, "location": {"lat": lat, "lon": 13.4
                                                               if lat > 50 else 11.6}})
    alice.post("/api/entries", {"mood": 2, "location": {"lat": 0.0, "lon": -150.0}})  # no name
    alice.post("/api/entries", {"mood": 2})
    client_for("bob").post("/api/entries", {"mood": 1, "location": {"lat": 52.5, "lon": 13.4}})
    drain(services, clock)
    data = alice.get("/api/stats/places").json
    assert data == {"entries_with_place": 4, "places": [
        {"place": "Berlin, DE", "average": 4.0, "count": 3},
        {"place": "München, DE", "average": 1.0, "count": 1}]}
    page = alice.get("/stats?range=all").text
    assert "Average mood by place" in page and "Berlin, DE" in page
    assert alice.get("/api/stats/places?from=2030-01-01").json == {
        "entries_with_place": 0, "places": []}


def test_a_place_name_that_is_not_valid_unicode_is_stored_readably(alice, services, clock,
                                                                   conn, nominatim):
    nominatim.places[(10.0, 10.0)] = ("Odd\ud800town", "XX")
    entry = alice.post("/api/entries", {"mood": 3, "location": {"lat": 10.0, "lon": 10.0}}).json
    drain(services, clock)
    assert place_of(alice, entry["id"]) == "Odd\ufffdtown, XX"
    assert [tuple(r) for r in conn.execute(
        "SELECT kind, status FROM jobs WHERE kind <> 'insights'")] == [
        ("place", "done")]
