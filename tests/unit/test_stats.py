"""Stats against a hand-computed fixture: streaks across a DST change and a month boundary,
and every entry counted on its own local day."""

from datetime import datetime, timezone

import pytest

FIXTURE = [  # (occurred_at, mood, activities)
    ("2026-03-28T20:00:00+01:00", 3, []),
    ("2026-03-29T09:00:00+02:00", 4, []),         # the day clocks went forward in Berlin
    ("2026-03-30T08:00:00+02:00", 3, []),
    ("2026-03-30T22:00:00+02:00", 5, ["run"]),
    ("2026-03-31T23:30:00+02:00", 2, ["work"]),
    ("2026-04-01T00:30:00+02:00", 4, ["run"]),    # across the month boundary: 5-day streak
    ("2026-04-10T08:00:00+09:00", 1, ["work"]),   # 2026-04-09 in UTC, 04-10 on its own clock
    ("2026-04-11T12:00:00+02:00", 3, []),
]
DAYS = 7  # local days logged: 28 March to 1 April, 10 and 11 April


@pytest.fixture
def alice(client_for, clock):
    client = client_for("alice", timezone="Europe/Berlin")
    for occurred_at, mood, activities in FIXTURE:
        assert client.post("/api/entries", {"occurred_at": occurred_at, "mood": mood,
                                            "activities": activities}).status == 201
    clock.set(datetime(2026, 4, 12, 10, 0, tzinfo=timezone.utc))
    return client


def test_summary_counts_averages_and_streaks(alice, clock):
    summary = alice.get("/api/stats/summary").json
    assert summary == {
        "count": 8, "average": 3.125,
        "distribution": {"1": 1, "2": 1, "3": 3, "4": 2, "5": 1},
        "days_logged": 7, "first_day": "2026-03-28", "last_day": "2026-04-11",
        "current_streak": 2,  # 04-10, 04-11: still alive on 04-12 until the day ends unlogged
        "longest_streak": 5,  # 03-28 .. 04-01
        "today": "2026-04-12",
    }
    clock.set(datetime(2026, 4, 12, 21, 59, tzinfo=timezone.utc))  # 23:59 in Berlin
    assert alice.get("/api/stats/summary").json["current_streak"] == 2
    clock.set(datetime(2026, 4, 12, 22, 0, tzinfo=timezone.utc))  # 00:00 on 04-13
    assert alice.get("/api/stats/summary").json["current_streak"] == 0  # 04-12 ended unlogged


def test_summary_respects_filters(alice):
    summary = alice.get("/api/stats/summary?from=2026-04-01&to=2026-04-30").json
    assert (summary["count"], summary["longest_streak"], summary["days_logged"]) == (3, 2, 3)


def test_calendar_keys_each_entry_by_its_own_local_day(alice):
    days = alice.get("/api/stats/calendar?year=2026").json["days"]
    assert days == {
        "2026-03-28": {"average": 3.0, "count": 1}, "2026-03-29": {"average": 4.0, "count": 1},
        "2026-03-30": {"average": 4.0, "count": 2}, "2026-03-31": {"average": 2.0, "count": 1},
        "2026-04-01": {"average": 4.0, "count": 1}, "2026-04-10": {"average": 1.0, "count": 1},
        "2026-04-11": {"average": 3.0, "count": 1},
    }
    assert "2026-04-09" not in days
    assert alice.get("/api/stats/calendar?year=2025").json == {"year": 2025, "days": {}}
    assert alice.get("/api/stats/calendar?year=abc").status == 422


def test_mood_by_weekday_and_local_hour(alice):
    data = alice.get("/api/stats/weekday").json
    weekdays = {w["weekday"]: (w["average"], w["count"]) for w in data["weekdays"]}
    assert weekdays == {0: (4.0, 2), 1: (2.0, 1), 2: (4.0, 1), 3: (None, 0), 4: (1.0, 1),
                        5: (3.0, 2), 6: (4.0, 1)}
    hours = {h["hour"]: (h["average"], h["count"]) for h in data["hours"] if h["count"]}
    assert hours == {0: (4.0, 1), 8: (2.0, 2), 9: (4.0, 1), 12: (3.0, 1), 20: (3.0, 1),
                     22: (5.0, 1), 23: (2.0, 1)}


def test_activity_impact_compares_with_and_without(alice):
    impact = {a["activity"]: a for a in alice.get("/api/stats/activities").json["activities"]}
    days = {k: impact["run"].pop(k) for k in ("days_with", "days_without", "enough")}
    assert impact["run"] == {"activity": "run", "count_with": 2, "average_with": 4.5,
                             "count_without": 6, "average_without": 2.667, "difference": 1.833}
    assert days == {"days_with": 2, "days_without": DAYS - 2, "enough": False}
    days = {k: impact["work"].pop(k) for k in ("days_with", "days_without", "enough")}
    assert impact["work"] == {"activity": "work", "count_with": 2, "average_with": 1.5,
                              "count_without": 6, "average_without": 3.667,
                              "difference": -2.167}
    assert days == {"days_with": 2, "days_without": DAYS - 2, "enough": False}
    order = [a["activity"] for a in alice.get("/api/stats/activities").json["activities"]]
    assert order == ["run", "work"]


def test_hour_stats_stream_minutes_through_the_covering_index(conn):
    plan = " ".join(r[3] for r in conn.execute(
        "EXPLAIN QUERY PLAN SELECT local_minute, sum(mood), count(*) FROM entries e"
        " WHERE e.user_id = 1 AND e.time_known = 1 GROUP BY local_minute"))
    assert "COVERING INDEX entries_user_hour" in plan and "TEMP B-TREE" not in plan, plan


def test_streaks_match_counting_day_by_day():
    import random
    from datetime import date, timedelta

    from kmood_lib.journal.stats import streaks_of

    def by_hand(days: set[date], today: date) -> tuple[int, int]:
        longest = max((n for n in range(1, len(days) + 1) for d in days
                       if all(d + timedelta(i) in days for i in range(n))), default=0)
        end = today if today in days else today - timedelta(1)
        current = 0
        while end - timedelta(current) in days:
            current += 1
        return current, longest

    rng = random.Random(3)
    today = date(2026, 4, 12)
    for _ in range(300):
        days = {today - timedelta(rng.randrange(40)) for _ in range(rng.randrange(0, 30))}
        ordinals = sorted(d.toordinal() for d in days)
        assert streaks_of(ordinals, today) == by_hand(days, today), sorted(days)
