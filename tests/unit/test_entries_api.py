"""Entries over the real WSGI app: CRUD, validation, replay, filters, pagination, search."""

import logging
import urllib.parse

import pytest

from tests.wsgi import Client

ENTRY = {"mood": 4, "activities": ["friends", "running"], "note": "long walk",
         "location": {"lat": 52.52, "lon": 13.41}, "occurred_at": "2026-11-29T21:15:00+01:00"}


@pytest.fixture
def alice(client_for):
    return client_for("alice", timezone="Europe/Berlin")


def counts(conn):
    return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("entries", "activities", "entry_activities", "entry_metrics", "songs")}


def test_create_read_update_delete_round_trip(alice, conn):
    alice.post("/api/metrics", {"name": "sleep", "unit": "h", "min": 0, "max": 24})
    created = alice.post("/api/entries", {**ENTRY, "metrics": {"sleep": 7.5},
                                          "song": {"artist": "Radiohead", "title": "Reckoner"}})
    assert created.status == 201
    entry = created.json
    assert entry["occurred_at"] == "2026-11-29T21:15:00+01:00"
    assert entry["mood_label"] == "good" and entry["source"] == "web"
    assert entry["activities"] == ["friends", "running"]
    assert entry["location"] == {"lat": 52.52, "lon": 13.41, "place": None}
    assert entry["weather"] is None and entry["metrics"] == {"sleep": 7.5}
    assert entry["song"] == {"artist": "Radiohead", "title": "Reckoner", "album": None,
                             "source": "manual", "metadata": None}
    assert alice.get(f"/api/entries/{entry['id']}").json == entry
    patched = alice.patch(f"/api/entries/{entry['id']}", {
        "mood": 5, "mood_label": "ecstatic", "activities": ["reading"], "song": None,
        "location": None, "note": "changed"})
    assert patched.status == 200
    assert patched.json["mood"] == 5 and patched.json["mood_label"] == "ecstatic"
    assert patched.json["activities"] == ["reading"] and patched.json["song"] is None
    assert patched.json["location"] is None and patched.json["metrics"] == {"sleep": 7.5}
    assert patched.json["occurred_at"] == entry["occurred_at"]
    assert alice.delete(f"/api/entries/{entry['id']}").status == 204
    assert alice.get(f"/api/entries/{entry['id']}").status == 404
    assert counts(conn)["entry_activities"] == 0 and counts(conn)["songs"] == 0


def test_an_api_token_entry_has_source_api(wsgi, alice):
    api = Client(wsgi)
    api.bearer = alice.post("/api/tokens", {"name": "t"}).json["token"]
    assert api.post("/api/entries", {"mood": 3}).json["source"] == "api"


BAD_ENTRIES = [
    ({}, "mood"),
    ({"mood": 0}, "mood"), ({"mood": 6}, "mood"), ({"mood": "4"}, "mood"),
    ({"mood": True}, "mood"), ({"mood": 3.5}, "mood"),
    ({"mood": 3, "occurred_at": "yesterday"}, "occurred_at"),
    ({"mood": 3, "occurred_at": "2999-01-01T00:00:00Z"}, "occurred_at"),
    ({"mood": 3, "occurred_at": 1700000000}, "occurred_at"),
    ({"mood": 3, "location": {"lat": 91, "lon": 0}}, "location.lat"),
    ({"mood": 3, "location": {"lat": 0, "lon": -181}}, "location.lon"),
    ({"mood": 3, "location": {"lat": 10}}, "location"),
    ({"mood": 3, "location": {"lat": 1, "lon": 2, "place": "x"}}, "location.place"),
    ({"mood": 3, "location": [1, 2]}, "location"),
    ({"mood": 3, "note": "x" * 20001}, "note"),
    ({"mood": 3, "note": 5}, "note"),
    ({"mood": 3, "note_title": "x" * 201}, "note_title"),
    ({"mood": 3, "activities": "running"}, "activities"),
    ({"mood": 3, "activities": [f"a{i}" for i in range(51)]}, "activities"),
    ({"mood": 3, "activities": ["x" * 65]}, "activities"),
    ({"mood": 3, "activities": [""]}, "activities"),
    ({"mood": 3, "metrics": {"nope": 1}}, "metrics.nope"),
    ({"mood": 3, "metrics": {"sleep": 25}}, "metrics.sleep"),
    ({"mood": 3, "metrics": {"sleep": "7"}}, "metrics.sleep"),
    ({"mood": 3, "song": {"artist": "A"}}, "song.title"),
    ({"mood": 3, "song": {"artist": "A", "title": "T", "metadata": {}}}, "song.metadata"),
    ({"mood": 3, "song": {"artist": "A", "title": "T", "source": "spotify"}}, "song.source"),
    ({"mood": 3, "client_id": "not-a-uuid"}, "client_id"),
    ({"mood": 3, "id": 7}, "id"), ({"mood": 3, "weather": {}}, "weather"),
    ({"mood": 3, "source": "daylio"}, "source"), ({"mood": 3, "created_at": "x"}, "created_at"),
    ({"mood": 3, "moood": 4}, "moood"),
]


@pytest.mark.parametrize("body,field", BAD_ENTRIES)
def test_bad_input_is_422_naming_the_field_and_changes_nothing(alice, conn, body, field):
    alice.post("/api/metrics", {"name": "sleep", "min": 0, "max": 24})
    before = counts(conn)
    response = alice.post("/api/entries", body)
    assert response.status == 422, response.json
    assert field in response.json["error"]["fields"], response.json
    assert counts(conn) == before


def test_every_bad_field_is_named_at_once(alice):
    response = alice.post("/api/entries", {"mood": 9, "note": 1, "bogus": True})
    assert set(response.json["error"]["fields"]) == {"mood", "note", "bogus"}


@pytest.mark.parametrize("body,field", [
    ({"song": {"artist": "A", "title": "T"}}, "song"), ({"client_id": None}, "client_id"),
    ({"mood": 0}, "mood"), ({"weather": None}, "weather"), ({"updated_at": "x"}, "updated_at"),
])
def test_bad_patches_are_422_and_change_nothing(alice, body, field):
    entry = alice.post("/api/entries", {**ENTRY, "song": {"artist": "A", "title": "T"}}).json
    response = alice.patch(f"/api/entries/{entry['id']}", body)
    assert response.status == 422 and field in response.json["error"]["fields"]
    assert alice.get(f"/api/entries/{entry['id']}").json == entry


def test_patch_refuses_to_add_a_song_and_says_why(alice):
    entry = alice.post("/api/entries", {"mood": 3}).json
    response = alice.patch(f"/api/entries/{entry['id']}", {"song": {"artist": "A", "title": "T"}})
    assert response.status == 422
    assert "only when the entry is created" in response.json["error"]["fields"]["song"]


def test_malformed_json_is_400_and_missing_content_type_is_415(alice, conn):
    assert alice.request("POST", "/api/entries", body=b'{"mood": 3',
                         content_type="application/json").status == 400
    assert alice.request("POST", "/api/entries", body=b'{"mood": 3}',
                         content_type="text/plain").status == 415
    assert counts(conn)["entries"] == 0


def test_a_replayed_client_id_returns_the_existing_entry(alice, conn):
    body = {**ENTRY, "client_id": "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"}
    first = alice.post("/api/entries", body)
    second = alice.post("/api/entries", {**body, "mood": 1})
    assert (first.status, second.status) == (201, 200)
    assert second.json == first.json
    assert counts(conn)["entries"] == 1


def test_client_ids_are_unique_per_user_not_globally(alice, client_for):
    bob = client_for("bob")
    body = {"mood": 3, "client_id": "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"}
    assert alice.post("/api/entries", body).status == 201
    assert bob.post("/api/entries", body).status == 201


@pytest.mark.parametrize("naive,expected", [
    ("2026-11-29T21:15:00", "2026-11-29T21:15:00+01:00"),
    ("2026-03-29T02:30:00", "2026-03-29T03:30:00+02:00"),  # DST gap: moved forward by the gap
    ("2026-10-25T02:30:00", "2026-10-25T02:30:00+02:00"),  # fold: the first occurrence
    ("2026-07-01T12:00:00Z", "2026-07-01T12:00:00+00:00"),  # an explicit offset is kept
])
def test_a_naive_time_is_read_in_the_users_timezone(alice, naive, expected):
    assert alice.post("/api/entries", {"mood": 3, "occurred_at": naive}).json[
        "occurred_at"] == expected


def test_without_occurred_at_the_entry_is_now_in_the_users_timezone(alice, clock):
    entry = alice.post("/api/entries", {"mood": 3}).json
    assert entry["occurred_at"] == "2026-11-30T13:00:00+01:00"  # the fake clock's 12:00 UTC


def test_mood_labels_can_be_renamed_and_are_used_by_entries(alice):
    assert [m["label"] for m in alice.get("/api/moods").json["moods"]] == [
        "rad", "good", "meh", "bad", "awful"]
    assert alice.patch("/api/moods/4", {"label": "fine"}).status == 200
    assert alice.patch("/api/moods/6", {"label": "x"}).status == 404
    assert alice.patch("/api/moods/4", {"label": ""}).status == 422
    assert alice.post("/api/entries", {"mood": 4}).json["mood_label"] == "fine"


def test_activities_and_metrics_vocabularies(alice):
    created = alice.post("/api/activities", {"name": "swim", "group": "sport"})
    assert created.status == 201 and created.json["group"] == "sport"
    assert alice.post("/api/activities", {"name": "SWIM"}).status == 422
    alice.post("/api/entries", {"mood": 4, "activities": ["Swim", "new one"]})
    listed = {a["name"]: a for a in alice.get("/api/activities").json["activities"]}
    assert set(listed) == {"swim", "new one"} and listed["swim"]["entries"] == 1
    renamed = alice.patch(f"/api/activities/{created.json['id']}", {"name": "swimming",
                                                                    "group": None})
    assert renamed.json == {"id": created.json["id"], "name": "swimming", "icon": None,
                            "group": None, "entries": 1, "archived": False}
    metric = alice.post("/api/metrics", {"name": "energy", "min": 1, "max": 10}).json
    assert alice.post("/api/metrics", {"name": "bad", "min": 5, "max": 1}).status == 422
    assert alice.patch(f"/api/metrics/{metric['id']}", {"min": 11}).status == 422
    assert alice.patch(f"/api/metrics/{metric['id']}", {"unit": "pts"}).json["unit"] == "pts"
    assert alice.delete(f"/api/metrics/{metric['id']}").status == 204
    assert alice.get("/api/metrics").json == {"metrics": [], "next_cursor": None}


def test_an_unreadable_stored_metric_value_is_left_out_with_a_warning(alice, conn, caplog):
    alice.post("/api/metrics", {"name": "sleep"})
    alice.post("/api/metrics", {"name": "energy"})
    entry = alice.post("/api/entries", {"mood": 3, "metrics": {"sleep": 7, "energy": 4}}).json
    conn.execute("UPDATE entry_metrics SET value = 'seven' WHERE metric_id = "
                 "(SELECT id FROM metrics WHERE name = 'sleep')")
    with caplog.at_level(logging.WARNING):
        response = alice.get(f"/api/entries/{entry['id']}")
        listed = alice.get("/api/entries")
    assert response.status == 200 and response.json["metrics"] == {"energy": 4.0}
    assert listed.json["entries"][0]["metrics"] == {"energy": 4.0}
    assert "unreadable value of metric 'sleep'" in caplog.text


def test_a_failing_prompt_enqueue_is_rolled_back_alone_and_the_entry_commits(services, alice,
                                                                               conn, caplog):
    def broken(hook_conn, user_id, entry_id, now_ms):
        hook_conn.execute("UPDATE entries SET note = 'half-done' WHERE id = ?", (entry_id,))
        raise RuntimeError("downstream is on fire")

    services.prompt_hooks.append(broken)
    with caplog.at_level(logging.WARNING):
        response = alice.post("/api/entries", {"mood": 3, "note": "as sent"})
        changed = alice.patch(f"/api/entries/{response.json['id']}", {"note": "edited"})
    assert response.status == 201 and counts(conn)["entries"] == 1
    assert changed.status == 200 and changed.json["note"] == "edited"
    assert alice.get(f"/api/entries/{response.json['id']}").json["note"] == "edited"
    lines = [r for r in caplog.records if "downstream is on fire" in r.getMessage()]
    assert len(lines) == 2 and "the sweep will" in lines[0].getMessage()


def test_a_create_and_its_prompt_enqueue_are_one_commit(services, alice, conn):
    from kmood_lib.core.db import transaction

    with transaction(conn):  # a kind with prompt work: an entry with a location
        conn.execute("UPDATE users SET timezone = 'UTC'")
    statements: list[str] = []
    with services.writer() as writer:
        writer.set_trace_callback(statements.append)
    try:
        response = alice.post("/api/entries", {"mood": 3, "location": {"lat": 52.5, "lon": 13.4},
                                               "occurred_at": "2025-03-01T10:00:00"})
    finally:
        with services.writer() as writer:
            writer.set_trace_callback(None)
    assert response.status == 201
    assert [s for s in statements if s.strip().upper().startswith(("COMMIT", "BEGIN"))] == [
        "BEGIN IMMEDIATE", "COMMIT"]
    prompt = [sql for sql in statements[statements.index("SAVEPOINT prompt_enqueue") + 1:
                                         statements.index("RELEASE prompt_enqueue")]
              if not sql.startswith("--")]  # FTS5's own, flushing the note's index
    # every kind's work in two statements: one reads it, one queues what is not live yet
    assert [sql.split()[0] for sql in prompt] == ["SELECT", "INSERT"], prompt
    assert {r[0] for r in conn.execute("SELECT kind FROM jobs")} == {"weather", "place",
                                                                     "insights"}


def test_the_relay_announces_a_save_after_its_commit_with_the_kinds_queued(services, alice):
    from kmood_lib.queue import relay

    published = []

    class Recorder(relay.NullRelay):
        def entry_saved(self, user_id, entry_id, kinds):
            committed = services.connect().execute(
                "SELECT count(*) FROM entries WHERE id = ?", (entry_id,)).fetchone()[0]
            published.append((entry_id, sorted(kinds), committed))

    services.relay = Recorder()
    made = alice.post("/api/entries", {"mood": 3, "location": {"lat": 52.5, "lon": 13.4},
                                       "occurred_at": "2025-03-01T10:00:00"}).json
    plain = alice.post("/api/entries", {"mood": 2}).json

    def fail(*args):
        raise RuntimeError("no queue today")

    services.prompt_hooks[:] = [fail]
    failed = alice.post("/api/entries", {"mood": 1, "location": {"lat": 1.0, "lon": 1.0}}).json
    assert published == [(made["id"], ["insights", "place", "weather"], 1),
                         (plain["id"], ["insights"], 1), (failed["id"], [], 1)]


def seed(client, n=12):
    ids = []
    for i in range(n):
        ids.append(client.post("/api/entries", {
            "mood": i % 5 + 1, "activities": ["odd" if i % 2 else "even"] + (
                ["third"] if i % 3 == 0 else []),
            "note": f"entry number {i}" + (" walk in the park" if i % 4 == 0 else ""),
            "occurred_at": f"2026-11-{i + 1:02d}T10:00:00+01:00"}).json["id"])
    return ids


def ids_of(response):
    return [e["id"] for e in response.json["entries"]]


def test_filters_by_local_dates_moods_activities_and_text(alice):
    ids = seed(alice)
    assert ids_of(alice.get("/api/entries")) == ids[::-1]
    assert ids_of(alice.get("/api/entries?from=2026-11-03&to=2026-11-05")) == ids[4:1:-1]
    assert ids_of(alice.get("/api/entries?mood=4,5")) == [i for n, i in enumerate(ids)
                                                          if n % 5 + 1 in (4, 5)][::-1]
    assert ids_of(alice.get("/api/entries?activity=even,third")) == [
        i for n, i in enumerate(ids) if n % 6 == 0][::-1]
    assert ids_of(alice.get("/api/entries?activity=EVEN")) == ids[::2][::-1]
    assert ids_of(alice.get("/api/entries?q=walk park")) == ids[::4][::-1]
    assert ids_of(alice.get("/api/entries?q=numb")) == ids[::-1]  # terms match as prefixes
    assert ids_of(alice.get("/api/entries?activity=nope")) == []


@pytest.mark.parametrize("query", ["it's", "AND", '"walk', "(walk", "walk)", "*", "NEAR(",
                                   "-", '"', "OR OR", "note:walk", "^walk", "a\tb", "ü 🙂",
                                   "NOT", "walk AND", '""', "x" * 500])
def test_hostile_search_strings_never_cause_a_500(alice, query):
    seed(alice, 3)
    response = alice.get("/api/entries?q=" + urllib.parse.quote(query))
    assert response.status == 200, response.body


@pytest.mark.parametrize("query,field", [
    ("from=2026-13-01", "from"), ("to=yesterday", "to"), ("from=2026-02-01&to=2026-01-01", "from"),
    ("mood=0", "mood"), ("mood=a", "mood"), ("limit=0", "limit"), ("limit=501", "limit"),
    ("limit=ten", "limit"), ("q=" + "x" * 501, "q"),
])
def test_bad_query_parameters_are_422_naming_them(alice, query, field):
    response = alice.get("/api/entries?" + query)
    assert response.status == 422 and field in response.json["error"]["fields"]


def test_pagination_neither_repeats_nor_skips_while_entries_arrive(alice):
    ids = seed(alice, 12)
    seen, cursor, page = [], None, 0
    while True:
        response = alice.get("/api/entries?limit=5" + (f"&cursor={cursor}" if cursor else ""))
        seen += ids_of(response)
        cursor = response.json["next_cursor"]
        # New entries keep arriving, newer than everything listed so far.
        alice.post("/api/entries", {"mood": 3, "occurred_at": f"2026-11-2{page}T12:00:00Z"})
        page += 1
        if cursor is None:
            break
    assert seen == ids[::-1]
    assert len(alice.get("/api/entries?limit=500").json["entries"]) == 12 + page


def test_a_too_long_activity_is_named_in_the_refusal(client_for):
    """#23.8: which of the names is too long, not only that one is."""
    alice = client_for("alice")
    response = alice.post("/api/entries", {"mood": 3, "activities": ["walk", "x" * 70]})
    assert response.status == 422
    assert "('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'… is 70)" in response.json["error"]["fields"][
        "activities"]


def test_search_finds_activity_names_too(client_for):
    """#23.8: `q` matches the words of notes and titles, and text inside activity names."""
    alice = client_for("alice")
    swim = alice.post("/api/entries", {"mood": 4, "activities": ["Schwimmen"]}).json
    noted = alice.post("/api/entries", {"mood": 3, "note": "schwimmen im See"}).json
    alice.post("/api/entries", {"mood": 2, "activities": ["50%_off"], "note": "shopping"})
    found = [e["id"] for e in alice.get("/api/entries?q=SCHWIMM").json["entries"]]
    assert sorted(found) == sorted([swim["id"], noted["id"]])
    assert [e["id"] for e in alice.get("/api/entries?q=wimm").json["entries"]] == [swim["id"]]
    assert len(alice.get("/api/entries?q=%25").json["entries"]) == 1  # % is text, not a wildcard
    assert alice.get("/api/entries?q=_").json["entries"][0]["activities"] == ["50%_off"]
    bob = client_for("bob")
    assert bob.get("/api/entries?q=schwimmen").json["entries"] == []


@pytest.mark.parametrize("body,field", [
    ({"ids": [], "action": "archive"}, "ids"),
    ({"ids": "1", "action": "archive"}, "ids"),
    ({"ids": [True], "action": "archive"}, "ids"),
    ({"ids": [1.0], "action": "archive"}, "ids"),
    ({"ids": [0], "action": "archive"}, "ids"),
    ({"ids": list(range(1, 1002)), "action": "archive"}, "ids"),
    ({"ids": [1], "action": "melt"}, "action"),
    ({"ids": [1]}, "action"),
    ({"ids": [1], "action": "archive", "group": "x"}, "group"),
    ({"ids": [1], "action": "group", "group": ""}, "group"),
    ({"ids": [1], "action": "group", "group": "x" * 65}, "group"),
    ({"ids": [1], "action": "group", "colour": "red"}, "colour"),
])
def test_a_bulk_activity_change_refuses_what_it_cannot_do_by_field(alice, body, field):
    alice.post("/api/activities", {"name": "walk"})
    before = alice.get("/api/activities").json
    response = alice.post("/api/activities/bulk", body)
    assert response.status == 422 and field in response.json["error"]["fields"], response.json
    assert alice.get("/api/activities").json == before


def test_a_bulk_activity_change_answers_what_it_touched_counting_entries_once(alice):
    for activities in (["walk", "tea"], ["tea"], ["chess"]):
        alice.post("/api/entries", {"mood": 3, "activities": activities})
    ids = {a["name"]: a["id"] for a in alice.get("/api/activities").json["activities"]}
    both = [ids["walk"], ids["tea"], ids["tea"]]
    assert alice.post("/api/activities/bulk", {"ids": both, "action": "group", "group": "Out"}
                      ).json == {"action": "group", "group": "Out", "activities": 2, "entries": 2}
    assert alice.post("/api/activities/bulk", {"ids": both, "action": "archive"}).json[
        "activities"] == 2
    listed = {a["name"]: (a["group"], a["archived"])
              for a in alice.get("/api/activities").json["activities"]}
    assert listed == {"walk": ("Out", True), "tea": ("Out", True), "chess": (None, False)}
    assert alice.post("/api/activities/bulk", {"ids": both, "action": "delete"}).json[
        "entries"] == 2
    assert [a["name"] for a in alice.get("/api/activities").json["activities"]] == ["chess"]
    assert alice.get("/api/stats/summary").json["count"] == 3
