"""The per-day tables (migration 0015) always equal what grouping the entries gives, whatever
wrote them — API create, edit and delete, imports, deleting an activity or a user, raw SQL on
the links — and the stats answer the same from them as from the entries themselves."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
from datetime import date, timedelta
from zoneinfo import ZoneInfo

from kmood_lib.accounts import users
from kmood_lib.core import db, migrate
from kmood_lib.journal import day_counts, stats, writes
from kmood_lib.journal.entry_input import parse_entry, utc_now
from kmood_lib.journal.queries import EntryFilter

START = date(2026, 1, 1)
NAMES = ["walk", "work", "friends", "Reading", "sleep early"]
ALL_MOODS = [1, 2, 3, 4, 5]

EXPECTED_DAYS = (
    "SELECT user_id, local_date, CAST(julianday(local_date) - 1721424.5 AS INTEGER), count(*),"
    " sum(mood), sum(mood = 1), sum(mood = 2), sum(mood = 3), sum(mood = 4), sum(mood = 5)"
    " FROM entries GROUP BY user_id, local_date ORDER BY user_id, local_date")
STORED_DAYS = ("SELECT user_id, local_date, day, n, mood_sum, n1, n2, n3, n4, n5 FROM entry_days"
               " ORDER BY user_id, local_date")
EXPECTED_ACTIVITY_DAYS = (
    "SELECT e.user_id, ea.activity_id, e.local_date, count(*), sum(e.mood)"
    " FROM entry_activities ea JOIN entries e ON e.id = ea.entry_id"
    " GROUP BY e.user_id, ea.activity_id, e.local_date ORDER BY 1, 2, 3")
STORED_ACTIVITY_DAYS = ("SELECT user_id, activity_id, local_date, n, mood_sum FROM activity_days"
                        " ORDER BY 1, 2, 3")


def assert_days_agree(conn) -> None:
    tuples = lambda sql: [tuple(r) for r in conn.execute(sql)]  # noqa: E731
    assert tuples(STORED_DAYS) == tuples(EXPECTED_DAYS)
    assert tuples(STORED_ACTIVITY_DAYS) == tuples(EXPECTED_ACTIVITY_DAYS)


def random_body(rng: random.Random) -> dict:
    day = START + timedelta(days=rng.randrange(40))
    offset = rng.choice(["+00:00", "+14:00", "-12:00", "+05:45"])
    return {"mood": rng.randint(1, 5), "activities": rng.sample(NAMES, rng.randrange(4)),
            "occurred_at": f"{day}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00{offset}"}


def relink(conn, entry_id: int) -> None:
    """Move one of the entry's links to another of its user's activities in raw SQL, the way a
    future merge of two activities would."""
    linked = [r[0] for r in conn.execute("SELECT activity_id FROM entry_activities"
                                         " WHERE entry_id = ?", (entry_id,))]
    other = conn.execute("SELECT a.id FROM activities a JOIN entries e ON e.user_id = a.user_id"
                         " WHERE e.id = ? AND a.id NOT IN (SELECT value FROM json_each(?))"
                         " ORDER BY a.id LIMIT 1", (entry_id, str(linked))).fetchone()
    if linked and other:
        with db.transaction(conn):
            conn.execute("UPDATE entry_activities SET activity_id = ? WHERE entry_id = ?"
                         " AND activity_id = ?", (other[0], entry_id, linked[0]))


def test_the_day_tables_follow_every_kind_of_write(client_for, conn, services, clock):
    rng = random.Random(20261203)
    clients = {"alice": client_for("alice"), "bob": client_for("bob")}
    ids = {name: [] for name in clients}
    for step in range(500):
        name = rng.choice(list(clients))
        client, mine = clients[name], ids[name]
        action = rng.random()
        if action < 0.45 or not mine:
            response = client.post("/api/entries", random_body(rng))
            assert response.status == 201, response.json
            mine.append(response.json["id"])
        elif action < 0.75:
            entry_id = rng.choice(mine)
            change = rng.choice([{"mood": rng.randint(1, 5)},
                                 {"activities": rng.sample(NAMES, rng.randrange(4))},
                                 {"occurred_at": random_body(rng)["occurred_at"]},
                                 random_body(rng)])
            assert client.patch(f"/api/entries/{entry_id}", change).status == 200
        elif action < 0.9:
            entry_id = mine.pop(rng.randrange(len(mine)))
            assert client.delete(f"/api/entries/{entry_id}").status == 204
        elif action < 0.95:
            relink(conn, rng.choice(mine))
        elif action < 0.97:
            listed = client.get("/api/activities").json["activities"]
            if listed:
                doomed = rng.choice(listed)["id"]
                assert client.delete(f"/api/activities/{doomed}").status == 204
        else:
            user = users.find_user(conn, name)
            batch = []
            for i in range(rng.randrange(1, 6)):
                data = parse_entry(random_body(rng), tz=ZoneInfo("UTC"), now=utc_now(clock),
                                   metric_defs={}, patch=False)
                batch.append(dataclasses.replace(data, import_key=f"import:{step}:{i}",
                                                 time_known=rng.random() < 0.5))
            with db.transaction(conn):
                writes.insert_imported(conn, user.id, batch, "daylio", clock.now_ms())
            mine.extend(conn.execute("SELECT id FROM entries WHERE import_key LIKE ?",
                                     (f"import:{step}:%",)).fetchall()[i][0]
                        for i in range(len(batch)))
        if step % 50 == 0:
            assert_days_agree(conn)
    assert_days_agree(conn)
    assert conn.execute("SELECT count(*) FROM entry_days WHERE n <= 0").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM activity_days WHERE n <= 0").fetchone()[0] == 0

    bob = users.find_user(conn, "bob")
    assert users.delete_user(conn, bob.id)
    assert_days_agree(conn)
    assert conn.execute("SELECT count(*) FROM entry_days WHERE user_id = ?",
                        (bob.id,)).fetchone()[0] == 0


def test_stats_from_the_day_tables_equal_stats_from_the_entries(client_for, conn, services):
    """A mood filter that matches every entry makes the stats group the entries themselves;
    the answers must be identical to those read from the day tables."""
    rng = random.Random(7)
    client = client_for("alice")
    for _ in range(300):
        assert client.post("/api/entries", random_body(rng)).status == 201
    user_id = users.find_user(conn, "alice").id
    today = START + timedelta(days=41)
    for _ in range(25):
        first = START + timedelta(days=rng.randrange(-5, 45))
        bounds = {"date_from": rng.choice([None, first.isoformat()]),
                  "date_to": rng.choice([None, (first + timedelta(days=rng.randrange(30)))
                                         .isoformat()])}
        by_days, by_entries = EntryFilter(**bounds), EntryFilter(**bounds, moods=ALL_MOODS)
        assert stats.by_dates_only(by_days) and not stats.by_dates_only(by_entries)
        for compute in (lambda f: stats.summary(conn, user_id, today, f),
                        lambda f: stats.weekdays(conn, user_id, f),
                        lambda f: stats.mood_series(conn, user_id, f, "week"),
                        lambda f: stats.mood_series(conn, user_id, f, "month"),
                        lambda f: stats.activity_impact(conn, user_id, f)):
            assert compute(by_days) == compute(by_entries), bounds


def test_week_buckets_start_on_monday_and_month_buckets_on_the_first(client_for, conn):
    client = client_for("alice")
    for day, mood in (("2026-03-01", 2), ("2026-03-02", 4), ("2026-03-08", 5), ("2026-04-30", 1)):
        assert client.post("/api/entries", {"occurred_at": f"{day}T23:59:00+14:00",
                                            "mood": mood}).status == 201
    user_id = users.find_user(conn, "alice").id
    assert stats.mood_series(conn, user_id, EntryFilter(), "week") == [
        {"start": "2026-02-23", "average": 2.0, "count": 1},  # Sunday 03-01 is in 02-23's week
        {"start": "2026-03-02", "average": 4.5, "count": 2},
        {"start": "2026-04-27", "average": 1.0, "count": 1}]
    assert stats.mood_series(conn, user_id, EntryFilter(), "month") == [
        {"start": "2026-03-01", "average": 3.667, "count": 3},
        {"start": "2026-04-01", "average": 1.0, "count": 1}]


def test_the_migration_fills_the_day_tables_from_existing_entries(tmp_path):
    conn = db.connect(str(tmp_path / "old.db"), 10_000)
    migrations = migrate.load_migrations()
    before = [m for m in migrations if m.version < 15]
    migrate.run(conn, before, lambda: 0)
    with db.transaction(conn):
        conn.execute("INSERT INTO users (id, username, username_key, password_hash, timezone,"
                     " is_admin, created_at, updated_at) VALUES (1, 'a', 'a', 'x', 'UTC', 1, 0, 0)")
        for i, (day, mood) in enumerate([("2024-02-29", 5), ("2024-02-29", 2), ("1999-12-31", 3)]):
            conn.execute("INSERT INTO entries (id, user_id, occurred_at, utc_offset_s, local_date,"
                         " local_minute, mood, source, created_at, updated_at)"
                         " VALUES (?, 1, 0, 0, ?, 600, ?, 'api', 0, 0)", (i + 1, day, mood))
        conn.execute("INSERT INTO activities (id, user_id, name, name_key, created_at)"
                     " VALUES (1, 1, 'walk', 'walk', 0)")
        conn.execute("INSERT INTO entry_activities VALUES (1, 1), (2, 1)")
    migrate.run(conn, migrations, lambda: 0)
    assert [tuple(r) for r in conn.execute(STORED_DAYS)] == [
        (1, "1999-12-31", date(1999, 12, 31).toordinal(), 1, 3, 0, 0, 1, 0, 0),
        (1, "2024-02-29", date(2024, 2, 29).toordinal(), 2, 7, 0, 1, 0, 0, 1)]
    assert [tuple(r) for r in conn.execute(STORED_ACTIVITY_DAYS)] == [(1, 1, "2024-02-29", 2, 7)]
    assert_days_agree(conn)


def test_stats_read_the_day_tables_through_their_keys(conn):
    for sql in ("SELECT n FROM entry_days WHERE user_id = 1 AND local_date >= '2026-01-01'",
                "SELECT sum(n) FROM activity_days WHERE user_id = 1 AND local_date >= '2026-01-01'"
                " GROUP BY activity_id"):
        plan = " ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql))
        assert "USING PRIMARY KEY (user_id=?" in plan and "TEMP B-TREE" not in plan, plan


def insert_trigger_sql(conn) -> list[tuple]:
    return [tuple(r) for r in conn.execute(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name IN"
        " ('entry_days_insert', 'activity_days_link_insert') ORDER BY name")]


def imported(clock, keys: list[str], day: str = "2026-02-01") -> list:
    data = parse_entry({"mood": 4, "activities": ["walk", "tea"], "occurred_at": f"{day}T08:00:00"},
                       tz=ZoneInfo("UTC"), now=utc_now(clock), metric_defs={}, patch=False)
    return [dataclasses.replace(data, import_key=key) for key in keys]


def test_an_import_counts_in_bulk_and_puts_the_insert_triggers_back(conn, make_user, clock):
    user = make_user("alice")
    before = insert_trigger_sql(conn)
    assert len(before) == 2
    with db.transaction(conn):
        writes.insert_imported(conn, user.id, imported(clock, ["a", "b", "c"]), "daylio",
                               clock.now_ms())
        assert insert_trigger_sql(conn) == before
    assert insert_trigger_sql(conn) == before
    assert tuple(conn.execute("SELECT n, mood_sum, n4 FROM entry_days").fetchone()) == (3, 12, 3)
    assert_days_agree(conn)


def test_a_failed_import_leaves_the_triggers_and_the_counts_as_they_were(conn, make_user, clock):
    user = make_user("alice")
    before = insert_trigger_sql(conn)
    with db.transaction(conn):
        writes.insert_imported(conn, user.id, imported(clock, ["a"]), "daylio", clock.now_ms())
    try:
        with db.transaction(conn):
            try:
                writes.insert_imported(conn, user.id, imported(clock, ["b", "a"]), "daylio",
                                       clock.now_ms())  # "a" is there already
            except sqlite3.IntegrityError:
                assert insert_trigger_sql(conn) == before  # back even inside the transaction
                raise
    except sqlite3.IntegrityError:
        pass
    else:
        raise AssertionError("a duplicate import key must fail the batch")
    assert insert_trigger_sql(conn) == before
    assert conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 1
    assert_days_agree(conn)


def test_the_insert_triggers_are_lifted_only_inside_a_transaction(conn):
    try:
        with day_counts.insert_triggers_off(conn):
            pass
    except RuntimeError as exc:
        assert "inside a transaction" in str(exc)
    else:
        raise AssertionError("outside a transaction the triggers must stay")
    assert len(insert_trigger_sql(conn)) == 2
