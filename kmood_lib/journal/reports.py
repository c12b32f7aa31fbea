"""A report of some days of one person's journal (SPEC §15): Stats' figures for those days,
the activities with the clearest difference by the one evidence rule, the metrics' summaries,
and the entries day by day, read with the same functions as Stats and the JSON API; the
page, its print and a shared link all show this."""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from datetime import date

from kmood_lib.journal import queries, stats
from kmood_lib.journal.evidence import Evidence

CLEAREST_ACTIVITIES = 8  # a report is read in one sitting: the clearest few, not the table
MAX_ENTRIES = 1500  # entries a report lists (about two a day for two years): its size is bounded
MAX_TEXT = 2_000_000  # and the characters of their titles and notes, long notes or not


@dataclass(frozen=True)
class Day:
    """One local day of the report's entries, oldest first within it."""

    date: str
    entries: list[dict]


def date_filter(date_from: str, date_to: str) -> queries.EntryFilter:
    return queries.EntryFilter(date_from=date_from, date_to=date_to)


def figures(conn: sqlite3.Connection, user_id: int, date_from: str, date_to: str,
            evidence: Evidence) -> dict:
    """The report's numbers: the days' summary and weekdays (as Stats), the activities that
    meet the evidence rule with the largest difference either way, how many activities were
    compared, and each metric's summary."""
    flt = date_filter(date_from, date_to)
    summary = stats.summary(conn, user_id, date.fromisoformat(date_to), flt)
    impact = stats.activity_impact(conn, user_id, flt, evidence)
    enough = [a for a in impact["activities"] if a["enough"] and a["difference"] is not None]
    enough.sort(key=lambda a: (-abs(a["difference"]), a["activity"].casefold()))
    return {"summary": summary, "weekdays": stats.weekdays(conn, user_id, flt),
            "activities": enough[:CLEAREST_ACTIVITIES], "activities_with_evidence": len(enough),
            "activities_logged": len(impact["activities"]), "needed_days": impact["needed_days"],
            "metrics": metric_summaries(conn, user_id, date_from, date_to)}


def metric_summaries(conn: sqlite3.Connection, user_id: int, date_from: str, date_to: str
                     ) -> list[dict]:
    """Each metric with a value in the days: how many entries have one, and their mean,
    lowest and highest; values that are not finite numbers are left out (as entries do)."""
    rows = conn.execute(
        "SELECT m.name, m.unit, count(*) AS n, avg(em.value) AS mean, min(em.value) AS low,"
        " max(em.value) AS high FROM entry_metrics em JOIN metrics m ON m.id = em.metric_id"
        " JOIN entries e ON e.id = em.entry_id WHERE e.user_id = ? AND m.user_id = ?"
        " AND e.local_date BETWEEN ? AND ? AND typeof(em.value) IN ('integer', 'real')"
        " AND abs(em.value) < 1e300 GROUP BY m.id ORDER BY m.name_key",
        (user_id, user_id, date_from, date_to)).fetchall()
    return [{"name": r["name"], "unit": r["unit"], "entries": r["n"], "mean": r["mean"],
             "lowest": r["low"], "highest": r["high"]} for r in rows
            if all(math.isfinite(r[k]) for k in ("mean", "low", "high"))]


def days_of_entries(conn: sqlite3.Connection, user_id: int, date_from: str, date_to: str,
                    most: int = MAX_ENTRIES) -> tuple[list[Day], int]:
    """The days' entries as the JSON API gives them, oldest day first and, within a day, in
    the order they happened: the latest `most` at most, their titles and notes MAX_TEXT
    characters at most in all (a long range leaves its earliest out); and how many there are."""
    flt = date_filter(date_from, date_to)
    total = stats.totals(conn, user_id, flt)["count"]
    kept: list[dict] = []
    cursor = None
    while len(kept) < min(most, total):
        page, cursor = queries.list_entries(conn, user_id, flt, queries.MAX_LIMIT, cursor)
        kept += page
        if cursor is None:
            break
    text, fits = 0, 0
    for entry in kept[:most]:  # the newest first, until their words would be too many
        text += len(entry["note"] or "") + len(entry["note_title"] or "")
        if text > MAX_TEXT:
            break
        fits += 1
    kept = kept[:fits][::-1]
    days: list[Day] = []
    for entry in kept:
        day = entry["occurred_at"][:10]
        if not days or days[-1].date != day:
            days.append(Day(day, []))
        days[-1].entries.append(entry)
    return days, total
