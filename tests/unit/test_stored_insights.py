"""The standard ranges' insights are computed by the worker after the journal changes and shown
at once (SPEC §11, issue #39): the `insights` job, its sweep over people whose stored results
are older than their journal, and a visit that shows the stored result, marked updating while
a newer one is on its way."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone

import pytest

from kmood_lib.core.config import Config
from kmood_lib.enrich.insights import insights_kind
from kmood_lib.journal import insight_store, insights
from kmood_lib.queue import jobs
from tests.helpers import base_env, one_worker_iteration
from tests.insight_data import Plan, plant

NOON = datetime(2026, 12, 4, 12, 0, tzinfo=timezone.utc)
SMALL = Plan(days=45, noise=2, weather=False)


@pytest.fixture
def alice(client_for, clock):
    clock.set(NOON)
    return client_for("alice")


@pytest.fixture
def uid(conn, alice):
    return conn.execute("SELECT id FROM users WHERE username = 'alice'").fetchone()[0]


def live_jobs(conn) -> list[str]:
    return [r[0] for r in conn.execute(f"SELECT key FROM jobs WHERE kind = 'insights' AND"
                                       f" {jobs.LIVE_SQL} ORDER BY key")]


def stored_versions(conn, uid) -> dict[str, int]:
    return dict(conn.execute("SELECT range, version FROM stored_insights WHERE user_id = ?",
                             (uid,)).fetchall())


def version(conn, uid) -> int:
    return conn.execute("SELECT version FROM journal_versions WHERE user_id = ?",
                        (uid,)).fetchone()[0]


def test_the_worker_stores_every_standard_range_and_a_visit_shows_them_without_computing(
        alice, conn, uid, services):
    plant(conn, uid, seed=3, plan=SMALL)
    one_worker_iteration(services)  # the sweep finds alice, the job computes her ranges
    assert stored_versions(conn, uid) == {"90": version(conn, uid), "365": version(conn, uid),
                                          "all": version(conn, uid)}
    for key in ("all", "365", "90"):
        answer = alice.get(f"/api/insights?range={key}").json
        assert answer["updating"] is False and answer["computed_at"] == NOON.timestamp() * 1000
        date_from, date_to = insight_store.standard_range(conn, uid, key, date(2026, 12, 4))
        computed = insights.analysis(conn, uid, date_from, date_to,
                                     insights.thresholds_from(services.config))
        assert {k: v for k, v in answer.items() if k in computed} == json.loads(
            json.dumps(computed))
    assert alice.get("/api/insights").json == alice.get("/api/insights?range=all").json
    page = alice.get("/insights?range=all")
    assert page.status == 200 and "45</strong> logged days" in page.text
    assert "Updating" not in page.text
    assert services.insight_cache.computed == 0  # the server computed nothing


def test_a_saved_entry_queues_the_job_and_the_page_shows_the_old_result_as_updating_until_then(
        alice, conn, uid, services):
    plant(conn, uid, seed=3, plan=SMALL)
    one_worker_iteration(services)
    assert live_jobs(conn) == []
    assert alice.post("/api/entries", {"mood": 5, "occurred_at": "2026-12-04T09:00:00Z"}
                      ).status == 201
    assert alice.post("/api/entries", {"mood": 4, "occurred_at": "2026-12-03T09:00:00Z"}
                      ).status == 201
    # queued by the saves themselves, one job for both, due a little later
    assert live_jobs(conn) == [f"insights:{uid}"]
    assert conn.execute("SELECT run_after FROM jobs WHERE kind = 'insights' AND status ="
                        " 'queued'").fetchone()[0] == (
        NOON.timestamp() * 1000 + 10_000)
    page = alice.get("/insights?range=all")
    assert page.status == 200 and 'id="insights-updating"' in page.text
    assert "45</strong> logged days" in page.text  # the stored result, at once
    assert alice.get("/api/insights").json["updating"] is True
    assert services.insight_cache.computed == 0
    one_worker_iteration(services)
    assert live_jobs(conn) == [f"insights:{uid}"]  # not yet due
    services.clock.advance(10)
    one_worker_iteration(services)
    page = alice.get("/insights?range=all")
    assert "47</strong> logged days" in page.text and "insights-updating" not in page.text
    assert live_jobs(conn) == [] and services.insight_cache.computed == 0


def test_a_visit_that_finds_them_out_of_date_queues_one_job_when_none_is_on_its_way(
        alice, conn, uid, services):
    plant(conn, uid, seed=3, plan=SMALL)
    one_worker_iteration(services)
    conn.execute("DELETE FROM entries WHERE id = (SELECT max(id) FROM entries)")  # no prompt
    assert live_jobs(conn) == []
    for _ in range(2):
        assert alice.get("/api/insights?range=90").json["updating"] is True
    assert live_jobs(conn) == [f"insights:{uid}"]
    assert conn.execute("SELECT count(*) FROM jobs WHERE kind = 'insights' AND status ="
                        " 'queued'").fetchone()[0] == 1


def test_a_first_visit_before_the_worker_computes_on_demand_and_queues_the_job(
        alice, conn, uid, services):
    plant(conn, uid, seed=3, plan=SMALL)
    answer = alice.get("/api/insights?range=365").json
    assert answer["days"] == 45 and answer["updating"] is False
    assert answer["computed_at"] is None and services.insight_cache.computed == 1
    assert live_jobs(conn) == [f"insights:{uid}"]


def sweep_keys(conn, config: Config, now: datetime) -> list[str]:
    kind = insights_kind(config)
    return sorted(r[0] for r in conn.execute(kind.sweep_sql, kind.params(
        int(now.timestamp() * 1000))))


def test_the_sweep_finds_exactly_the_people_whose_stored_insights_are_not_current(
        conn, make_user, clock, services, config, db_path):
    clock.set(NOON)
    ids = {name: make_user(name, timezone=zone).id for name, zone in (
        ("current", "UTC"), ("changed", "UTC"), ("empty", "UTC"), ("never", "UTC"),
        ("tokyo", "Asia/Tokyo"), ("partial", "UTC"), ("emptied", "UTC"))}
    for name in ("current", "changed", "never", "tokyo", "partial", "emptied"):
        plant(conn, ids[name], seed=ids[name], plan=Plan(days=5, noise=1, weather=False))
    conn.commit()
    one_worker_iteration(services)
    assert sweep_keys(conn, config, NOON) == []
    conn.execute("DELETE FROM stored_insights WHERE user_id = ?", (ids["never"],))
    conn.execute("DELETE FROM stored_insights WHERE user_id = ? AND range = '90'",
                 (ids["partial"],))
    conn.execute("UPDATE entries SET mood = 6 - mood WHERE id = (SELECT min(id) FROM entries"
                 " WHERE user_id = ?)", (ids["changed"],))
    conn.execute("DELETE FROM entries WHERE user_id = ?", (ids["emptied"],))
    stale = {f"insights:{ids[n]}" for n in ("changed", "never", "partial", "emptied")}
    assert set(sweep_keys(conn, config, NOON)) == stale
    # Tokyo's day ends at 15:00 UTC: its ranges move then, UTC's at midnight.
    assert set(sweep_keys(conn, config, NOON + timedelta(hours=3))) == stale | {
        f"insights:{ids['tokyo']}"}
    assert set(sweep_keys(conn, config, NOON + timedelta(hours=12))) == {
        f"insights:{ids[n]}" for n in ("changed", "never", "partial", "tokyo", "current",
                                        "emptied")}
    # other thresholds: every stored result is someone else's answer
    other = Config.from_env(base_env(db_path) | {"KMOOD_INSIGHTS_MIN_EACH": "10"})
    assert len(sweep_keys(conn, other, NOON)) == 6


def test_the_worker_never_stores_a_result_over_one_from_a_newer_journal(conn, uid, alice):
    plant(conn, uid, seed=3, plan=Plan(days=5, noise=1, weather=False))
    limits, today = insights.Thresholds(), date(2026, 12, 4)
    older = insight_store.compute(conn, uid, "all", today, limits)
    conn.execute("UPDATE entries SET mood = 6 - mood WHERE id = (SELECT min(id) FROM entries)")
    newer = insight_store.compute(conn, uid, "all", today, limits)
    assert newer["version"] == older["version"] + 1
    insight_store.save(conn, uid, [newer], limits, 2 ** 62, 1)
    insight_store.save(conn, uid, [older], limits, 2 ** 62, 2)  # a slow worker, late
    assert stored_versions(conn, uid) == {"all": newer["version"]}
    assert conn.execute("SELECT computed_at FROM stored_insights").fetchone()[0] == 1


@pytest.mark.parametrize("column,value", [
    ("body", '{"days": '), ("body", "[]"), ("body", '"x"'), ("body", "\udcff"),
    ("settings", "\udcff"), ("date_to", "\udcff"), ("version", "x"), ("fresh_until", "x")])
def test_a_stored_result_that_cannot_be_read_is_computed_again_not_a_500(
        alice, conn, uid, services, column, value):
    plant(conn, uid, seed=3, plan=SMALL)
    one_worker_iteration(services)
    conn.execute(f"UPDATE stored_insights SET {column} = CAST(? AS TEXT) WHERE range = 'all'",
                 (value.encode("utf-8", "surrogateescape"),))
    answer = alice.get("/api/insights")
    assert answer.status == 200 and answer.json["days"] == 45
    if column == "date_to":  # the result reads, its day does not: shown, and computed anew
        assert answer.json["updating"] is True and live_jobs(conn) == [f"insights:{uid}"]
    else:
        assert answer.json["computed_at"] is None and services.insight_cache.computed == 1


@pytest.mark.parametrize("query,field", [("range=30", "range"), ("range=", "range"),
                                         ("range=all&from=2026-01-01", "range")])
def test_the_api_refuses_an_unknown_range_or_a_range_with_dates(alice, query, field):
    refused = alice.get(f"/api/insights?{query}")
    assert refused.status == 422 and field in refused.json["error"]["fields"]


@pytest.mark.parametrize("was,now", [('"min_each":14', '"min_each":10'),
                                     (f'"method":{insights.METHOD}', '"method":1')],
                         ids=["other thresholds", "an older method"])
def test_results_stored_under_other_thresholds_or_method_are_not_this_server_s(
        alice, conn, uid, services, was, now):
    plant(conn, uid, seed=3, plan=SMALL)
    one_worker_iteration(services)
    assert conn.execute("UPDATE stored_insights SET settings = replace(settings, ?, ?)"
                        " WHERE instr(settings, ?)", (was, now, was)).rowcount == 3
    assert len(sweep_keys(conn, services.config, NOON)) == 1
    answer = alice.get("/api/insights?range=90").json
    assert answer["computed_at"] is None and services.insight_cache.computed == 1


def test_a_new_time_zone_moves_the_day_and_the_worker_computes_the_ranges_for_it(
        alice, conn, uid, services):
    plant(conn, uid, seed=3, plan=SMALL)
    one_worker_iteration(services)
    # noon in UTC is the next morning on Kiritimati (UTC+14): the ranges end a day later
    assert alice.patch("/api/me", {"timezone": "Pacific/Kiritimati"}).status == 200
    assert alice.get("/api/insights").json["updating"] is True
    one_worker_iteration(services)
    answer = alice.get("/api/insights").json
    assert answer["updating"] is False and answer["range"]["to"] == "2026-12-05"


def test_while_the_last_computation_failed_a_visit_says_so_and_queues_none(
        alice, conn, uid, services, clock):
    plant(conn, uid, seed=3, plan=SMALL)
    one_worker_iteration(services)
    conn.execute("INSERT INTO jobs (kind, key, payload, status, attempts, max_attempts,"
                 " run_after, last_error, created_at, updated_at, finished_at) VALUES"
                 " ('insights', ?, '{}', 'exhausted', 5, 5, 0, 'MemoryError', 0, ?, ?)",
                 (f"insights:{uid}", clock.now_ms(), clock.now_ms()))
    conn.execute("DELETE FROM entries WHERE id = (SELECT max(id) FROM entries)")
    answer = alice.get("/api/insights").json
    assert answer["updating"] is False and answer["outdated"] is True
    assert 'id="insights-outdated"' in alice.get("/insights?range=all").text
    assert live_jobs(conn) == []  # the cool-down holds, as for the sweep
    clock.advance(services.config.job_cooldown_s + 1)
    assert alice.get("/api/insights").json["updating"] is True
    assert live_jobs(conn) == [f"insights:{uid}"]


def test_a_save_while_the_job_runs_queues_the_next_one(alice, conn, uid, services):
    """The save's own enqueue finds the running job live and adds nothing: the job, seeing
    the journal newer than what it computed, queues the next."""
    from contextlib import contextmanager
    from types import SimpleNamespace

    from kmood_lib.core.db import transaction
    from kmood_lib.enrich.insights import handle_insights

    plant(conn, uid, seed=3, plan=SMALL)

    def a_save_meanwhile():
        conn.execute("UPDATE entries SET mood = 6 - mood WHERE id = (SELECT min(id) FROM"
                     " entries)")
        return True

    @contextmanager
    def completing():
        with transaction(conn):
            yield conn

    handle_insights(SimpleNamespace(services=services, conn=conn, payload={"user_id": uid},
                                    job=SimpleNamespace(id=0), extend_lease=a_save_meanwhile,
                                    completing=completing))
    assert live_jobs(conn) == [f"insights:{uid}"]
