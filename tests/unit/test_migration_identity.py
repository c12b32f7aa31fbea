"""Migration 0005 rebuilds tables on a populated database without losing a child row, and the
runner keeps foreign keys off for the run and checks them before COMMIT (issue #9, defect 10)."""

from __future__ import annotations

import pytest

from kmood_lib.core import db, migrate
from kmood_lib.core.migrate import MigrationError
from kmood_lib.core.text import name_key

FAMILY = """
INSERT INTO users (id, username, password_hash, created_at, updated_at) VALUES
    (1, 'alice', 'h', 0, 0), (2, 'bob', 'h', 0, 0);
INSERT INTO sessions (user_id, token_hash, csrf_token, created_at, expires_at, last_seen_at)
    VALUES (1, 's1', 'c', 0, 9, 0), (2, 's2', 'c', 0, 9, 0);
INSERT INTO api_tokens (id, user_id, name, token_hash, created_at) VALUES (1, 1, 'cli', 't1', 0);
INSERT INTO activity_groups (id, user_id, name) VALUES (1, 1, 'Gefühle'), (2, 1, 'GEFÜHLE');
INSERT INTO activities (id, user_id, name, group_id, created_at) VALUES
    (1, 1, 'Ärger', 1, 0), (2, 1, 'ärger', 2, 0), (3, 1, 'running', NULL, 0),
    (4, 2, 'Ärger', NULL, 0);
INSERT INTO metrics (id, user_id, name, created_at) VALUES
    (1, 1, 'Größe', 0), (2, 1, 'GRÖSSE', 0), (3, 2, 'sleep', 0);
INSERT INTO entries (id, user_id, occurred_at, utc_offset_s, local_date, local_minute, mood,
                     note, source, created_at, updated_at) VALUES
    (1, 1, 0, 0, '1970-01-01', 0, 3, 'angry walk', 'api', 0, 0),
    (2, 1, 0, 0, '1970-01-01', 0, 4, 'more anger', 'api', 0, 0),
    (3, 1, 0, 0, '1970-01-01', 0, 5, 'both', 'api', 0, 0),
    (4, 2, 0, 0, '1970-01-01', 0, 2, 'bob', 'api', 0, 0);
INSERT INTO entry_activities (entry_id, activity_id) VALUES
    (1, 1), (2, 2), (3, 1), (3, 2), (3, 3), (4, 4);
INSERT INTO entry_metrics (entry_id, metric_id, value) VALUES (1, 1, 180), (2, 2, 181),
    (4, 3, 7.5);
INSERT INTO songs (entry_id, artist, title, source, created_at) VALUES (1, 'a', 't', 'manual', 0);
INSERT INTO jobs (id, kind, key, max_attempts, run_after, created_at, updated_at)
    VALUES (7, 'k', 'x', 3, 0, 0, 0);
"""


def at_version_4(tmp_path):
    conn = db.connect(str(tmp_path / "k.db"), 1000)
    migrate.run(conn, [m for m in migrate.load_migrations() if m.version <= 4], lambda: 0)
    for statement in migrate.split_statements(FAMILY):
        conn.execute(statement)
    return conn


def snapshot(conn) -> dict:
    def rows(sql):
        return sorted(tuple(r) for r in conn.execute(sql).fetchall())

    return {
        "sessions": rows("SELECT user_id, token_hash FROM sessions"),
        "api_tokens": rows("SELECT id, user_id, name FROM api_tokens"),
        "mood_labels": rows("SELECT user_id, level, label FROM mood_labels"),
        "songs": rows("SELECT entry_id, artist, title FROM songs"),
        "entries": rows("SELECT id, user_id, mood, note FROM entries"),
        "links": sorted((e, name_key(n), u) for e, n, u in conn.execute(
            "SELECT ea.entry_id, a.name, a.user_id FROM entry_activities ea"
            " JOIN activities a ON a.id = ea.activity_id").fetchall()),
        "values": rows("SELECT em.entry_id, m.user_id, em.value FROM entry_metrics em"
                       " JOIN metrics m ON m.id = em.metric_id"),
        "jobs": rows("SELECT id, kind, key FROM jobs"),
        "fts": rows("SELECT rowid FROM entries_fts WHERE entries_fts MATCH 'anger*'"),
    }


def test_a_populated_database_migrates_without_losing_a_child_row(tmp_path):
    conn = at_version_4(tmp_path)
    before = snapshot(conn)
    assert migrate.run(conn, migrate.load_migrations(), lambda: 0) == [
        m.version for m in migrate.load_migrations() if m.version > 4]
    after = snapshot(conn)
    # 'Ärger'/'ärger' became one activity: entry 3's two links to it are now one.
    assert before["links"].count((3, "ärger", 1)) == 2
    assert after["links"] == sorted(set(before["links"]))
    for table in ("sessions", "api_tokens", "mood_labels", "songs", "entries", "values", "jobs",
                  "fts"):
        assert after[table] == before[table], table
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_names_that_differed_only_in_folding_are_merged_into_the_oldest(tmp_path):
    conn = at_version_4(tmp_path)
    migrate.run(conn, migrate.load_migrations(), lambda: 0)
    activities = conn.execute("SELECT id, user_id, name, name_key, group_id FROM activities"
                              " ORDER BY id").fetchall()
    assert [tuple(a) for a in activities] == [(1, 1, "Ärger", "ärger", 1),
                                              (3, 1, "running", "running", None),
                                              (4, 2, "Ärger", "ärger", None)]
    assert [tuple(g) for g in conn.execute("SELECT id, name_key FROM activity_groups")] == [
        (1, "gefühle")]
    metrics = conn.execute("SELECT id, name_key FROM metrics ORDER BY id").fetchall()
    assert [tuple(m) for m in metrics] == [(1, "grösse"), (3, "sleep")]
    assert conn.execute("SELECT username_key FROM users ORDER BY id").fetchall()[0][0] == "alice"


def test_ids_are_not_reused_after_the_migration(tmp_path):
    conn = at_version_4(tmp_path)
    migrate.run(conn, migrate.load_migrations(), lambda: 0)
    conn.execute("DELETE FROM entries WHERE id = 4")
    new = conn.execute("INSERT INTO entries (user_id, occurred_at, utc_offset_s, local_date,"
                       " local_minute, mood, source, created_at, updated_at)"
                       " VALUES (2, 0, 0, '1970-01-01', 0, 3, 'api', 0, 0) RETURNING id"
                       ).fetchall()[0][0]
    assert new == 5


def test_a_migration_that_would_leave_orphans_is_rolled_back(tmp_path):
    conn = db.connect(str(tmp_path / "a.db"), 1000)
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_parents.sql").write_text(
        "CREATE TABLE parents (id INTEGER PRIMARY KEY);\n"
        "CREATE TABLE children (id INTEGER PRIMARY KEY,"
        " parent_id INTEGER REFERENCES parents (id));\n")
    (directory / "0002_orphan.sql").write_text("INSERT INTO children VALUES (1, 99);\n")
    with pytest.raises(MigrationError, match="missing parents"):
        migrate.run(conn, migrate.load_migrations(directory), lambda: 0)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "children" not in names and "schema_migrations" not in names
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
