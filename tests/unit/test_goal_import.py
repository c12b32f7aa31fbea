"""Goals travel (issue #26): in k-mood's JSON export and back, and from a Daylio backup —
goals on a tag count the days with that activity, goals without one bring their check-ins
(goalEntries, whose month is 0- or 1-based depending on the backup: read from the data), and
the backup's successful weeks are compared with what k-mood counts."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone

import pytest

from tests.helpers import multipart
from tests.unit.test_daylio_backup import MOODS, TAGS, backup, day_entry
from tests.unit.test_daylio_csv import run

MONDAY = date(2024, 1, 8)  # ISO week 2 of 2024


def ms(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, 20, tzinfo=timezone.utc).timestamp()
               * 1000)


def goal_backup(month_base: int, success_weeks: list[list[int]]) -> bytes:
    entries = [day_entry(500 + i, datetime.combine(MONDAY + timedelta(days=d), datetime.min.time())
                         + timedelta(hours=9), 1, 1, tags=[2])  # tag 2: running
               for i, d in enumerate((0, 2, 4, 7, 9))]  # 3 days in week 2, 2 in week 3
    checked = [MONDAY + timedelta(days=d) for d in (1, 3, 12)]
    document = {
        "version": 15, "customMoods": MOODS, "tags": TAGS, "tag_groups": [],
        "dayEntries": entries, "metadata": {"created_at": 1},
        "goals": [
            {"id": 1, "goal_id": 1, "id_tag": 2, "repeat_type": 2, "repeat_value": 3,
             "created_at": ms(MONDAY), "state": 0},  # no name: the tag names it
            {"id": 2, "goal_id": 2, "name": "Floss", "id_tag": -1, "repeat_type": 1,
             "repeat_value": 0b0010101, "created_at": ms(MONDAY), "state": 1},
            {"id": 3, "goal_id": 3, "name": "Odd", "id_tag": -1, "repeat_type": 9,
             "repeat_value": 1, "created_at": ms(MONDAY), "state": 0}],
        "goalEntries": [{"id": i, "goalId": 2, "year": d.year, "month": d.month - 1 + month_base,
                         "day": d.day, "createdAt": ms(d)} for i, d in enumerate(checked)],
        "goalSuccessWeeks": [{"goal_id": 1, "year": y, "week": w} for y, w in success_weeks]}
    return backup(document)


@pytest.fixture
def ann(make_user, conn):
    make_user("ann", timezone="Europe/Berlin")
    return conn.execute("SELECT id FROM users WHERE username = 'ann'").fetchone()[0]


@pytest.mark.parametrize("month_base", [0, 1])
def test_a_backup_s_goals_arrive_with_their_check_ins_whatever_its_months(conn, ann,
                                                                           month_base):
    data = goal_backup(month_base, [[2024, 2]])
    dry = run(conn, ann, data, dry_run=True)
    assert any("2 goals would be added" in line for line in dry["restored"])
    report = run(conn, ann, data)
    assert "2 goals added" in report["restored"]
    assert any("Odd" in w and "left out" in w for w in report["warnings"])
    assert not any("successful week" in w for w in report["warnings"])  # the counts agree
    rows = {r[0]: r[1:] for r in conn.execute(
        "SELECT g.name, a.name, g.period, g.target, g.start_date, g.archived_at IS NOT NULL"
        " FROM goals g LEFT JOIN activities a ON a.id = g.activity_id WHERE g.user_id = ?",
        (ann,))}
    assert rows == {"running": ("running", "week", 3, "2024-01-08", 0),
                    "Floss": (None, "week", 3, "2024-01-08", 1)}
    checkins = [r[0] for r in conn.execute(
        "SELECT local_date FROM goal_checkins c JOIN goals g ON g.id = c.goal_id"
        " WHERE g.name = 'Floss' ORDER BY 1")]
    assert checkins == ["2024-01-09", "2024-01-11", "2024-01-20"]
    assert "2 goals added" not in run(conn, ann, data)["restored"]  # again: nothing


def test_successful_weeks_that_disagree_with_the_journal_are_said(conn, ann):
    report = run(conn, ann, goal_backup(0, [[2024, 2], [2024, 3]]))
    [said] = [w for w in report["warnings"] if "successful week" in w]
    assert "the backup counts 2" in said and "k-mood counts 1" in said and "2024-W03" in said


def test_goals_travel_in_the_json_export(client_for):
    alice = client_for("alice")
    alice.post("/api/entries", {"mood": 4, "activities": ["walk"]})
    alice.post("/api/goals", {"name": "Walk", "activity": "walk", "target": 2,
                              "start_date": "2026-11-02"})
    manual = alice.post("/api/goals", {"name": "Stretch", "period": "month", "target": 10,
                                       "start_date": "2026-11-01"}).json
    alice.post(f"/api/goals/{manual['id']}/checkins", {})
    exported = alice.get("/api/export?format=json").json
    assert [g["name"] for g in exported["goals"]] == ["Stretch", "Walk"]
    bob = client_for("bob")
    body, content_type = multipart({}, {"file": json.dumps(exported).encode()})
    assert bob.request("POST", "/api/import/daylio", body=body,
                       content_type=content_type).status == 200
    theirs = {g["name"]: g for g in bob.get("/api/goals").json["goals"]}
    mine = {g["name"]: g for g in alice.get("/api/goals").json["goals"]}
    strip = lambda g: {k: v for k, v in g.items() if k != "id"}  # noqa: E731
    assert {n: strip(g) for n, g in theirs.items()} == {n: strip(g) for n, g in mine.items()}
