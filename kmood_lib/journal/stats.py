"""What the data says: summary and streaks, year in pixels, weekday/hour, activity impact,
mood over time.

Every day here is an entry's own local day. Most figures are arithmetic over the logged days:
the `entry_days` and `activity_days` rows that triggers keep up to date with every write
(migration 0015), so ten years of history are ~3 650 day rows, not ~11 000 entries grouped on
every request. A filter on anything but dates (mood, activity, text) groups the matching
entries into the same columns instead; both sources answer the same queries.
"""

from __future__ import annotations

import sqlite3
from datetime import date

from kmood_lib.journal.day_counts import GROUPED_DAY_COLUMNS
from kmood_lib.journal.enrichment import WEATHER_GROUPS, place_label
from kmood_lib.journal.evidence import DEFAULT, Evidence
from kmood_lib.journal.queries import EntryFilter

LEVELS = (1, 2, 3, 4, 5)

_GROUPED_DAYS = "SELECT " + GROUPED_DAY_COLUMNS + " FROM entries e WHERE e.user_id = ?"


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def by_dates_only(flt: EntryFilter) -> bool:
    """Whether the per-day tables can answer for this filter (they know days, not entries)."""
    return not (flt.moods or flt.activities or flt.query)


def days_source(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> tuple[str, list]:
    """The filter's logged days as a relation (local_date, day, n, mood_sum, n1..n5)."""
    where, params = flt.where(conn, user_id)  # by dates only: conditions on e.local_date
    if by_dates_only(flt):
        return ("SELECT local_date, day, n, mood_sum, n1, n2, n3, n4, n5 FROM entry_days e"
                " WHERE e.user_id = ?" + where, [user_id, *params])
    return _GROUPED_DAYS + where + " GROUP BY local_date", [user_id, *params]


def _over_days(conn, user_id: int, flt: EntryFilter, select: str, rest: str = "") -> list:
    source, params = days_source(conn, user_id, flt)
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(f"WITH d AS ({source}) SELECT {select} FROM d{rest}",
                          params).fetchall()


def _ordinals(joined: str | None) -> list[int]:
    """Day ordinals from group_concat, sorted here (an aggregate's order is not promised)."""
    return sorted(map(int, joined.split(","))) if joined else []


def totals(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> dict:
    """In one pass over the days: entries, their mood sum, entries per level ("1".."5"), days
    logged, first and last day, and the days' ordinals, oldest first (for the streaks)."""
    n, mood_sum, *per_level, days, first, last, joined = _over_days(
        conn, user_id, flt, "coalesce(sum(n), 0), coalesce(sum(mood_sum), 0), coalesce(sum(n1),"
        " 0), coalesce(sum(n2), 0), coalesce(sum(n3), 0), coalesce(sum(n4), 0),"
        " coalesce(sum(n5), 0), count(*), min(local_date), max(local_date), group_concat(day)")[0]
    return {"count": n, "mood_sum": mood_sum,
            "distribution": {str(level): k for level, k in zip(LEVELS, per_level, strict=True)},
            "days_logged": days, "first_day": first, "last_day": last,
            "ordinals": _ordinals(joined)}


def logged_span(conn: sqlite3.Connection, user_id: int) -> tuple[str | None, str | None]:
    """The first and the last local day the user logged anything on (None, None: never)."""
    return tuple(conn.execute("SELECT min(local_date), max(local_date) FROM entry_days"
                              " WHERE user_id = ?", (user_id,)).fetchone())


def day_ordinals(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> list[int]:
    """The logged days' ordinals, oldest first."""
    return _ordinals(_over_days(conn, user_id, flt, "group_concat(day)")[0][0])


LONG_GAP_DAYS = 90  # logged days further apart than this have a gap in the history between them
EARLY_SHARE = 0.1  # at most this share of the logged days before a long gap: left off the chart


def continuous_from(ordinals: list[int]) -> int:
    """Where the history becomes continuous, as an index into the sorted day ordinals: just
    after the last gap of more than LONG_GAP_DAYS days that has at most EARLY_SHARE of the
    logged days before it (5 days in 2015, then daily from 2023: the first day of 2023); 0 when
    no gap is like that. The all-time chart starts there, so that a few isolated early entries
    do not squeeze years of real data into the axis's last few pixels."""
    start = 0
    for i in range(1, int(EARLY_SHARE * len(ordinals)) + 1):
        if ordinals[i] - ordinals[i - 1] > LONG_GAP_DAYS:
            start = i
    return start


def summary(conn: sqlite3.Connection, user_id: int, today: date, flt: EntryFilter) -> dict:
    found = totals(conn, user_id, flt)
    current, longest = streaks_of(found["ordinals"], today)
    return {
        "count": found["count"],
        "average": _rounded(found["mood_sum"] / found["count"]) if found["count"] else None,
        "distribution": found["distribution"],
        "days_logged": found["days_logged"],
        "first_day": found["first_day"],
        "last_day": found["last_day"],
        "current_streak": current,
        "longest_streak": longest,
        "today": today.isoformat(),
    }


def streaks(conn, user_id: int, today: date, flt: EntryFilter | None = None) -> tuple[int, int]:
    """(current, longest) runs of consecutive logged local days."""
    return streaks_of(day_ordinals(conn, user_id, flt or EntryFilter()), today)


def streaks_of(ordinals: list[int], today: date) -> tuple[int, int]:
    """Runs over sorted, distinct day ordinals. The current streak is still alive today until
    today ends unlogged: it is the run ending today, or else the run ending yesterday."""
    if not ordinals:
        return 0, 0
    starts = [0, *(i for i in range(1, len(ordinals)) if ordinals[i] != ordinals[i - 1] + 1)]
    ends = [*starts[1:], len(ordinals)]
    longest = max(end - start for start, end in zip(starts, ends, strict=True))
    alive = ordinals[-1] >= today.toordinal() - 1
    return (ends[-1] - starts[-1] if alive else 0), longest


def calendar(conn: sqlite3.Connection, user_id: int, year: int) -> dict:
    rows = conn.execute(
        "SELECT local_date, n, mood_sum FROM entry_days"
        " WHERE user_id = ? AND local_date >= ? AND local_date <= ? ORDER BY local_date",
        (user_id, f"{year:04d}-01-01", f"{year:04d}-12-31")).fetchall()
    return {"year": year, "days": {r["local_date"]: _cell(r["mood_sum"], r["n"]) for r in rows}}


def _cell(total: int, n: int) -> dict:
    return {"average": _rounded(total / n) if n else None, "count": n}


def by_weekday_and_hour(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> dict:
    return {"weekdays": weekdays(conn, user_id, flt), "hours": hours(conn, user_id, flt)}


def weekdays(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> list[dict]:
    """Monday = 0 (a date's ordinal is 1 for Monday 0001-01-01)."""
    found = {d: (total, n) for d, total, n in _over_days(
        conn, user_id, flt, "(day - 1) % 7 AS weekday, sum(mood_sum), sum(n)",
        " GROUP BY weekday")}
    return [{"weekday": d, **_cell(*found.get(d, (0, 0)))} for d in range(7)]


def hours(conn: sqlite3.Connection, user_id: int, flt: EntryFilter) -> list[dict]:
    """By the entry's own local hour; date-only entries (no time recorded) are left out.

    Grouped by minute, the order of the (user_id, time_known, local_minute, mood) index, so
    SQLite streams the groups instead of sorting every entry; the minutes add up to hours
    here."""
    where, params = flt.where(conn, user_id)
    totals_by_hour, counts = [0] * 24, [0] * 24
    cursor = conn.cursor()
    cursor.row_factory = None
    for minute, total, n in cursor.execute(
            "SELECT local_minute, sum(mood), count(*) FROM entries e WHERE e.user_id = ?" + where
            + " AND e.time_known = 1 GROUP BY local_minute", (user_id, *params)):
        if 0 <= minute < 24 * 60:  # a row written by something else is no reason for a 500
            totals_by_hour[minute // 60] += total
            counts[minute // 60] += n
    return [{"hour": h, **_cell(totals_by_hour[h], counts[h])} for h in range(24)]


def activity_impact(conn: sqlite3.Connection, user_id: int, flt: EntryFilter,
                    evidence: Evidence = DEFAULT) -> dict:
    """Mean mood on entries with vs without each activity, with the entries and the logged
    days on each side; the rows with evidence (evidence.Evidence, the insights' own rule over
    days) first, biggest positive difference first, then those with few days, the most days
    first."""
    total_n, total_sum, total_days = _over_days(
        conn, user_id, flt, "coalesce(sum(n), 0), coalesce(sum(mood_sum), 0), count(*)")[0]
    where, params = flt.where(conn, user_id)
    if by_dates_only(flt):
        per_activity = ("SELECT activity_id AS id, sum(n) AS n, sum(mood_sum) AS total,"
                        " count(*) AS days FROM activity_days e WHERE e.user_id = ?" + where +
                        " GROUP BY activity_id")
    else:
        per_activity = ("SELECT ea.activity_id AS id, count(*) AS n, sum(e.mood) AS total,"
                        " count(DISTINCT e.local_date) AS days"
                        " FROM entry_activities ea JOIN entries e ON e.id = ea.entry_id"
                        " WHERE e.user_id = ?" + where + " GROUP BY ea.activity_id")
    rows = conn.execute(
        f"SELECT a.name, w.n, w.total, w.days FROM ({per_activity}) w"
        " JOIN activities a ON a.id = w.id ORDER BY a.name_key",
        (user_id, *params)).fetchall()
    out = []
    for name, n_with, sum_with, days_with in rows:
        n_without = total_n - n_with
        avg_with = sum_with / n_with
        avg_without = (total_sum - sum_with) / n_without if n_without else None
        diff = None if avg_without is None else avg_with - avg_without
        out.append({"activity": name, "count_with": n_with, "average_with": _rounded(avg_with),
                    "count_without": n_without, "average_without": _rounded(avg_without),
                    "difference": _rounded(diff), "days_with": days_with,
                    "days_without": total_days - days_with,
                    "enough": evidence.enough(days_with, total_days - days_with)})
    out.sort(key=lambda a: (not a["enough"], a["difference"] is None,
                            0 if a["enough"] else -a["days_with"], -(a["difference"] or 0),
                            a["activity"]))
    return {"activities": out, "needed_days": evidence.min_each}


def mood_series(conn: sqlite3.Connection, user_id: int, flt: EntryFilter, bucket: str
                ) -> list[dict]:
    """Average mood per week (starting Monday) or per month, oldest first; only buckets with
    entries appear, so a gap in the list is a gap in the journal."""
    if bucket == "week":
        start = "date(day - (day - 1) % 7 + 1721424.5)"  # the ordinal of that Monday, as a date
    else:
        start = "substr(local_date, 1, 8) || '01'"
    return [{"start": s, "average": _rounded(total / n), "count": n}
            for s, total, n in _over_days(conn, user_id, flt,
                                          f"{start} AS start, sum(mood_sum), sum(n)",
                                          " GROUP BY start ORDER BY start")]


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
