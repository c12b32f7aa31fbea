"""GET /api/entries answered from memory by journal version (issue #27): a repeat list costs a
version read, and every change to anything an entry's JSON shows — the entry, its activities,
photos, voice memos, weather, place, song lookup and cover, the mood labels — raises the version
in its own transaction, so a kept page is never served stale, nor to anyone else."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

import pytest

from kmood_lib.journal import queries
from tests.images import phone_jpeg, upload

LISTS = ["/api/entries", "/api/entries?limit=1", "/api/entries?activity=walk",
         "/api/entries?q=river"]


@pytest.fixture
def alice(client_for, clock):
    clock.set(datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc))
    client = client_for("alice", timezone="Europe/Berlin")
    for day, mood in (("2026-11-30", 5), ("2026-12-01", 4)):
        assert client.post("/api/entries", {
            "mood": mood, "occurred_at": f"{day}T09:00:00", "activities": ["walk"],
            "note": "by the river", "location": {"lat": 52.52, "lon": 13.40},
            "song": {"artist": "Artist", "title": "Song"}}).status == 201
    return client


def fresh(conn, client, path: str) -> str:
    """The page computed now, past the cache."""
    user = conn.execute("SELECT id FROM users WHERE username = 'alice'").fetchone()[0]
    params = dict(p.split("=") for p in path.partition("?")[2].split("&") if p)
    return queries.list_entries_json(conn, user, queries.parse_filter(params),
                                     queries.parse_limit(params.get("limit")), None)


def newest(client) -> int:
    return client.get("/api/entries?limit=1").json["entries"][0]["id"]


def test_a_repeat_list_is_served_from_the_cache(alice, services):
    first = alice.get("/api/entries").body
    computed = services.entries_cache.computed
    assert alice.get("/api/entries").body == first
    assert services.entries_cache.computed == computed
    assert services.entries_cache.found >= 1


def test_a_repeat_list_reads_the_version_alone_with_no_transaction_around_it(alice, wsgi):
    alice.get("/api/entries")  # computed and kept
    sent: list[str] = []
    connection = wsgi.bottle.config["kmood.pool"].get()  # this thread's, as the request's
    connection.set_trace_callback(sent.append)
    try:
        assert alice.get("/api/entries").status == 200
    finally:
        connection.set_trace_callback(None)
    assert not [sql for sql in sent if sql.split()[0].upper() in ("BEGIN", "COMMIT")], sent
    assert [sql for sql in sent if "journal_versions" in sql] == [
        "SELECT version FROM journal_versions WHERE user_id = 1"]


def _create(client, conn):
    assert client.post("/api/entries", {"mood": 1, "occurred_at": "2026-12-02T08:00:00",
                                        "activities": ["walk"], "note": "river again"}
                       ).status == 201


def _edit(client, conn):
    assert client.patch(f"/api/entries/{newest(client)}", {"note": "by the sea"}).status == 200


def _delete(client, conn):
    assert client.delete(f"/api/entries/{newest(client)}").status == 204


def _rename_label(client, conn):
    assert client.patch("/api/moods/4", {"label": "fine"}).status == 200


def _rename_activity(client, conn):
    walk = next(a for a in client.get("/api/activities").json["activities"]
                if a["name"] == "walk")
    assert client.patch(f"/api/activities/{walk['id']}", {"name": "stroll"}).status == 200


def _add_photo(client, conn):
    assert upload(client, newest(client), phone_jpeg()).status == 201


def _remove_photo(client, conn):
    photo = client.get("/api/entries?limit=1").json["entries"][0]["photos"][0]
    assert client.delete(f"/api/photos/{photo['id']}").status == 204


_remove_photo.first = _add_photo  # the list kept with the photo, then the photo removed


def _voice_memo(client, conn):  # as an import attaches one
    conn.execute("INSERT INTO voice_memos (entry_id, position, sha256, content_type,"
                 " created_at, data) VALUES (?, 0, ?, 'audio/mp4', 0, x'00')",
                 (newest(client), hashlib.sha256(b"memo").hexdigest()))


def _weather(client, conn):  # as the worker fills it in
    conn.execute("INSERT INTO weather (entry_id, temperature_c, code, fetched_at)"
                 " VALUES (?, 3.5, 61, 0)", (newest(client),))


def _place(client, conn):
    conn.execute("INSERT INTO places (cell, display_name, locality, country_code, fetched_at)"
                 " VALUES ('52.50:13.40', 'Berlin, Germany', 'Berlin', 'de', 0)")
    conn.execute("INSERT INTO entry_places (entry_id, cell) VALUES (?, '52.50:13.40')",
                 (newest(client),))


def _song_lookup(client, conn):
    key = conn.execute("SELECT lookup_key FROM songs LIMIT 1").fetchone()[0]
    conn.execute("INSERT INTO song_lookups (lookup_key, found, recording_mbid, release_mbid,"
                 " release_title, release_date, length_ms, score, fetched_at) VALUES"
                 " (?, 1, 'r', 'rel-1', 'Album', '2004', 1000, 100, 0)", (key,))


def _cover(client, conn):
    _song_lookup(client, conn)
    conn.execute("INSERT INTO covers (release_mbid, content_type, image, fetched_at)"
                 " VALUES ('rel-1', 'image/png', x'00', 0)")


CHANGES = [_create, _edit, _delete, _rename_label, _rename_activity, _add_photo, _remove_photo,
           _voice_memo, _weather, _place, _song_lookup, _cover]


@pytest.mark.parametrize("change", CHANGES, ids=lambda f: f.__name__.strip("_"))
def test_every_change_to_what_a_list_shows_is_listed_at_once(alice, conn, change):
    if hasattr(change, "first"):
        change.first(alice, conn)
    before = {path: alice.get(path).body for path in LISTS}
    for path in LISTS:
        assert alice.get(path).body == before[path]  # now kept
    change(alice, conn)
    after = {path: alice.get(path).body for path in LISTS}
    assert after["/api/entries"] != before["/api/entries"], "the change shows in the list"
    for path in LISTS:
        assert after[path].decode() == fresh(conn, alice, path), path


def test_another_person_never_gets_a_kept_page(alice, client_for, conn, services):
    alice.get("/api/entries")
    bob = client_for("bob")
    conn.execute("UPDATE journal_versions SET version = 7")  # the same version for both
    conn.execute("INSERT OR IGNORE INTO journal_versions (user_id, version)"
                 " SELECT id, 7 FROM users")
    alice.get("/api/entries")
    assert bob.get("/api/entries").json == {"entries": [], "next_cursor": None}
