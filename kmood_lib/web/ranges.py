"""The ranges Stats, Insights and the report offer (shortest first), where they open, and
the days a range covers for a person today."""

from __future__ import annotations

from datetime import date, timedelta

from kmood_lib.core.i18n import N_
from kmood_lib.journal import insight_store, stats

RANGES = {"30": (N_("Last 30 days"), 30), "90": (N_("Last 90 days"), 90),
          "365": (N_("Last year"), 365), "all": (N_("All time"), None)}
INSIGHT_RANGES = {key: RANGES[key] for key in insight_store.STANDARD}  # what the worker stores


def opening_range(conn, user_id: int, today: date) -> str:
    """The range Stats and Insights open on: the last 90 days, or all time when the last
    entry is older than that (an imported history opens on its entries, not an empty range)."""
    _, last = stats.logged_span(conn, user_id)
    if last and (today - date.fromisoformat(last)).days >= RANGES["90"][1]:
        return "all"
    return "90"


def range_days(conn, user_id: int, key: str, today: date) -> tuple[str, str]:
    """The first and last day of a range: the last N days up to today, or all time from the
    first logged day (today when there is none) to today, or to the last entry if later."""
    days = RANGES[key][1]
    if days:
        return (today - timedelta(days=days - 1)).isoformat(), today.isoformat()
    first, last = stats.logged_span(conn, user_id)
    end = max(today.isoformat(), last or "")
    return min(first or end, end), end
