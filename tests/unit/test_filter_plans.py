"""Activity filters resolve names to ids first and use the (activity_id, entry_id) index; an
activity the user does not have ends the query before it reads an entry."""

from kmood_lib.journal import queries, stats, writes
from kmood_lib.journal.entry_input import parse_entry, utc_now
from kmood_lib.journal.queries import EntryFilter


def fill(conn, services, user, n=3000):
    from zoneinfo import ZoneInfo

    for i in range(n):
        data = parse_entry({"mood": i % 5 + 1, "activities": ["walk"] if i % 10 == 0 else
                            ["work"], "occurred_at": f"2026-0{i % 9 + 1}-1{i % 10}T12:00:00"},
                           tz=ZoneInfo("UTC"), now=utc_now(services.clock), metric_defs={},
                           patch=False)
        writes.create_entry(conn, user.id, data, "api", services.clock.now_ms())


def vm_steps(conn, run) -> int:
    """Virtual-machine instructions SQLite ran for `run()`, counted in steps of 100."""
    count = [0]

    def tick():
        count[0] += 1
        return 0

    conn.set_progress_handler(tick, 100)
    try:
        run()
    finally:
        conn.set_progress_handler(None, 0)
    return count[0]


def plan(conn, user_id, flt) -> str:
    where, params = flt.where(conn, user_id)
    rows = conn.execute("EXPLAIN QUERY PLAN SELECT e.id FROM entries e WHERE e.user_id = ?"
                        + where + " ORDER BY e.occurred_at DESC, e.id DESC LIMIT 21",
                        (user_id, *params)).fetchall()
    return "\n".join(row["detail"] for row in rows)


def test_a_known_activity_is_looked_up_through_its_index(conn, services, make_user):
    alice = make_user("alice")
    fill(conn, services, alice, 200)
    detail = plan(conn, alice.id, EntryFilter(activities=["Walk"]))
    assert "USING COVERING INDEX entry_activities_activity (activity_id=?)" in detail, detail
    found, _ = queries.list_entries(conn, alice.id, EntryFilter(activities=["WALK"]), 500, None)
    assert len(found) == 20 and all(e["activities"] == ["walk"] for e in found)


def test_an_unknown_activity_answers_empty_without_reading_entries(conn, services, make_user):
    alice = make_user("alice")
    bob = make_user("bob")
    fill(conn, services, alice)
    conn.execute("INSERT INTO activities (user_id, name, name_key, created_at)"
                 " VALUES (?, 'sailing', 'sailing', 0)", (bob.id,))  # someone else's
    for name in ("sailing", "nothing like it"):
        flt = EntryFilter(activities=["walk", name])
        assert queries.list_entries(conn, alice.id, flt, 50, None) == ([], None)
        assert queries.list_entries_json(conn, alice.id, flt, 50, None) == (
            '{"entries":[],"next_cursor":null}')
        assert stats.summary(conn, alice.id, services.clock.now().date(), flt)["count"] == 0
    unknown = vm_steps(conn, lambda: queries.list_entries_json(
        conn, alice.id, EntryFilter(activities=["sailing"]), 50, None))
    # A question answered by reading every entry, for scale (what the old EXISTS filter did):
    # a mood filter that matches them all groups the entries themselves.
    everything = vm_steps(conn, lambda: stats.summary(conn, alice.id,
                                                      services.clock.now().date(),
                                                      EntryFilter(moods=[1, 2, 3, 4, 5])))
    assert unknown * 20 < everything, (unknown, everything)
