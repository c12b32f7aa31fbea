"""What the data says: summary and streaks, year in pixels, weekday/hour, activity impact,
mood over time.

Every day here is an entry's own local day. Most figures come from one scan that counts each
local day's entries and sums their moods (`daily`), over the (user_id, local_date, mood)
index; the rest is arithmetic on those few thousand rows, so a page that shows them all pays
for one scan, not one per chart.
"""

from __future__ import annotations

import sqlite3
from datetime import date
from typing import NamedTuple

from kmood_lib.entries import EntryFilter
from kmood_lib.places import place_label

LEVELS = (1, 2, 3, 4, 5)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


class Day(NamedTuple):
    """One local day: its date, its ordinal (for streak and weekday arithmetic), how many
    entries it has and the sum of their moods."""

    local_date: str
    ordinal: int
    n: int
    mood_sum: int


def daily(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> list[Day]:
    """Per local day, oldest first."""
    where, params = flt.where(conn, user_id)
    cursor = conn.cursor()
    cursor.row_factory = None  # thousands of plain tuples, not sqlite3.Row objects
    rows = cursor.execute(
        "SELECT local_date, count(*), sum(mood) FROM entries e WHERE e.user_id = ?" + where +
        " GROUP BY local_date ORDER BY local_date", (user_id, *params)).fetchall()
    return [Day(d, date.fromisoformat(d).toordinal(), n, total) for d, n, total in rows]


def distribution(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> dict[str, int]:
    """Entries per mood level, "1" to "5"."""
    where, params = flt.where(conn, user_id)
    found = dict(conn.execute("SELECT mood, count(*) FROM entries e WHERE e.user_id = ?" + where
                              + " GROUP BY mood", (user_id, *params)).fetchall())
    return {str(level): found.get(level, 0) for level in LEVELS}


def summary(conn: sqlite3.Connection, user_id: int, today: date, flt: EntryFilter) -> dict:
    return summary_of(daily(conn, user_id, flt), distribution(conn, user_id, flt), today)


def summary_of(days: list[Day], per_level: dict[str, int], today: date) -> dict:
    count = sum(day.n for day in days)
    current, longest = streaks_of([day.ordinal for day in days], today)
    return {
        "count": count,
        "average": _rounded(sum(day.mood_sum for day in days) / count) if count else None,
        "distribution": per_level,
        "days_logged": len(days),
        "first_day": days[0].local_date if days else None,
        "last_day": days[-1].local_date if days else None,
        "current_streak": current,
        "longest_streak": longest,
        "today": today.isoformat(),
    }


def streaks(conn, user_id: int, today: date, flt: EntryFilter | None = None) -> tuple[int, int]:
    """(current, longest) runs of consecutive logged local days."""
    return streaks_of([day.ordinal for day in daily(conn, user_id, flt or EntryFilter())], today)


def streaks_of(ordinals: list[int], today: date) -> tuple[int, int]:
    """Runs over sorted day ordinals. The current streak is still alive today until today ends
    unlogged: it is the run ending today, or else the run ending yesterday."""
    longest = run = 0
    previous = None
    for ordinal in ordinals:
        run = run + 1 if previous is not None and ordinal == previous + 1 else 1
        longest = max(longest, run)
        previous = ordinal
    alive = previous is not None and previous >= today.toordinal() - 1
    return (run if alive else 0), longest


def calendar(conn: sqlite3.Connection, user_id: int, year: int) -> dict:
    rows = conn.execute(
        "SELECT local_date, avg(mood) AS average, count(*) AS n FROM entries"
        " WHERE user_id = ? AND local_date >= ? AND local_date <= ?"
        " GROUP BY local_date ORDER BY local_date",
        (user_id, f"{year:04d}-01-01", f"{year:04d}-12-31")).fetchall()
    return {"year": year, "days": {r["local_date"]: {"average": _rounded(r["average"]),
                                                     "count": r["n"]} for r in rows}}


def _cell(total: int, n: int) -> dict:
    return {"average": _rounded(total / n) if n else None, "count": n}


def by_weekday_and_hour(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> dict:
    return {"weekdays": weekdays_of(daily(conn, user_id, flt)),
            "hours": hours(conn, user_id, flt)}


def weekdays_of(days: list[Day]) -> list[dict]:
    """Monday = 0 (a date's ordinal is 1 for Monday 0001-01-01)."""
    sums, counts = [0] * 7, [0] * 7
    for day in days:
        weekday = (day.ordinal - 1) % 7
        sums[weekday] += day.mood_sum
        counts[weekday] += day.n
    return [{"weekday": d, **_cell(sums[d], counts[d])} for d in range(7)]


def hours(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> list[dict]:
    """By the entry's own local hour; date-only entries (no time recorded) are left out."""
    where, params = flt.where(conn, user_id)
    found = {r["h"]: (r["total"], r["n"]) for r in conn.execute(
        "SELECT local_minute / 60 AS h, sum(mood) AS total, count(*) AS n FROM entries e"
        " WHERE e.user_id = ?" + where + " AND e.time_known = 1 GROUP BY h",
        (user_id, *params))}
    return [{"hour": h, **_cell(*found.get(h, (0, 0)))} for h in range(24)]


def activity_impact(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> dict:
    """Mean mood with vs without each activity, with counts; biggest positive impact first."""
    where, params = flt.where(conn, user_id)
    total_n, total_sum = conn.execute(
        "SELECT count(*), coalesce(sum(mood), 0) FROM entries e WHERE e.user_id = ?" + where,
        (user_id, *params)).fetchone()
    rows = conn.execute(
        "SELECT a.name, w.n, w.total FROM (SELECT ea.activity_id AS id, count(*) AS n,"
        " sum(e.mood) AS total FROM entry_activities ea JOIN entries e ON e.id = ea.entry_id"
        " WHERE e.user_id = ?" + where + " GROUP BY ea.activity_id) w"
        " JOIN activities a ON a.id = w.id ORDER BY a.name_key",
        (user_id, *params)).fetchall()
    out = []
    for name, n_with, sum_with in rows:
        n_without = total_n - n_with
        avg_with = sum_with / n_with
        avg_without = (total_sum - sum_with) / n_without if n_without else None
        diff = None if avg_without is None else avg_with - avg_without
        out.append({"activity": name, "count_with": n_with, "average_with": _rounded(avg_with),
                    "count_without": n_without, "average_without": _rounded(avg_without),
                    "difference": _rounded(diff)})
    out.sort(key=lambda a: (a["difference"] is None, -(a["difference"] or 0), a["activity"]))
    return {"activities": out}


def mood_series(conn: sqlite3.Connection, user_id: int, flt: EntryFilter, bucket: str
                ) -> list[dict]:
    return series_of(daily(conn, user_id, flt), bucket)


def series_of(days: list[Day], bucket: str) -> list[dict]:
    """Average mood per week (starting Monday) or per month, oldest first; only buckets with
    entries appear, so a gap in the list is a gap in the journal."""
    sums: dict[str, list[int]] = {}
    for day in days:
        if bucket == "week":
            start = date.fromordinal(day.ordinal - (day.ordinal - 1) % 7).isoformat()
        else:
            start = day.local_date[:8] + "01"
        acc = sums.setdefault(start, [0, 0])
        acc[0] += day.mood_sum
        acc[1] += day.n
    return [{"start": start, "average": _rounded(total / n), "count": n}
            for start, (total, n) in sums.items()]


# Weather groups by WMO code (SPEC §8), in the order the stats show them.
WEATHER_GROUPS = [("clear", (0, 1)), ("cloudy", (2, 3)), ("fog", (45, 48)),
                  ("drizzle", (51, 53, 55, 56, 57)), ("rain", (61, 63, 65, 66, 67, 80, 81, 82)),
                  ("snow", (71, 73, 75, 77, 85, 86)), ("thunderstorm", (95, 96, 99))]
BAND_C = 5


def weather_impact(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> dict:
    """Mean mood by temperature band (5 °C wide) and by kind of weather, over the entries whose
    weather is known."""
    where, params = flt.where(conn, user_id)
    # Weather first (CROSS JOIN keeps that order): it holds only entries with a location,
    # so a journal without any costs nothing here.
    base = (" FROM weather w CROSS JOIN entries e ON e.id = w.entry_id"
            " WHERE w.unavailable = 0 AND e.user_id = ?" + where)
    # +100 bands before the cast: CAST truncates toward zero, this floors every real temperature.
    bands = conn.execute(
        "SELECT CAST(w.temperature_c / ? + 100 AS INTEGER) - 100 AS band,"
        " sum(e.mood) AS total, count(*) AS n" + base + " GROUP BY band ORDER BY band",
        (BAND_C, user_id, *params)).fetchall()
    codes = {r["code"]: (r["total"], r["n"]) for r in conn.execute(
        "SELECT w.code AS code, sum(e.mood) AS total, count(*) AS n" + base + " GROUP BY w.code",
        (user_id, *params))}
    groups = []
    for name, members in WEATHER_GROUPS:
        total = sum(codes.get(c, (0, 0))[0] for c in members)
        n = sum(codes.get(c, (0, 0))[1] for c in members)
        if n:
            groups.append({"group": name, **_cell(total, n)})
    return {"entries_with_weather": sum(n for _, n in codes.values()),
            "temperature": [{"from_c": r["band"] * BAND_C, "to_c": (r["band"] + 1) * BAND_C,
                             **_cell(r["total"], r["n"])} for r in bands],
            "conditions": groups}


TOP = 10


def place_impact(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> dict:
    """Mean mood in the places with the most entries. A place is the name of a cell, so
    neighbouring cells with the same name ("Berlin, DE") count together."""
    where, params = flt.where(conn, user_id)
    rows = conn.execute(
        "SELECT p.locality, p.country_code, p.display_name, sum(e.mood) AS total, count(*) AS n"
        " FROM entry_places ep CROSS JOIN entries e ON e.id = ep.entry_id"
        " JOIN places p ON p.cell = ep.cell AND p.unavailable = 0"
        " WHERE e.user_id = ?" + where + " GROUP BY ep.cell", (user_id, *params)).fetchall()
    merged: dict[str, list[int]] = {}
    for r in rows:
        label = place_label(r["locality"], r["country_code"], r["display_name"]) or "?"
        sums = merged.setdefault(label, [0, 0])
        sums[0] += r["total"]
        sums[1] += r["n"]
    ranked = sorted(merged.items(), key=lambda item: (-item[1][1], item[0]))
    return {"entries_with_place": sum(n for _, n in merged.values()),
            "places": [{"place": label, **_cell(total, n)} for label, (total, n) in ranked[:TOP]]}


def music_impact(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> dict:
    """Mean mood while listening to the artists heard most, artists compared by name key."""
    where, params = flt.where(conn, user_id)
    rows = conn.execute(
        "SELECT min(s.artist) AS artist, sum(e.mood) AS total, count(*) AS n"
        " FROM songs s CROSS JOIN entries e ON e.id = s.entry_id WHERE e.user_id = ?" + where
        + " GROUP BY json_extract(s.lookup_key, '$[0]') ORDER BY n DESC, artist",
        (user_id, *params)).fetchall()
    return {"entries_with_song": sum(r["n"] for r in rows),
            "artists": [{"artist": r["artist"], **_cell(r["total"], r["n"])} for r in rows[:TOP]]}
