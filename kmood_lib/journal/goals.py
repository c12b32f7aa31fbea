"""Goals (issue #26): "walk 3 times a week", "call mum once a month". A goal is a target
number of days per week (Monday to Sunday) or per calendar month, from its start date. Its
progress is counted, never stored: the days with its activity in the journal (two entries
with it on one day count once), or, for a goal without an activity, the days it was checked
off by hand. A period reaching the target is a success; streaks are runs of them."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from kmood_lib.core.errors import NotFound, ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import name_key
from kmood_lib.core.validation import MAX_YEAR, MIN_YEAR, Fields, parse_local_date
from kmood_lib.journal.vocab import MAX_NAME, activity_ids

PERIODS = ("week", "month")
MAX_GOALS = 100
STRIP = {"week": 52, "month": 12}  # a year of periods in a goal's strip, the current one last


def period_start(day: date, period: str) -> date:
    return day - timedelta(days=day.weekday()) if period == "week" else day.replace(day=1)


def next_period(start: date, period: str) -> date:
    if period == "week":
        return start + timedelta(days=7)
    return (start.replace(day=28) + timedelta(days=4)).replace(day=1)


def _check(conn: sqlite3.Connection, user_id: int, body: dict, current: dict | None) -> dict:
    f = Fields()
    f.reject_fields(body, {"name", "activity", "period", "target", "start_date", "archived"},
                    {"id", "progress"})
    out: dict = {}
    if current is None or "name" in body:
        out["name"] = f.text(body, "name", MAX_NAME, required=True, min_len=1, is_name=True)
    if "activity" in body:
        activity = body["activity"]
        if activity is None:
            out["activity_id"] = None
        else:
            name = f.text(body, "activity", MAX_NAME, min_len=1, is_name=True)
            if name is not None:
                row = conn.execute("SELECT id FROM activities WHERE user_id = ? AND name_key = ?",
                                   (user_id, name_key(name))).fetchone()
                if row is None:
                    f.fail("activity", Phrase("no activity of yours has this name"))
                else:
                    out["activity_id"] = row[0]
    if current is None or "period" in body:
        if body.get("period", "week" if current is None else None) not in PERIODS:
            f.fail("period", Phrase("must be week or month"))
        else:
            out["period"] = body.get("period", "week")
    period = out.get("period") or (current or {}).get("period") or "week"
    if current is None or "target" in body:
        target = body.get("target", 1 if current is None else None)
        most = 7 if period == "week" else 31
        if isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= most:
            f.fail("target", Phrase("must be a whole number of days from 1 to {most} a week",
                                    most=most) if period == "week" else
                   Phrase("must be a whole number of days from 1 to {most} a month", most=most))
        else:
            out["target"] = target
    elif current is not None and "period" in body and current["target"] > (
            7 if period == "week" else 31):
        f.fail("target", Phrase("must fit the new period"))
    if "start_date" in body:
        try:
            start = parse_local_date(body["start_date"], "start_date")
            if not MIN_YEAR <= int(start[:4]) <= MAX_YEAR:
                raise ValidationError({"start_date": Phrase("must be in {first}-{last}",
                                                            first=MIN_YEAR, last=MAX_YEAR)})
            out["start_date"] = start
        except ValidationError as exc:
            f.fail("start_date", exc.fields["start_date"])
    if "archived" in body:
        if not isinstance(body["archived"], bool):
            f.fail("archived", Phrase("must be true or false"))
        else:
            out["archived"] = body["archived"]
    f.raise_if_any()
    return out


def _row_json(row: sqlite3.Row) -> dict:
    return {"id": row["id"], "name": row["name"], "activity": row["activity"],
            "period": row["period"], "target": row["target"], "start_date": row["start_date"],
            "archived": row["archived_at"] is not None}


_SELECT = ("SELECT g.*, a.name AS activity FROM goals g LEFT JOIN activities a"
           " ON a.id = g.activity_id WHERE g.user_id = ?")


def list_goals(conn: sqlite3.Connection, user_id: int, today: date,
               archived: bool = True) -> list[dict]:
    """Every goal with its progress, the active ones first, by name."""
    rows = conn.execute(_SELECT + ("" if archived else " AND g.archived_at IS NULL")
                        + " ORDER BY g.archived_at IS NOT NULL, g.name_key", (user_id,))
    return [{**_row_json(r), "progress": progress(conn, r, today)} for r in rows.fetchall()]


def get_goal(conn: sqlite3.Connection, user_id: int, goal_id: int, today: date) -> dict:
    row = conn.execute(_SELECT + " AND g.id = ?", (user_id, goal_id)).fetchone()
    if row is None:
        raise NotFound("goal")
    return {**_row_json(row), "progress": progress(conn, row, today)}


def create_goal(conn: sqlite3.Connection, user_id: int, body: dict, today: date,
                now_ms: int) -> dict:
    values = _check(conn, user_id, body, None)
    if conn.execute("SELECT count(*) FROM goals WHERE user_id = ?",
                    (user_id,)).fetchone()[0] >= MAX_GOALS:
        raise ValidationError({"name": Phrase("at most {n} goals", n=MAX_GOALS)})
    try:
        goal_id = conn.execute(
            "INSERT INTO goals (user_id, name, name_key, activity_id, period, target,"
            " start_date, archived_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " RETURNING id",
            (user_id, values["name"], name_key(values["name"]), values.get("activity_id"),
             values["period"], values["target"], values.get("start_date", today.isoformat()),
             now_ms if values.get("archived") else None, now_ms)).fetchone()[0]
    except sqlite3.IntegrityError:
        raise ValidationError({"name": Phrase("a goal with this name exists")}) from None
    return get_goal(conn, user_id, goal_id, today)


def update_goal(conn: sqlite3.Connection, user_id: int, goal_id: int, body: dict, today: date,
                now_ms: int) -> dict:
    current = get_goal(conn, user_id, goal_id, today)
    values = _check(conn, user_id, body, current)
    name = values.get("name", current["name"])
    archived = values.get("archived", current["archived"])
    try:
        conn.execute(
            "UPDATE goals SET name = ?, name_key = ?, activity_id = ?, period = ?, target = ?,"
            " start_date = ?, archived_at = CASE WHEN ? THEN coalesce(archived_at, ?) END"
            " WHERE id = ? AND user_id = ?",
            (name, name_key(name), values.get("activity_id", conn.execute(
                "SELECT activity_id FROM goals WHERE id = ?", (goal_id,)).fetchone()[0]),
             values.get("period", current["period"]), values.get("target", current["target"]),
             values.get("start_date", current["start_date"]), archived, now_ms, goal_id,
             user_id))
    except sqlite3.IntegrityError:
        raise ValidationError({"name": Phrase("a goal with this name exists")}) from None
    return get_goal(conn, user_id, goal_id, today)


def delete_goal(conn: sqlite3.Connection, user_id: int, goal_id: int) -> None:
    if conn.execute("DELETE FROM goals WHERE id = ? AND user_id = ?",
                    (goal_id, user_id)).rowcount == 0:
        raise NotFound("goal")


def check_in(conn: sqlite3.Connection, user_id: int, goal_id: int, day: str, today: date,
             now_ms: int, done: bool = True) -> dict:
    """Check a goal without an activity off for a day (or take it back); once a day at most.
    A goal counted from an activity is checked off by logging the activity."""
    goal = get_goal(conn, user_id, goal_id, today)
    if goal["activity"] is not None:
        raise ValidationError({"goal": Phrase("this goal counts the days with {activity}: log it"
                                              " to check it off", activity=goal["activity"])})
    parse_local_date(day, "date")
    if day > today.isoformat():
        raise ValidationError({"date": Phrase("must not be in the future")})
    if day < goal["start_date"]:
        raise ValidationError({"date": Phrase("must not be before the goal's start ({start})",
                                              start=goal["start_date"])})
    if done:
        conn.execute("INSERT OR IGNORE INTO goal_checkins (goal_id, local_date, created_at)"
                     " VALUES (?, ?, ?)", (goal_id, day, now_ms))
    else:
        conn.execute("DELETE FROM goal_checkins WHERE goal_id = ? AND local_date = ?",
                     (goal_id, day))
    return get_goal(conn, user_id, goal_id, today)


# A local day's period start in SQL: its Monday, or the 1st of its month.
_PERIOD_SQL = {
    "week": "date(local_date, '-' || ((CAST(strftime('%w', local_date) AS INTEGER) + 6) % 7)"
            " || ' days')",
    "month": "substr(local_date, 1, 8) || '01'",
}


def _days_source(row) -> tuple[str, tuple]:
    """The relation of the days that count for a goal (column local_date) and its params."""
    if row["activity_id"] is not None:
        return ("SELECT local_date FROM activity_days WHERE user_id = ? AND activity_id = ?",
                (row["user_id"], row["activity_id"]))
    return "SELECT local_date FROM goal_checkins WHERE goal_id = ?", (row["id"],)


def counted_days(conn: sqlite3.Connection, row, since: str) -> list[str]:
    """The days that count for a goal from `since`: with its activity, or checked off."""
    source, params = _days_source(row)
    return [r[0] for r in conn.execute(f"SELECT local_date FROM ({source}) WHERE local_date >= ?"
                                       " ORDER BY local_date", (*params, since))]


def period_counts(conn: sqlite3.Connection, row, today: date) -> tuple[dict[date, int], bool]:
    """Days that count per period from the goal's start date (a day before it never does),
    grouped in SQL; and whether today counts."""
    source, params = _days_source(row)
    counts, today_counts = {}, False
    for start, n, has_today in conn.execute(
            f"SELECT {_PERIOD_SQL[row['period']]} AS p, count(*), max(local_date = ?)"
            f" FROM ({source}) WHERE local_date >= ? GROUP BY p",
            (today.isoformat(), *params, row["start_date"])):
        counts[date.fromisoformat(start)] = n
        today_counts = today_counts or bool(has_today)
    return counts, today_counts


def progress(conn: sqlite3.Connection, row, today: date) -> dict:
    """This period's count, the current and longest streaks of successful periods, and the
    last periods as a strip (oldest first). The period in progress breaks no streak until it
    ends short of the target, nor does a first period the goal started part-way through."""
    period, target = row["period"], row["target"]
    begun = date.fromisoformat(row["start_date"])
    first, now = period_start(begun, period), period_start(today, period)
    counts, today_counts = period_counts(conn, row, today)
    reached = sorted(p for p, n in counts.items() if n >= target and first <= p <= now)
    longest = run = 0
    for i, p in enumerate(reached):  # runs of successes next to each other
        run = run + 1 if i and next_period(reached[i - 1], period) == p else 1
        longest = max(longest, run)
    current, at, hits = 0, now, set(reached)
    while at >= first:
        if at in hits:
            current += 1
        elif at != now and not (at == first and begun > first):
            break  # ended short (the running one and a part-way first one do not count)
        at = period_start(at - timedelta(days=1), period)
    strip, at = [], now
    while at >= first and len(strip) < STRIP[period]:
        strip.append({"start": at.isoformat(), "done": counts.get(at, 0)})
        at = period_start(at - timedelta(days=1), period)
    done_now = counts.get(now, 0) if now >= first else 0
    return {"period_start": now.isoformat(), "done": done_now, "target": target,
            "reached": done_now >= target, "current_streak": current, "longest_streak": longest,
            "today_checked": today_counts, "strip": strip[::-1]}


def export_goals(conn: sqlite3.Connection, user_id: int) -> list[dict]:
    """Every goal as the JSON export carries it, with its check-ins."""
    out = []
    for row in conn.execute(_SELECT + " ORDER BY g.name_key", (user_id,)).fetchall():
        out.append({**{k: v for k, v in _row_json(row).items() if k != "id"},
                    "checkins": [r[0] for r in conn.execute(
                        "SELECT local_date FROM goal_checkins WHERE goal_id = ?"
                        " ORDER BY local_date", (row["id"],))]})
    return out


def ensure_goals(conn: sqlite3.Connection, user_id: int, listed: list[dict], now_ms: int,
                 tz: ZoneInfo) -> tuple[list[str], list[str]]:
    """Goals brought by an import, made where the person has none of that name, with their
    check-ins (an activity they name is made if the journal has none yet). A goal without a
    start date starts on the local day it was made (`created_ms`, a Daylio backup's) or
    today. Returns (the names made, problems): one that does not pass is left out, named."""
    made, problems = [], []
    for item in listed:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            problems.append("a goal without a name")
            continue
        name = item["name"]
        if conn.execute("SELECT 1 FROM goals WHERE user_id = ? AND name_key = ?",
                        (user_id, name_key(name.strip()))).fetchone():
            continue
        body = {k: item[k] for k in ("name", "period", "target", "start_date", "archived")
                if item.get(k) is not None}
        created = item.get("created_ms")
        moment = created if isinstance(created, int) and 0 < created < 4e12 else now_ms
        body.setdefault("start_date", datetime.fromtimestamp(moment / 1000, tz).date()
                        .isoformat())
        try:
            if isinstance(item.get("activity"), str) and item["activity"].strip():
                activity_ids(conn, user_id, [item["activity"].strip()], now_ms)
                body["activity"] = item["activity"].strip()
            values = _check(conn, user_id, body, None)
        except ValidationError as exc:
            problems.append(f"goal {name[:40]!r}: {exc.message}")
            continue
        goal_id = conn.execute(
            "INSERT INTO goals (user_id, name, name_key, activity_id, period, target,"
            " start_date, archived_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " RETURNING id",
            (user_id, values["name"], name_key(values["name"]), values.get("activity_id"),
             values["period"], values["target"], values["start_date"],
             now_ms if values.get("archived") else None, now_ms)).fetchone()[0]
        listed_days = item.get("checkins")
        good, bad = [], 0
        for day in listed_days if isinstance(listed_days, list) else ():
            try:
                good.append(parse_local_date(day, "checkins"))
            except ValidationError:
                bad += 1
        early = [d for d in good if d < values["start_date"]]
        if bad or early or (listed_days is not None and not isinstance(listed_days, list)):
            problems.append(f"goal {name[:40]!r}: {bad + len(early)} check-in(s) that are not"
                            " days of the goal")
        conn.executemany("INSERT OR IGNORE INTO goal_checkins (goal_id, local_date, created_at)"
                         " VALUES (?, ?, ?)",
                         [(goal_id, d, now_ms) for d in good if d >= values["start_date"]])
        made.append(values["name"])
    return made, problems


def successful_weeks(conn: sqlite3.Connection, user_id: int, name: str) -> set[tuple[int, int]]:
    """The ISO (year, week) of every week a weekly goal reached its target, counted."""
    row = conn.execute(_SELECT + " AND g.name_key = ?", (user_id, name_key(name))).fetchone()
    if row is None or row["period"] != "week":
        return set()
    counts: dict[tuple[int, int], int] = {}
    for day in counted_days(conn, row, row["start_date"]):
        week = tuple(date.fromisoformat(day).isocalendar()[:2])
        counts[week] = counts.get(week, 0) + 1
    return {week for week, n in counts.items() if n >= row["target"]}
