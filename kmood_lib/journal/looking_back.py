"""Looking back over a range of days (issue #25): the entries from this day in earlier years,
the best and worst weeks and months, and how much the mood moves from one day to the next."""

from __future__ import annotations

import sqlite3
import statistics
from collections.abc import Mapping
from datetime import date, timedelta

from kmood_lib.journal import queries

MIN_WEEK_DAYS = 4  # a week with fewer logged days is not ranked
MIN_MONTH_DAYS = 15
MIN_STEPS = 10  # day-to-day changes a month needs before its stability is shown
RANKED = 3
ON_THIS_DAY = 10


def on_this_day(conn: sqlite3.Connection, user_id: int, today: date) -> list[dict]:
    """Entries from this month and day in earlier years (newest year first; on 29 February
    only leap years have one), each with how many years ago it was."""
    since = conn.execute("SELECT min(local_date) FROM entry_days WHERE user_id = ?",
                         (user_id,)).fetchone()[0]
    if since is None:
        return []
    first_year = date.fromisoformat(since).year
    days = []
    for year in range(today.year - 1, first_year - 1, -1):
        try:
            days.append(today.replace(year=year).isoformat())
        except ValueError:  # 29 February in a common year
            continue
    if not days:
        return []
    marks = ",".join("?" * len(days))
    rows = conn.execute(queries.ENTRY_SELECT + f" WHERE e.user_id = ? AND e.local_date IN ({marks})"
                        " ORDER BY e.local_date DESC, e.occurred_at, e.id LIMIT ?",
                        (user_id, *days, ON_THIS_DAY)).fetchall()
    return [{"years_ago": today.year - int(row["local_date"][:4]), "entry": entry}
            for row, entry in zip(rows, queries.entries_json(conn, rows), strict=True)]


def _ranked(groups: Mapping[str, list[float]], least: int) -> dict:
    """The best and the worst groups of days by their mean mood (ties: the earlier first)."""
    means = [{"start": start, "average": round(statistics.fmean(moods), 2), "days": len(moods)}
             for start, moods in sorted(groups.items()) if len(moods) >= least]
    best = sorted(means, key=lambda g: -g["average"])[:RANKED]
    worst = sorted(means, key=lambda g: g["average"])[:RANKED] if len(means) > RANKED else []
    return {"best": best, "worst": worst, "ranked": len(means), "least_days": least}


def best_and_worst(moods_by_day: Mapping[date, float]) -> dict:
    """Weeks (from Monday) with at least MIN_WEEK_DAYS logged days and months with at least
    MIN_MONTH_DAYS, ranked by the mean of their days' moods (the worst only when there are
    more than RANKED to rank, so no period is both)."""
    weeks: dict[str, list[float]] = {}
    months: dict[str, list[float]] = {}
    for day, mood in moods_by_day.items():
        weeks.setdefault((day - timedelta(days=day.weekday())).isoformat(), []).append(mood)
        months.setdefault(day.isoformat()[:7], []).append(mood)
    return {"weeks": _ranked(weeks, MIN_WEEK_DAYS), "months": _ranked(months, MIN_MONTH_DAYS)}


def stability(moods_by_day: Mapping[date, float]) -> list[dict]:
    """Per month, the mean size of the change in mood from one logged day to the next
    calendar day, when both are logged (0: the same every day), for months with at least
    MIN_STEPS such pairs; oldest first."""
    steps: dict[str, list[float]] = {}
    for day, mood in moods_by_day.items():
        after = moods_by_day.get(day + timedelta(days=1))
        if after is not None:
            steps.setdefault(day.isoformat()[:7], []).append(abs(after - mood))
    return [{"month": month, "change": round(statistics.fmean(changes), 2),
             "steps": len(changes)} for month, changes in sorted(steps.items())
            if len(changes) >= MIN_STEPS]
