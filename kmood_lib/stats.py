"""What the data says: summary and streaks, year in pixels, weekday/hour, activity impact.

Computed in SQL over (user_id, local_date, mood) — the entries_user_day index covers it. Every
day here is an entry's own local day.
"""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta

from kmood_lib.entries import EntryFilter


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def summary(conn: sqlite3.Connection, user_id: int, today: date, flt: EntryFilter) -> dict:
    where, params = flt.where()
    row = conn.execute(
        "SELECT count(*) AS n, avg(mood) AS average, count(DISTINCT local_date) AS days,"
        " min(local_date) AS first_day, max(local_date) AS last_day,"
        " sum(mood = 1) AS m1, sum(mood = 2) AS m2, sum(mood = 3) AS m3, sum(mood = 4) AS m4,"
        " sum(mood = 5) AS m5 FROM entries e WHERE e.user_id = ?" + where,
        (user_id, *params)).fetchone()
    current, longest = streaks(conn, user_id, today, where, params)
    return {
        "count": row["n"],
        "average": _rounded(row["average"]),
        "distribution": {str(level): row[f"m{level}"] or 0 for level in range(1, 6)},
        "days_logged": row["days"],
        "first_day": row["first_day"],
        "last_day": row["last_day"],
        "current_streak": current,
        "longest_streak": longest,
        "today": today.isoformat(),
    }


def streaks(conn, user_id: int, today: date, where: str = "", params=()) -> tuple[int, int]:
    """(current, longest) runs of consecutive logged local days (gaps and islands in SQL).

    The current streak is still alive today until today ends unlogged: it is the run ending
    today, or else the run ending yesterday.
    """
    runs = conn.execute(
        "WITH days AS (SELECT DISTINCT local_date AS d FROM entries e WHERE e.user_id = ?"
        + where + "),"
        " islands AS (SELECT d, julianday(d) - row_number() OVER (ORDER BY d) AS grp FROM days)"
        " SELECT max(d) AS last_day, count(*) AS length FROM islands GROUP BY grp",
        (user_id, *params)).fetchall()
    longest = max((r["length"] for r in runs), default=0)
    alive = {today.isoformat(), (today - timedelta(days=1)).isoformat()}
    current = max((r["length"] for r in runs if r["last_day"] in alive), default=0)
    return current, longest


def calendar(conn: sqlite3.Connection, user_id: int, year: int) -> dict:
    rows = conn.execute(
        "SELECT local_date, avg(mood) AS average, count(*) AS n FROM entries"
        " WHERE user_id = ? AND local_date >= ? AND local_date <= ?"
        " GROUP BY local_date ORDER BY local_date",
        (user_id, f"{year:04d}-01-01", f"{year:04d}-12-31")).fetchall()
    return {"year": year, "days": {r["local_date"]: {"average": _rounded(r["average"]),
                                                     "count": r["n"]} for r in rows}}


def by_weekday_and_hour(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> dict:
    """Monday = 0; the hour is the entry's own local hour."""
    where, params = flt.where()
    weekdays = {r["wd"]: r for r in conn.execute(
        "SELECT (CAST(strftime('%w', local_date) AS INTEGER) + 6) % 7 AS wd, avg(mood) AS average,"
        " count(*) AS n FROM entries e WHERE e.user_id = ?" + where + " GROUP BY wd",
        (user_id, *params))}
    hours = {r["h"]: r for r in conn.execute(
        "SELECT local_minute / 60 AS h, avg(mood) AS average, count(*) AS n FROM entries e"
        " WHERE e.user_id = ?" + where + " GROUP BY h", (user_id, *params))}

    def cell(rows, key):
        r = rows.get(key)
        return {"average": _rounded(r["average"]) if r else None, "count": r["n"] if r else 0}

    return {"weekdays": [{"weekday": d, **cell(weekdays, d)} for d in range(7)],
            "hours": [{"hour": h, **cell(hours, h)} for h in range(24)]}


def activity_impact(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> dict:
    """Mean mood with vs without each activity, with counts; biggest positive impact first."""
    where, params = flt.where()
    rows = conn.execute(
        "WITH scope AS (SELECT e.id, e.mood FROM entries e WHERE e.user_id = ?" + where + "),"
        " totals AS (SELECT count(*) AS n, coalesce(sum(mood), 0) AS total FROM scope)"
        " SELECT a.name, count(s.id) AS n_with, avg(s.mood) AS avg_with,"
        " totals.n - count(s.id) AS n_without,"
        " CASE WHEN totals.n > count(s.id) THEN (totals.total - sum(s.mood)) * 1.0"
        "      / (totals.n - count(s.id)) END AS avg_without"
        " FROM activities a JOIN entry_activities ea ON ea.activity_id = a.id"
        " JOIN scope s ON s.id = ea.entry_id, totals"
        " WHERE a.user_id = ? GROUP BY a.id ORDER BY a.name_key",
        (user_id, *params, user_id)).fetchall()
    out = []
    for r in rows:
        diff = None if r["avg_without"] is None else r["avg_with"] - r["avg_without"]
        out.append({"activity": r["name"], "count_with": r["n_with"],
                    "average_with": _rounded(r["avg_with"]), "count_without": r["n_without"],
                    "average_without": _rounded(r["avg_without"]), "difference": _rounded(diff)})
    out.sort(key=lambda a: (a["difference"] is None, -(a["difference"] or 0), a["activity"]))
    return {"activities": out}


def mood_series(conn: sqlite3.Connection, user_id: int, flt: EntryFilter, bucket: str
                ) -> list[dict]:
    """Average mood per week (starting Monday) or per month of local days, oldest first; only
    buckets with entries appear, so a gap in the list is a gap in the journal."""
    start = {"week": "date(local_date, '-' || ((CAST(strftime('%w', local_date) AS INTEGER)"
                     " + 6) % 7) || ' days')",
             "month": "strftime('%Y-%m-01', local_date)"}[bucket]
    where, params = flt.where()
    rows = conn.execute(
        f"SELECT {start} AS start, avg(mood) AS average, count(*) AS n FROM entries e"
        " WHERE e.user_id = ?" + where + " GROUP BY start ORDER BY start",
        (user_id, *params)).fetchall()
    return [{"start": r["start"], "average": _rounded(r["average"]), "count": r["n"]}
            for r in rows]
