"""The weather kind against a fake Open-Meteo on 127.0.0.1: one request per cell and year, the
nearest UTC hour, results vs failures, outages that lose nothing (issue #11, weather slice)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from kmood_lib.queue import jobs, sweeps
from tests.fakes import FakeOpenMeteo, Reply, fake_temperature
from tests.helpers import base_env, one_worker_iteration

NOW = datetime(2025, 4, 10, 12, 0, tzinfo=timezone.utc)
CELLS = [(52.52 + i * 0.3, 13.40 + i * 0.2) for i in range(10)]


@pytest.fixture
def meteo():
    with FakeOpenMeteo() as fake:
        yield fake


@pytest.fixture
def env(db_path, meteo):
    return base_env(db_path, KMOOD_OPEN_METEO_ARCHIVE_URL=meteo.url,
                    KMOOD_OPEN_METEO_FORECAST_URL=meteo.url, KMOOD_JOB_BACKOFF_BASE_S="1",
                    KMOOD_JOB_BACKOFF_CAP_S="2", KMOOD_ENRICH_PLACE="0")


@pytest.fixture
def alice(client_for, clock):
    clock.set(NOW)
    return client_for("alice", timezone="Europe/Berlin")


def drain(services, clock, rounds: int = 30) -> None:
    """Worker iterations (each with a fresh sweep) until nothing is live; the clock jumps past
    any backoff in between, as time would."""
    for _ in range(rounds):
        one_worker_iteration(services)
        conn = services.connect()
        live = conn.execute("SELECT count(*) FROM jobs WHERE status IN ('queued', 'running',"
                            " 'retrying')").fetchone()[0]
        conn.close()
        if not live:
            return
        clock.advance(5)
    raise AssertionError("jobs still live after draining")


def weather_of(alice, entry_id: int):
    return alice.get(f"/api/entries/{entry_id}").json["weather"]


def test_a_backlog_collapses_to_one_request_per_cell_and_every_entry_is_filled(
        alice, services, clock, meteo, conn):
    ids = []
    for i in range(2000):
        lat, lon = CELLS[i % 10]
        when = datetime(2025, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=i * 64)
        ids.append(alice.post("/api/entries", {"mood": 3, "occurred_at": when.isoformat(),
                                               "location": {"lat": lat + 0.01, "lon": lon}}
                              ).json["id"])
    assert conn.execute("SELECT count(*) FROM jobs WHERE kind = 'weather'").fetchone()[0] == 10
    checks = {  # occurred_at -> the UTC hour whose value it must get
        "2025-03-02T00:30:00+01:00": datetime(2025, 3, 2, 0, tzinfo=timezone.utc),  # :30 -> later
        "2025-03-02T00:20:00+01:00": datetime(2025, 3, 1, 23, tzinfo=timezone.utc),  # prior UTC day
        "2025-03-05T10:29:59+00:00": datetime(2025, 3, 5, 10, tzinfo=timezone.utc),
        "2025-04-08T18:45:00+02:00": datetime(2025, 4, 8, 17, tzinfo=timezone.utc),  # forecast
    }
    checked = {when: alice.post("/api/entries", {"mood": 4, "occurred_at": when, "location": {
        "lat": CELLS[0][0], "lon": CELLS[0][1]}}).json["id"] for when in checks}
    drain(services, clock)
    archive, forecast = meteo.calls("/v1/archive"), meteo.calls("/v1/forecast")
    assert len(archive) == 10 and len(forecast) == 1, (len(archive), len(forecast))
    assert forecast[0]["query"]["start_date"] == "2025-04-08" and "past_days" not in forecast[0][
        "query"]
    assert all(r["query"]["end_date"] <= "2025-04-05" for r in archive)
    missing = conn.execute("SELECT count(*) FROM entries e WHERE NOT EXISTS"
                           " (SELECT 1 FROM weather w WHERE w.entry_id = e.id)").fetchone()[0]
    assert missing == 0
    for when, hour in checks.items():
        weather = weather_of(alice, checked[when])
        lat = float(f"{round(CELLS[0][0] / 0.1) * 0.1:.4f}")
        assert weather["temperature_c"] == fake_temperature(hour.date(), hour.hour, lat), when
        assert weather["code"] == (3 if hour.hour % 2 else 61)
        assert weather["description"] == ("Overcast" if hour.hour % 2 else "Light rain")
    agents = {r["headers"].get("User-Agent") for r in meteo.requests}
    assert agents == {services.config.user_agent} and "Python" not in str(agents)


def test_old_missing_data_is_a_result_and_recent_missing_data_is_asked_again(
        alice, services, clock, meteo, conn):
    meteo.nulls = {date(2025, 2, 1), date(2025, 4, 7)}
    old = alice.post("/api/entries", {"mood": 3, "occurred_at": "2025-02-01T12:00:00+00:00",
                                      "location": {"lat": 52.5, "lon": 13.4}}).json["id"]
    recent = alice.post("/api/entries", {"mood": 3, "occurred_at": "2025-04-07T12:00:00+00:00",
                                         "location": {"lat": 52.5, "lon": 13.4}}).json["id"]
    drain(services, clock)
    assert weather_of(alice, old) == {"unavailable": True}
    assert weather_of(alice, recent) is None  # not there yet: no row, the sweep will ask again
    asked = len(meteo.requests)
    meteo.nulls = set()
    clock.advance(3600)
    drain(services, clock)
    assert weather_of(alice, recent)["temperature_c"] is not None
    assert all(r["query"]["start_date"] >= "2025-04-07" for r in meteo.requests[asked:])


@pytest.mark.parametrize("failure", [Reply({"error": "overloaded"}, 503),
                                     Reply({"error": "slow down"}, 429),
                                     Reply(raw=b"<html>not json</html>"),
                                     Reply({"hourly": {"time": ["x"]}})])
def test_an_outage_retries_loses_nothing_and_a_lost_queue_is_found_again(
        alice, services, clock, meteo, conn, failure):
    meteo.failure = failure
    ids = [alice.post("/api/entries", {"mood": 3, "occurred_at": f"2025-03-{d:02d}T09:00:00",
                                       "location": {"lat": 48.1, "lon": 11.6}}).json["id"]
           for d in range(1, 6)]
    one_worker_iteration(services)
    job = jobs.list_jobs(conn, kind="weather")[0]
    assert job["status"] == "retrying" and job["attempts"] == 1 and job["last_error"]
    conn.execute("DELETE FROM jobs")  # the queue is lost as well
    meteo.failure = None
    drain(services, clock)
    assert all(weather_of(alice, i)["temperature_c"] is not None for i in ids)


def test_a_save_never_waits_on_a_hanging_upstream(alice, meteo):
    import time

    meteo.failure = Reply(behaviour="hang")
    started = time.monotonic()
    response = alice.post("/api/entries", {"mood": 3, "location": {"lat": 1.0, "lon": 2.0},
                                           "occurred_at": "2025-03-01T10:00:00"})
    assert response.status == 201 and time.monotonic() - started < 5


def test_a_new_location_drops_the_weather_and_the_sweep_fills_it_again(
        alice, services, clock, meteo):
    entry = alice.post("/api/entries", {"mood": 3, "occurred_at": "2025-03-01T10:00:00+00:00",
                                        "location": {"lat": 52.5, "lon": 13.4}}).json
    drain(services, clock)
    first = weather_of(alice, entry["id"])
    alice.patch(f"/api/entries/{entry['id']}", {"note": "same place"})
    assert weather_of(alice, entry["id"]) == first
    alice.patch(f"/api/entries/{entry['id']}", {"location": {"lat": 40.4, "lon": -3.7}})
    assert weather_of(alice, entry["id"]) is None
    drain(services, clock)
    again = weather_of(alice, entry["id"])
    assert again["temperature_c"] != first["temperature_c"]  # the fake encodes the latitude
    assert meteo.calls("/v1/archive")[-1]["query"]["latitude"] == "40.4000"
    alice.patch(f"/api/entries/{entry['id']}", {"location": None})
    assert weather_of(alice, entry["id"]) is None


def test_entries_in_the_future_wait_until_their_time_has_passed(alice, services, clock, meteo):
    soon = alice.post("/api/entries", {"mood": 3, "occurred_at": "2025-04-10T20:00:00+00:00",
                                       "location": {"lat": 52.5, "lon": 13.4}}).json["id"]
    drain(services, clock)
    assert weather_of(alice, soon) is None and meteo.requests == []
    clock.set(datetime(2025, 4, 10, 21, 0, tzinfo=timezone.utc))
    drain(services, clock)
    assert weather_of(alice, soon)["temperature_c"] is not None


def test_switched_off_weather_sweeps_nothing_and_finishes_queued_jobs_as_done(
        config, clock, meteo, conn, make_user):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi
    from tests.conftest import PASSWORD
    from tests.wsgi import Client

    clock.set(NOW)
    on = bootstrap(config, clock=clock)
    make_user("bo")
    client = Client(make_wsgi(on))
    client.login("bo", PASSWORD)
    client.post("/api/entries", {"mood": 3, "occurred_at": "2025-03-01T10:00:00",
                                 "location": {"lat": 52.5, "lon": 13.4}})
    assert jobs.list_jobs(conn, kind="weather")[0]["status"] == "queued"
    off = bootstrap(config.with_overrides(enrich_weather=False), clock=clock)
    drain(off, clock)
    assert [j["status"] for j in jobs.list_jobs(conn, kind="weather")] == ["done"]
    assert meteo.requests == []
    assert conn.execute("SELECT count(*) FROM weather").fetchone()[0] == 0
    assert sweeps.sweep_all(conn, off.job_kinds, clock.now_ms(), 100,
                            jobs.Policy.from_config(off.config))["weather"] == 0
    drain(on, clock)  # switched back on, the sweep finds the work again
    assert conn.execute("SELECT count(*) FROM weather").fetchone()[0] == 1


def one_weather_attempt(client, services) -> None:
    """An entry whose weather is looked up once: the worker's first attempt, as it ends."""
    client.post("/api/entries", {"mood": 3, "occurred_at": "2025-03-01T10:00:00",
                                 "location": {"lat": 52.5, "lon": 13.4}})
    one_worker_iteration(services)


def test_a_429_with_retry_after_pushes_the_retry_at_least_that_far(alice, services, clock, meteo,
                                                                    conn):
    meteo.failure = Reply({"error": "slow down"}, 429, headers={"Retry-After": "600"})
    one_weather_attempt(alice, services)
    job = conn.execute("SELECT status, run_after FROM jobs WHERE kind = 'weather'").fetchone()
    assert job["status"] == "retrying"
    assert job["run_after"] >= clock.now_ms() + 600_000  # the backoff alone is 0.5-1 s here


def test_weather_stats_give_mood_by_temperature_band_and_conditions(alice, services, clock):
    import math

    for when, mood in (("2025-03-01T09:10:00+00:00", 5), ("2025-03-01T10:10:00+00:00", 1),
                       ("2025-03-02T09:10:00+00:00", 4)):
        alice.post("/api/entries", {"mood": mood, "occurred_at": when,
                                    "location": {"lat": 52.5, "lon": 13.4}})
    alice.post("/api/entries", {"mood": 2})  # no location: no weather, not counted
    drain(services, clock)
    data = alice.get("/api/stats/weather").json
    assert data["entries_with_weather"] == 3
    groups = {g["group"]: (g["average"], g["count"]) for g in data["conditions"]}
    assert groups == {"cloudy": (4.5, 2), "rain": (1.0, 1)}  # the fake: odd hours overcast
    bands = {(b["from_c"], b["to_c"]): (b["average"], b["count"]) for b in data["temperature"]}
    expected: dict = {}
    for day, hour, mood in ((date(2025, 3, 1), 9, 5), (date(2025, 3, 1), 10, 1),
                            (date(2025, 3, 2), 9, 4)):
        start = math.floor(fake_temperature(day, hour, 52.5) / 5) * 5
        expected.setdefault((start, start + 5), []).append(mood)
    assert bands == {k: (round(sum(v) / len(v), 3), len(v)) for k, v in expected.items()}
    page = alice.get("/stats?range=all").text
    assert "Average mood by weather" in page and "By temperature" in page
    assert alice.get("/api/stats/weather?from=2026-01-01").json == {
        "entries_with_weather": 0, "temperature": [], "conditions": []}


def test_every_request_books_its_weight_in_the_shared_budget(alice, services, clock, meteo,
                                                              conn):
    for day in (1, 45, 90):  # one cell, a span of 90 days: one request weighing 90/14 calls
        alice.post("/api/entries", {"mood": 3, "location": {"lat": 52.5, "lon": 13.4},
                                    "occurred_at": (datetime(2025, 1, 1, 12, tzinfo=timezone.utc)
                                                    + timedelta(days=day - 1)).isoformat()})
    drain(services, clock)
    assert len(meteo.requests) == 1
    used = conn.execute("SELECT span_ms, used FROM upstream_budgets WHERE upstream ="
                        " 'open-meteo' ORDER BY span_ms").fetchall()
    assert [(row[0], round(row[1], 3)) for row in used] == [
        (60_000, round(90 / 14, 3)), (3_600_000, round(90 / 14, 3)),
        (86_400_000, round(90 / 14, 3))]


def test_a_full_budget_waits_rather_than_exceeds_it(alice, services, clock, meteo, conn):
    conn.execute("UPDATE upstream_budgets SET window_start = ?, used = 4999.5"
                 " WHERE span_ms = 3600000", (clock.now_ms() - clock.now_ms() % 3_600_000,))
    entry = alice.post("/api/entries", {"mood": 3, "location": {"lat": 52.5, "lon": 13.4},
                                        "occurred_at": "2025-03-01T12:00:00+00:00"}).json["id"]
    one_worker_iteration(services)
    job = jobs.list_jobs(conn, kind="weather")[0]
    assert job["status"] == "queued" and job["attempts"] == 0  # deferred, not failed
    assert "open-meteo" in job["last_error"] and "budget" in job["last_error"]
    assert meteo.requests == []  # nothing was sent over the limit
    assert job["run_after"] == clock.now_ms() + 3_600_000  # when the hour rolls over
    clock.advance(3600)
    drain(services, clock)
    assert weather_of(alice, entry)["code"] in (3, 61) and len(meteo.requests) == 1


def test_budget_windows_roll_over_on_their_own_span(conn):
    from kmood_lib.queue.polite import book

    start = 7 * 86_400_000  # midnight UTC: every window starts here
    assert book(conn, "open-meteo", 599, start) == 0
    assert book(conn, "open-meteo", 2, start + 59_000) == start + 60_000  # the minute is full
    assert book(conn, "open-meteo", 2, start + 60_000) == 0  # a new minute
    used = dict(conn.execute("SELECT span_ms, used FROM upstream_budgets").fetchall())
    assert used == {60_000: 2, 3_600_000: 601, 86_400_000: 601}


def test_a_span_longer_than_the_range_is_split(services):
    from kmood_lib.enrich.weather import spans

    days = [date(2025, 1, 1) + timedelta(days=n) for n in (0, 1, 29, 30, 31, 200)]
    assert spans(days, 30) == [(date(2025, 1, 1), date(2025, 1, 30)),
                               (date(2025, 1, 31), date(2025, 2, 1)),
                               (date(2025, 7, 20), date(2025, 7, 20))]
    assert spans(days, 366) == [(date(2025, 1, 1), date(2025, 7, 20))]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", "-600", "soon"])
def test_a_retry_after_that_is_no_delay_is_ignored_and_the_real_error_kept(
        alice, services, clock, meteo, conn, value):
    meteo.failure = Reply({"error": "slow down"}, 429, headers={"Retry-After": value})
    one_weather_attempt(alice, services)
    job = conn.execute("SELECT * FROM jobs WHERE kind = 'weather'").fetchone()
    assert (job["status"], job["attempts"], job["lease_until"]) == ("retrying", 1, None)
    assert "429" in job["last_error"] and "stopped responding" not in job["last_error"]
    assert clock.now_ms() < job["run_after"] <= clock.now_ms() + 1_000  # the backoff alone


def test_a_retry_after_given_as_an_http_date_is_honoured(alice, services, clock, meteo, conn):
    from email.utils import format_datetime

    sent = datetime(2031, 1, 1, 12, tzinfo=timezone.utc)  # the upstream's clock, not ours
    meteo.failure = Reply({"error": "slow down"}, 503, headers={
        "Date": format_datetime(sent, usegmt=True),
        "Retry-After": format_datetime(sent + timedelta(minutes=10), usegmt=True)})
    one_weather_attempt(alice, services)
    job = conn.execute("SELECT status, run_after FROM jobs WHERE kind = 'weather'").fetchone()
    assert job["status"] == "retrying" and job["run_after"] >= clock.now_ms() + 600_000
