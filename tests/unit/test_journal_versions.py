"""The journal version's triggers in one list (issue #37.4): every table an entry's JSON, the
stats or the insights show raises its owners' version on each write that can change what is
shown, or a kept answer (journal.versions.cached) would be served stale. The list in
journal/versions.py, the database's triggers and the entry's own SQL are held to each other."""

from __future__ import annotations

import re

from kmood_lib.journal import entry_json, versions

TRIGGER = re.compile(r"CREATE TRIGGER \S+ AFTER (INSERT|UPDATE|DELETE) ON (\w+)", re.I)


def version_triggers(conn) -> set[tuple[str, str]]:
    """(table, event) of every trigger that raises a journal version."""
    found = set()
    for (sql,) in conn.execute("SELECT sql FROM sqlite_schema WHERE type = 'trigger'"):
        if "journal_versions" in sql:
            event, table = TRIGGER.match(sql).groups()
            found.add((table, event.upper()))
    return found


def listed() -> set[tuple[str, str]]:
    return {(table, event) for table, events in versions.VERSIONED_TABLES.items()
            for event in events}


def test_every_listed_table_has_a_trigger_for_each_of_its_writes(conn):
    missing = listed() - version_triggers(conn)
    assert not missing, (f"listed in versions.VERSIONED_TABLES without a trigger that raises"
                         f" the journal version: {sorted(missing)}; add it in a new migration")


def test_every_version_trigger_is_listed(conn):
    unlisted = version_triggers(conn) - listed()
    assert not unlisted, f"add these to versions.VERSIONED_TABLES: {sorted(unlisted)}"


def test_every_table_an_entry_s_json_reads_is_listed():
    shown = set(re.findall(r"\b(?:FROM|JOIN)\s+([a-z_]+)\b", entry_json.ONE_SQL))
    shown.discard("json_each")
    unlisted = shown - set(versions.VERSIONED_TABLES)
    assert not unlisted, (f"an entry's JSON shows {sorted(unlisted)} but no journal version"
                          f" follows them: add their triggers and list them")


def test_a_write_to_each_listed_table_raises_the_version(conn, client_for):
    """Not only present: a trigger fires for a real write (one listed write of each kind)."""
    alice = client_for("alice")
    entry = alice.post("/api/entries", {"mood": 3, "activities": ["walk"],
                                        "note": "x"}).json["id"]
    before = versions.journal_version(conn, 1)
    conn.execute("UPDATE activities SET name = 'stroll' WHERE user_id = 1")
    conn.execute("UPDATE mood_labels SET label = 'so-so' WHERE user_id = 1 AND level = 3")
    conn.execute("DELETE FROM entry_activities WHERE entry_id = ?", (entry,))
    assert versions.journal_version(conn, 1) == before + 3
