"""Goals (issue #26): progress is counted from the journal (days with the goal's activity) or
from check-ins, never stored; weeks run Monday to Sunday, months by the calendar; a period
still in progress breaks no streak."""

from __future__ import annotations

import json
import re
import sys
from datetime import date, datetime, timedelta, timezone

import pytest

from kmood_lib.journal import goals
from tests.helpers import multipart
from tests.unit.test_daylio_backup import MOODS, TAGS, backup
from tests.unit.test_daylio_csv import run
from tests.unit.test_goal_import import ms

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



def field(page: str, name: str) -> str:
    """The input or select named `name`, as the page has it."""
    return re.search(rf'<(?:input|select)[^>]* name="{name}"[^>]*>', page).group(0)


def test_the_new_goal_form_starts_empty_and_says_a_refusal_beside_its_field(alice):
    """Typing 3 into "Days" gives 3, not 33 (it no longer starts at 3); 33 is refused in words
    under Days, what was typed kept; a start left empty is today (#38.9)."""
    page = alice.get("/goals").text
    assert 'value=""' in field(page, "target") and 'value=""' in field(page, "name")
    assert 'value=""' in field(page, "start_date") and "Empty: from today" in page
    assert re.search(r'<form method="post" action="/goals" class="card" novalidate>', page)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    refused = alice.request("POST", "/goals", form={
        "csrf_token": token, "name": "Swim", "activity": "", "target": "33",
        "period": "week", "start_date": ""})
    assert refused.status == 422
    days = field(refused.text, "target")
    assert 'value="33"' in days and 'aria-invalid="true"' in days
    assert 'aria-describedby="target-hint target-error"' in days
    assert re.search(r'id="target-error">must be a whole number of days from 1 to 7 a week<',
                     refused.text)
    assert "Not saved: see what is marked below." in refused.text
    assert 'value="Swim"' in field(refused.text, "name")
    assert 'aria-invalid' not in field(refused.text, "name")
    assert alice.get("/api/goals").json["goals"] == []
    made = alice.request("POST", "/goals", form={
        "csrf_token": token, "name": "Swim", "activity": "", "target": "3", "period": "week",
        "start_date": ""})
    assert made.status == 303
    [goal] = alice.get("/api/goals").json["goals"]
    assert (goal["target"], goal["start_date"]) == (3, TODAY.isoformat())


def test_a_goal_started_this_period_shows_its_bar_without_a_lone_square_under_it(alice):
    """The strip of past periods appears once there is a past period: a strip of one square
    (this period, which the bar already shows) looked like a stray empty box (#38.9)."""
    alice.post("/api/goals", {"name": "Swim", "target": 2, "start_date": TODAY.isoformat()})
    alice.post("/api/goals", {"name": "Read", "target": 2,
                              "start_date": (TODAY - timedelta(days=21)).isoformat()})
    page = alice.get("/goals").text
    swim, read = (page.split(f'>{name}</a>')[1].split("</li>\n")[0] for name in ("Swim", "Read"))
    assert "<progress" in swim and 'class="strip"' not in swim
    assert 'aria-label="The last 4 weeks, oldest first"' in read

def test_weeks_start_on_monday_and_months_roll_over_the_year():
    assert goals.period_start(date(2026, 12, 6), "week") == date(2026, 11, 30)
    assert goals.next_period(date(2026, 12, 1), "month") == date(2027, 1, 1)
    assert goals.next_period(date(2026, 1, 1), "month") == date(2026, 2, 1)


MONDAY = TODAY - timedelta(days=2)


def import_json(client, document: dict):
    body, content_type = multipart({}, {"file": json.dumps(document).encode()})
    return client.request("POST", "/api/import/daylio", body=body, content_type=content_type)


def exported_with_goal(client, **goal) -> dict:
    document = client.get("/api/export?format=json").json
    document["goals"] = [{"name": "Read", "activity": None, "period": "week", "target": 2,
                          "start_date": "2026-11-02", "archived": False, "checkins": [],
                          **goal}]
    return document


# --- a goal in a JSON file with malformed check-ins or weeks is answered, never a 500 -----

def test_json_import_with_goal_checkins_not_a_list_is_not_a_500(alice, client_for):
    bob = client_for("bob")
    answer = import_json(bob, exported_with_goal(alice, checkins=5))
    assert answer.status in (200, 422), answer.status


def test_json_import_with_odd_success_weeks_is_not_a_500(alice, client_for):
    bob = client_for("bob")
    answer = import_json(bob, exported_with_goal(alice, success_weeks=[5, "x"]))
    assert answer.status in (200, 422), answer.status


# --- a goal in a JSON file without its optional keys takes the defaults --------------------

def test_json_import_goal_without_optional_keys_takes_the_defaults(alice, client_for):
    bob = client_for("bob")
    document = exported_with_goal(alice)
    del document["goals"][0]["archived"]
    del document["goals"][0]["checkins"]
    answer = import_json(bob, document)
    assert answer.status == 200, answer.json
    assert [g["name"] for g in bob.get("/api/goals").json["goals"]] == ["Read"], answer.json


# --- days before a goal's start count nowhere, on the page and in the import's check -------

def test_days_before_a_mid_week_start_date_count_the_same_everywhere(alice, conn):
    for d in (0, 1):  # Monday, Tuesday
        log(alice, MONDAY + timedelta(days=d), "walk")
    log(alice, TODAY, "walk")
    goal = alice.post("/api/goals", {"name": "Walk", "activity": "walk", "target": 3,
                                     "start_date": TODAY.isoformat()}).json  # a Wednesday
    shown = goal["progress"]["done"]
    user = conn.execute("SELECT id FROM users WHERE username = 'alice'").fetchone()[0]
    counted = goals.successful_weeks(conn, user, "Walk")
    # the page says this week is reached (3 of 3), the import check says no week was
    assert (shown >= 3) == (tuple(TODAY.isocalendar()[:2]) in counted), (shown, counted)


def test_days_before_the_start_date_do_not_count(alice):
    log(alice, MONDAY, "walk")  # before the goal started
    goal = alice.post("/api/goals", {"name": "Walk", "activity": "walk", "target": 1,
                                     "start_date": TODAY.isoformat()}).json
    assert goal["progress"]["done"] == 0, goal["progress"]


# --- a Daylio goal starts on the person's local day -----------------------------------------

def test_daylio_goal_start_date_is_the_person_s_local_day(conn, make_user):
    from zoneinfo import ZoneInfo

    from kmood_lib.portability import importer
    from tests.fakes import FakeClock

    make_user("tom", timezone="America/Los_Angeles")
    tom = conn.execute("SELECT id FROM users WHERE username = 'tom'").fetchone()[0]
    # made on Sunday 2024-01-07 at 20:00 in Los Angeles = Monday 04:00 UTC
    created = int(datetime(2024, 1, 8, 4, tzinfo=timezone.utc).timestamp() * 1000)
    document = {"version": 15, "customMoods": MOODS, "tags": TAGS, "tag_groups": [],
                "dayEntries": [], "metadata": {"created_at": 1},
                "goals": [{"id": 1, "goal_id": 1, "name": "Floss", "id_tag": -1,
                           "repeat_type": 2, "repeat_value": 3, "created_at": created,
                           "state": 0}]}
    importer.import_file(conn, tom, ZoneInfo("America/Los_Angeles"), backup(document), {},
                         FakeClock(), dry_run=False)
    [start] = [r[0] for r in conn.execute("SELECT start_date FROM goals WHERE user_id = ?",
                                          (tom,))]
    assert start == "2024-01-07"


# --- two Daylio goals with one name are reported, not merged in silence ---------------------

def test_daylio_goals_sharing_a_name_are_reported_not_silently_merged(conn, make_user):
    make_user("ann", timezone="Europe/Berlin")
    ann = conn.execute("SELECT id FROM users WHERE username = 'ann'").fetchone()[0]
    document = {"version": 15, "customMoods": MOODS, "tags": TAGS, "tag_groups": [],
                "dayEntries": [], "metadata": {"created_at": 1},
                "goals": [  # both named after tag 2, "running": weekly 3 times, monthly 10 times
                    {"id": 1, "goal_id": 1, "id_tag": 2, "repeat_type": 2, "repeat_value": 3,
                     "created_at": ms(date(2024, 1, 8)), "state": 0},
                    {"id": 2, "goal_id": 2, "id_tag": 2, "repeat_type": 3, "repeat_value": 10,
                     "created_at": ms(date(2024, 1, 8)), "state": 0}]}
    report = run(conn, ann, backup(document))
    made = conn.execute("SELECT count(*) FROM goals WHERE user_id = ?", (ann,)).fetchone()[0]
    assert made == 2 or any("running" in w for w in report["warnings"]), (made, report["warnings"])


# --- the log page's progress does not walk every period since a goal's start ---------------

def test_the_log_page_s_goal_progress_does_not_walk_every_period_since_the_start(alice, conn):
    user = conn.execute("SELECT id FROM users WHERE username = 'alice'").fetchone()[0]
    now_ms = int(datetime(2026, 12, 2, 12, tzinfo=timezone.utc).timestamp() * 1000)
    log(alice, TODAY, "walk")
    walk = conn.execute("SELECT id FROM activities WHERE user_id = ?", (user,)).fetchone()[0]
    conn.executemany("INSERT OR IGNORE INTO activity_days (user_id, activity_id, local_date, n,"
                     " mood_sum) VALUES (?, ?, ?, 1, 4)",
                     [(user, walk, (TODAY - timedelta(days=i)).isoformat()) for i in range(1000)])
    conn.executemany("INSERT INTO goals (user_id, name, name_key, activity_id, period, target,"
                     " start_date, created_at) VALUES (?, ?, ?, ?, 'week', 1, '1900-01-01', ?)",
                     [(user, f"g{i}", f"g{i}", walk if i % 2 else None, now_ms)
                      for i in range(goals.MAX_GOALS)])
    conn.commit()

    def work() -> int:
        """The work the goals' progress takes, whatever the machine's speed: function calls
        (Python and C) plus SQLite virtual-machine steps in thousands."""
        steps = []
        conn.set_progress_handler(lambda: steps.append(1), 1000)
        sys.setprofile(lambda frame, event, arg: steps.append(1) if "call" in event else None)
        try:
            assert len(goals.list_goals(conn, user, TODAY, archived=False)) == goals.MAX_GOALS
        finally:
            sys.setprofile(None)
            conn.set_progress_handler(None, 0)
        return len(steps)

    since_1900 = work()
    # The same 1 000 days of data, from a start just before them: 143 weeks instead of 6 600.
    conn.execute("UPDATE goals SET start_date = ?", ((TODAY - timedelta(days=1001)).isoformat(),))
    conn.commit()
    since_the_data = work()
    assert since_1900 < 1.5 * since_the_data, (since_1900, since_the_data)


# --- a check-in before the goal's start or out of range is refused -------------------------

def test_a_check_in_before_the_goal_s_start_or_out_of_range_is_refused(alice):
    goal = alice.post("/api/goals", {"name": "Floss", "target": 2,
                                     "start_date": TODAY.isoformat()}).json
    for day in ("1000-01-01", (TODAY - timedelta(days=30)).isoformat()):
        answer = alice.post(f"/api/goals/{goal['id']}/checkins", {"date": day})
        assert answer.status == 422, (day, answer.status)
