"""Goals (issue #26): progress is counted from the journal (days with the goal's activity) or
from check-ins, never stored; weeks run Monday to Sunday, months by the calendar; a period
still in progress breaks no streak."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

import pytest

from kmood_lib.journal import goals

TODAY = date(2026, 12, 2)  # a Wednesday


@pytest.fixture
def alice(client_for, clock):
    clock.set(datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc))
    return client_for("alice")


def log(client, day: date, *activities: str, hour: int = 9) -> int:
    answer = client.post("/api/entries", {"mood": 4, "activities": list(activities),
                                          "occurred_at": f"{day.isoformat()}T{hour:02d}:00:00Z"})
    assert answer.status == 201, answer.json
    return answer.json["id"]


def test_an_activity_goal_counts_the_days_with_it_and_its_streaks(alice):
    monday = TODAY - timedelta(days=2)
    for weeks_back, days in ((3, (0, 2, 4)), (2, (1, 3, 5)), (1, (0, 6))):  # hit, hit, missed
        for d in days:
            log(alice, monday - timedelta(weeks=weeks_back) + timedelta(days=d), "walk")
    made = alice.post("/api/goals", {"name": "Walk", "activity": "walk", "target": 3,
                                     "start_date": (monday - timedelta(weeks=3)).isoformat()})
    assert made.status == 201, made.json
    goal = made.json
    assert goal["progress"]["done"] == 0 and goal["progress"]["current_streak"] == 0
    assert goal["progress"]["longest_streak"] == 2
    log(alice, monday, "walk")
    log(alice, monday, "walk", hour=18)  # twice on one day counts once
    log(alice, TODAY, "walk", "swim")
    progress = alice.get(f"/api/goals/{goal['id']}").json["progress"]
    assert (progress["done"], progress["reached"], progress["period_start"]) == (
        2, False, monday.isoformat())
    third = log(alice, TODAY, "walk", hour=20)
    assert alice.get(f"/api/goals/{goal['id']}").json["progress"]["done"] == 2  # same day
    alice.patch(f"/api/entries/{third}", {"occurred_at": f"{(monday + timedelta(days=1))}T09:00:00Z"})
    progress = alice.get(f"/api/goals/{goal['id']}").json["progress"]
    assert progress["done"] == 3 and progress["reached"] and progress["current_streak"] == 1
    assert [c["done"] for c in progress["strip"]] == [3, 3, 2, 3]
    alice.patch(f"/api/entries/{third}", {"activities": []})  # counted, never stored
    assert alice.get(f"/api/goals/{goal['id']}").json["progress"]["done"] == 2


def test_a_streak_runs_through_the_period_still_in_progress(alice):
    monday = TODAY - timedelta(days=2)
    for weeks_back in (1, 2):
        log(alice, monday - timedelta(weeks=weeks_back), "call")
    goal = alice.post("/api/goals", {"name": "Call", "activity": "call", "target": 1,
                                     "start_date": (monday - timedelta(weeks=2)).isoformat()}
                      ).json
    assert goal["progress"]["current_streak"] == 2  # this week has not ended short yet
    month = alice.post("/api/goals", {"name": "Monthly call", "activity": "call",
                                      "period": "month", "target": 2,
                                      "start_date": "2026-10-01"}).json
    assert month["progress"]["period_start"] == "2026-12-01"
    assert [c["done"] for c in month["progress"]["strip"]] == [0, 2, 0]


def test_a_goal_without_an_activity_is_checked_off_by_hand_once_a_day(alice):
    fresh = alice.post("/api/goals", {"name": "Fresh"}).json
    assert fresh["activity"] is None and fresh["start_date"] == TODAY.isoformat()
    refused = alice.post(f"/api/goals/{fresh['id']}/checkins",
                         {"date": (TODAY - timedelta(days=1)).isoformat()})
    assert refused.status == 422 and "before the goal's start" in refused.json["error"][
        "fields"]["date"]
    goal = alice.post("/api/goals", {"name": "Stretch", "target": 5, "start_date": (
        TODAY - timedelta(days=7)).isoformat()}).json
    path = f"/api/goals/{goal['id']}/checkins"
    for _ in range(2):
        answer = alice.post(path, {})
        assert answer.status == 200 and answer.json["progress"]["done"] == 1
    assert answer.json["progress"]["today_checked"] is True
    yesterday = (TODAY - timedelta(days=1)).isoformat()
    assert alice.post(path, {"date": yesterday}).json["progress"]["done"] == 2
    assert alice.get(path).json == {"checkins": [yesterday, TODAY.isoformat()]}
    assert alice.post(path, {"date": yesterday, "done": False}).json["progress"]["done"] == 1
    for body, field in (({"date": "2026-12-03"}, "date"), ({"date": "yesterday"}, "date"),
                        ({"done": "yes"}, "done"), ({"when": "now"}, "when")):
        refused = alice.post(path, body)
        assert refused.status == 422 and field in refused.json["error"]["fields"], body
    walk = alice.post("/api/goals", {"name": "Walk", "activity": "walk"})
    assert walk.status == 422  # no such activity yet
    log(alice, TODAY, "walk")
    walk = alice.post("/api/goals", {"name": "Walk", "activity": "walk"}).json
    refused = alice.post(f"/api/goals/{walk['id']}/checkins", {})
    assert refused.status == 422 and "log it" in refused.json["error"]["fields"]["goal"]


def test_goals_refuse_what_cannot_be_a_goal(alice):
    for body, field in (({"name": ""}, "name"), ({"name": "a", "period": "day"}, "period"),
                        ({"name": "a", "target": 8}, "target"),
                        ({"name": "a", "target": 0}, "target"),
                        ({"name": "a", "target": True}, "target"),
                        ({"name": "a", "period": "month", "target": 32}, "target"),
                        ({"name": "a", "start_date": "2026-02-30"}, "start_date"),
                        ({"name": "a", "start_date": "1800-01-01"}, "start_date"),
                        ({"name": "a", "archived": "no"}, "archived"),
                        ({"name": "a", "colour": "red"}, "colour")):
        refused = alice.post("/api/goals", body)
        assert refused.status == 422 and field in refused.json["error"]["fields"], body
    assert alice.post("/api/goals", {"name": "Read", "period": "month", "target": 31}
                      ).status == 201
    assert alice.post("/api/goals", {"name": "read"}).status == 422  # the same name


def test_archiving_changing_and_deleting_a_goal(alice):
    log(alice, TODAY, "yoga")
    goal = alice.post("/api/goals", {"name": "Yoga", "activity": "yoga", "target": 2}).json
    changed = alice.patch(f"/api/goals/{goal['id']}", {"target": 4, "archived": True})
    assert changed.status == 200 and changed.json["archived"] and changed.json["target"] == 4
    assert alice.get("/api/goals?archived=0").json["goals"] == []
    assert alice.patch(f"/api/goals/{goal['id']}", {"period": "week", "target": 9}
                       ).status == 422
    yoga = alice.get("/api/activities").json["activities"][0]["id"]
    assert alice.request("DELETE", f"/api/activities/{yoga}").status == 204
    assert alice.get(f"/api/goals/{goal['id']}").json["activity"] is None  # by hand now
    assert alice.request("DELETE", f"/api/goals/{goal['id']}").status == 204
    assert alice.get(f"/api/goals/{goal['id']}").status == 404


def test_goals_on_their_page_and_the_log_page_work_without_script(alice):
    page = alice.get("/goals").text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    made = alice.request("POST", "/goals", form={
        "csrf_token": token, "name": "Meditate", "activity": "", "target": "3",
        "period": "week", "start_date": TODAY.isoformat()})
    assert made.status == 303
    refused = alice.request("POST", "/goals", form={
        "csrf_token": token, "name": "Meditate", "activity": "", "target": "many",
        "period": "week", "start_date": TODAY.isoformat()})
    assert refused.status == 422 and "New goal" in refused.text
    [goal] = alice.get("/api/goals").json["goals"]
    home = alice.get("/").text
    assert "0 of 3 this week" in home and f'action="/goals/{goal["id"]}/checkin"' in home
    done = alice.request("POST", f"/goals/{goal['id']}/checkin",
                         form={"csrf_token": token, "done": "1", "back": "/"})
    assert done.status == 303 and done.headers["Location"] == "/#goals"
    assert "1 of 3 this week" in alice.get("/").text and "✓ Done today" in alice.get("/").text
    odd = alice.request("POST", f"/goals/{goal['id']}/checkin",
                        form={"csrf_token": token, "done": "0", "back": "https://evil.example"})
    assert odd.headers["Location"] == "/goals#goals"  # never somewhere else
    edited = alice.request("POST", f"/goals/{goal['id']}", form={
        "csrf_token": token, "name": "Meditate", "activity": "", "target": "2",
        "period": "week", "start_date": TODAY.isoformat(), "archived": "1"})
    assert edited.status == 303
    assert "Meditate" not in alice.get("/").text.split('id="goals"')[1]  # archived: off the log
    assert alice.request("POST", f"/goals/{goal['id']}/delete",
                         form={"csrf_token": token}).status == 303


def test_weeks_start_on_monday_and_months_roll_over_the_year():
    assert goals.period_start(date(2026, 12, 6), "week") == date(2026, 11, 30)
    assert goals.next_period(date(2026, 12, 1), "month") == date(2027, 1, 1)
    assert goals.next_period(date(2026, 1, 1), "month") == date(2026, 2, 1)
