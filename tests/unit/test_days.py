"""Days and months with entries (issue #38.4): the months History jumps to with their counts,
the days before and after a day, the entry beside a deleted one; each per person, on the
entries' own local days, through the indexes."""

from __future__ import annotations

import pytest

from kmood_lib.journal import queries
from kmood_lib.journal.queries import EntryFilter


@pytest.fixture
def two(client_for, conn):
    """Alice in Berlin and Bob, each with entries; the ids of Alice's by their local time."""
    alice, bob = client_for("alice", timezone="Europe/Berlin"), client_for("bob")
    ids = {}
    for when, mood in (("2025-02-27T10:00:00", 3), ("2025-03-01T09:00:00", 4),
                       ("2025-03-14T08:00:00", 2), ("2025-03-14T20:00:00", 5),
                       ("2025-03-31T23:30:00", 4),  # 21:30 UTC: still March where she is
                       ("2025-04-01T00:30:00", 1),  # 22:30 UTC on 31 March: April for her
                       ("2026-01-05T12:00:00", 3)):
        ids[when] = alice.post("/api/entries", {"mood": mood, "occurred_at": when}).json["id"]
    for when in ("2025-03-20T12:00:00", "2025-05-02T12:00:00", "2024-12-31T12:00:00"):
        assert bob.post("/api/entries", {"mood": 3, "occurred_at": when}).status == 201
    user = conn.execute("SELECT id FROM users WHERE username = 'alice'").fetchone()[0]
    return alice, user, ids


def test_months_with_entries_are_counted_on_the_persons_own_days_newest_first(two, conn):
    alice, user, ids = two
    assert queries.months_logged(conn, user) == [("2026-01", 1), ("2025-04", 1),
                                                 ("2025-03", 4), ("2025-02", 1)]
    assert alice.delete(f"/api/entries/{ids['2025-04-01T00:30:00']}").status == 204
    assert ("2025-04", 1) not in queries.months_logged(conn, user)


def test_the_days_beside_a_day_are_the_nearest_of_the_persons_days_with_entries(two, conn):
    alice, user, ids = two
    assert queries.days_beside(conn, user, "2025-03-14") == ("2025-03-01", "2025-03-31")
    assert queries.days_beside(conn, user, "2025-03-20") == ("2025-03-14", "2025-03-31")
    assert queries.days_beside(conn, user, "2025-02-27") == (None, "2025-03-01")
    assert queries.days_beside(conn, user, "2026-01-05") == ("2025-04-01", None)
    assert queries.count_on(conn, user, "2025-03-14") == 2
    assert queries.count_on(conn, user, "2025-03-20") == 0  # Bob's day, not hers
    assert alice.delete(f"/api/entries/{ids['2025-03-01T09:00:00']}").status == 204
    assert queries.days_beside(conn, user, "2025-03-14") == ("2025-02-27", "2025-03-31")


def test_the_entry_beside_a_deleted_one_is_the_next_older_in_its_list_else_the_newer(two, conn):
    _, user, ids = two
    march = EntryFilter(date_from="2025-03-01", date_to="2025-03-31")
    assert queries.entry_beside(conn, user, march, ids["2025-03-14T20:00:00"]) == (
        ids["2025-03-14T08:00:00"])
    assert queries.entry_beside(conn, user, march, ids["2025-03-01T09:00:00"]) == (
        ids["2025-03-14T08:00:00"])  # the oldest of the list: the one above it
    assert queries.entry_beside(conn, user, EntryFilter(), ids["2025-03-01T09:00:00"]) == (
        ids["2025-02-27T10:00:00"])  # unfiltered, February is next
    alone = EntryFilter(date_from="2026-01-05", date_to="2026-01-05")
    assert queries.entry_beside(conn, user, alone, ids["2026-01-05T12:00:00"]) is None
    assert queries.entry_beside(conn, user + 1, march, ids["2025-03-14T20:00:00"]) is None


def plans(conn, run) -> str:
    """The query plans of every statement `run()` sends (their values bound)."""
    sent = []
    conn.set_trace_callback(sent.append)
    try:
        run()
    finally:
        conn.set_trace_callback(None)
    return " / ".join(row["detail"] for sql in sent
                      for row in conn.execute("EXPLAIN QUERY PLAN " + sql))


def test_the_day_and_month_queries_read_through_keys(two, conn):
    _, user, ids = two
    months = plans(conn, lambda: queries.months_logged(conn, user))
    assert "SEARCH entry_days USING PRIMARY KEY (user_id=?)" in months, months
    beside = plans(conn, lambda: queries.days_beside(conn, user, "2025-03-14"))
    assert beside.count("USING PRIMARY KEY (user_id=? AND local_date") == 2, beside
    assert "SCAN" not in beside, beside
    entry = plans(conn, lambda: queries.entry_beside(
        conn, user, EntryFilter(date_from="2025-03-01"), ids["2025-03-14T08:00:00"]))
    assert "INDEX entries_user_time (user_id=? AND occurred_at<?)" in entry, entry
    assert "SCAN" not in entry and "TEMP B-TREE" not in entry, entry
