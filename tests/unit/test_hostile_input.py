"""Bad input found by hostile testing: each gets a clear 4xx and changes nothing (issue #9)."""

from __future__ import annotations

import base64
import json

import pytest

from tests.conftest import PASSWORD
from tests.wsgi import Client


@pytest.fixture
def alice(client_for):
    return client_for("alice", timezone="Europe/Berlin")


def counts(conn) -> dict[str, int]:
    tables = ("entries", "activities", "activity_groups", "metrics", "entry_metrics",
              "entry_activities", "api_tokens", "users", "songs")
    return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}


def all_text_reads_back(conn) -> None:
    """Every TEXT value in every table decodes as UTF-8 (sqlite3 raises otherwise)."""
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                 " AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts%'"
                                 ).fetchall():
        conn.execute(f"SELECT * FROM {table}").fetchall()


LONE = "\udfff"


@pytest.mark.parametrize("path,body,field", [
    ("/api/entries", {"mood": 3, "activities": [LONE]}, "activities[0]"),
    ("/api/entries", {"mood": 3, "note": "a" + LONE}, "note"),
    ("/api/entries", {"mood": 3, "song": {"artist": LONE, "title": "t"}}, "song.artist"),
    ("/api/entries", {"mood": 3, "metrics": {LONE: 1}}, "metrics.\\udfff"),
    ("/api/activities", {"name": "x", "group": "\ud800"}, "group"),
    ("/api/metrics", {"name": "sleep" + LONE}, "name"),
    ("/api/tokens", {"name": LONE}, "name"),
    ("/api/me", {"timezone": LONE}, "timezone"),
])
def test_a_lone_surrogate_anywhere_is_422_naming_the_field_and_stores_nothing(
        alice, conn, path, body, field):
    before = counts(conn)
    method = alice.patch if path == "/api/me" else alice.post
    response = method(path, body)
    assert response.status == 422, response.body
    assert field in response.json["error"]["fields"]
    assert counts(conn) == before
    assert alice.get("/api/entries").status == 200
    assert alice.get("/api/activities").status == 200
    all_text_reads_back(conn)


def test_a_lone_surrogate_in_a_mood_label_or_a_login_is_refused(alice, wsgi):
    assert alice.patch("/api/moods/3", {"label": "m" + LONE}).status == 422
    assert alice.get("/api/moods").json["moods"][2]["label"] == "meh"
    login = Client(wsgi).post("/api/session", {"username": LONE, "password": LONE * 9})
    assert login.status == 422


@pytest.mark.parametrize("name", ["a\u0000b", "\u0000hidden", "tab\there", "bell\u0007",
                                  "c1\u0085", "del\u007f", "line\nbreak"])
def test_control_characters_in_names_are_refused_never_truncated(alice, conn, name):
    before = counts(conn)
    assert alice.post("/api/entries", {"mood": 3, "activities": [name]}).status == 422
    assert alice.post("/api/activities", {"name": name}).status == 422
    assert alice.post("/api/activities", {"name": "ok", "group": name}).status == 422
    assert alice.post("/api/metrics", {"name": name}).status == 422
    assert alice.post("/api/tokens", {"name": name}).status == 422
    assert alice.patch("/api/moods/4", {"label": name}).status == 422
    assert counts(conn) == before


# Characters that show nothing themselves but make a name display as another, or hide in it
# (SPEC §9): the bidi embeddings, overrides and isolates, and the invisible separators.
HIDDEN = {"\u202a": "LEFT-TO-RIGHT EMBEDDING", "\u202b": "RIGHT-TO-LEFT EMBEDDING",
          "\u202c": "POP DIRECTIONAL FORMATTING", "\u202d": "LEFT-TO-RIGHT OVERRIDE",
          "\u202e": "RIGHT-TO-LEFT OVERRIDE", "\u2066": "LEFT-TO-RIGHT ISOLATE",
          "\u2067": "RIGHT-TO-LEFT ISOLATE", "\u2068": "FIRST STRONG ISOLATE",
          "\u2069": "POP DIRECTIONAL ISOLATE", "\u200b": "ZERO WIDTH SPACE",
          "\u2028": "LINE SEPARATOR", "\u2029": "PARAGRAPH SEPARATOR",
          "\ufeff": "ZERO WIDTH NO-BREAK SPACE"}


def every_name(conn) -> dict:
    """Every name a person sets, as stored: what a refused name must leave as it was."""
    queries = {"activities": "SELECT name FROM activities", "groups": "SELECT name FROM"
               " activity_groups", "metrics": "SELECT name || '/' || unit FROM metrics",
               "labels": "SELECT label FROM mood_labels", "entries": "SELECT mood_label FROM"
               " entries", "songs": "SELECT artist || title FROM songs", "goals": "SELECT name"
               " FROM goals", "templates": "SELECT name FROM note_templates",
               "tokens": "SELECT name FROM api_tokens", "reminders": "SELECT title FROM"
               " reminders"}
    return {kind: sorted(repr(tuple(row)) for row in conn.execute(sql).fetchall())
            for kind, sql in queries.items()}


@pytest.mark.parametrize("char", list(HIDDEN), ids=[f"U+{ord(c):04X}" for c in HIDDEN])
def test_invisible_and_direction_changing_characters_in_any_name_are_422_naming_them(
        alice, conn, char):
    """An RLO makes "\u202egnp.exe" display as "exe.png": every name a person sets refuses
    these with a 422 naming the field and the character, and nothing changes (#36 6d)."""
    assert alice.post("/api/activities", {"name": "walk", "group": "outside"}).status == 201
    assert alice.post("/api/metrics", {"name": "sleep"}).status == 201
    reminder = alice.post("/api/reminders", {"time": "20:00", "channel": "webhook",
                                             "url": "https://example.org/hook"}).json["id"]
    activity = alice.get("/api/activities").json["activities"][0]
    metric = alice.get("/api/metrics").json["metrics"][0]
    name = f"gnp{char}.exe"
    before = every_name(conn)
    refusals = [
        ("POST", "/api/entries", {"mood": 3, "activities": ["ok", name]}, "activities[1]"),
        ("POST", "/api/entries", {"mood": 3, "mood_label": name}, "mood_label"),
        ("POST", "/api/entries", {"mood": 3, "song": {"artist": name, "title": "t"}},
         "song.artist"),
        ("POST", "/api/activities", {"name": name}, "name"),
        ("POST", "/api/activities", {"name": "new", "group": name}, "group"),
        ("PATCH", f"/api/activities/{activity['id']}", {"name": name}, "name"),
        ("POST", "/api/activities/bulk", {"ids": [activity["id"]], "action": "group",
                                          "group": name}, "group"),
        ("POST", "/api/metrics", {"name": name}, "name"),
        ("PATCH", f"/api/metrics/{metric['id']}", {"unit": name}, "unit"),
        ("PATCH", "/api/moods/4", {"label": name}, "label"),
        ("POST", "/api/goals", {"name": name, "period": "week", "target": 3}, "name"),
        ("POST", "/api/templates", {"name": name, "note": "What went well?"}, "name"),
        ("POST", "/api/tokens", {"name": name}, "name"),
        ("PATCH", f"/api/reminders/{reminder}", {"title": name}, "title"),
    ]
    for method, path, body, field in refusals:
        response = alice.request(method, path, json_body=body)
        assert response.status == 422, (path, body, response.body)
        message = response.json["error"]["fields"].get(field) or response.json["error"][
            "message"]
        assert f"U+{ord(char):04X} {HIDDEN[char]}" in message, (path, field, response.json)
    assert every_name(conn) == before


def test_a_note_keeps_invisible_and_direction_changing_characters_shown_in_its_direction(
        alice):
    """Prose is not a name: a note or title in mixed scripts may need them, and is shown with
    dir="auto" so it cannot take over the page around it."""
    text = "\u202bשלום\u202c and \u2067مرحبا\u2069\u200b\u2028next\ufeff"
    saved = alice.post("/api/entries", {"mood": 3, "note": text, "note_title": text})
    assert saved.status == 201 and saved.json["note"] == text == saved.json["note_title"]
    history = alice.get("/entries").text
    assert f'<p class="note" dir="auto">{text}</p>' in history
    assert f'<p class="title" dir="auto">{text}</p>' in history


def test_a_note_keeps_its_line_breaks_and_tabs_but_not_other_controls(alice):
    kept = alice.post("/api/entries", {"mood": 3, "note": "one\r\ntwo\tthree"})
    assert kept.status == 201 and kept.json["note"] == "one\r\ntwo\tthree"
    assert alice.post("/api/entries", {"mood": 3, "note": "nul\u0000"}).status == 422


@pytest.mark.parametrize("raw", [
    b"[" * 1000 + b"]" * 1000,
    b'{"a":' * 5000 + b"1" + b"}" * 5000,
    b'{"mood": 3, "mood": 4}',
    b'{"mood": NaN}',
    b"\xff\xfe{}",
])
def test_malformed_json_is_400_even_before_login(wsgi, alice, conn, raw):
    before = counts(conn)
    for client, path in ((Client(wsgi), "/api/session"), (alice, "/api/entries")):
        response = client.request("POST", path, body=raw, content_type="application/json")
        assert response.status in (400, 422), (path, response.body[:200])
        assert response.json["error"]["code"]
    assert counts(conn) == before


@pytest.mark.parametrize("body,field", [
    ({"mood": 3, "location": {"lat": 10**400, "lon": 1}}, "location.lat"),
    ({"mood": 3, "location": {"lat": 1e999, "lon": 1}}, "location.lat"),
    ({"mood": 3, "note": "x", "mood_label": None, "client_id": 10**30}, "client_id"),
])
def test_huge_and_non_finite_numbers_are_422(alice, conn, body, field):
    raw = json.dumps(body, allow_nan=True).replace("Infinity", "1e999").encode()
    response = alice.request("POST", "/api/entries", body=raw, content_type="application/json")
    assert response.status == 422 and field in response.json["error"]["fields"], response.body
    assert counts(conn)["entries"] == 0


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_non_finite_numbers_are_refused_at_the_door(alice, literal):
    assert alice.post("/api/metrics", {"name": "sleep"}).status == 201
    raw = b'{"mood": 3, "metrics": {"sleep": ' + literal.encode() + b"}}"
    response = alice.request("POST", "/api/entries", body=raw, content_type="application/json")
    assert response.status == 422 and response.json["error"]["fields"] == {
        "metrics.sleep": "must be a finite number"}


def test_a_400_digit_integer_as_a_metric_value_or_bound_is_422(alice):
    assert alice.post("/api/metrics", {"name": "sleep"}).status == 201
    raw = b'{"name": "energy", "min": ' + b"9" * 400 + b"}"
    response = alice.request("POST", "/api/metrics", body=raw, content_type="application/json")
    assert response.status == 422
    big = alice.post("/api/entries", {"mood": 3, "metrics": {"sleep": 2**60}})
    assert big.status == 422 and "metrics.sleep" in big.json["error"]["fields"]


@pytest.mark.parametrize("value", [0.30000000000000004, 5e-324, 1e308, -0.0, 1 / 3, 7])
def test_a_metric_value_comes_back_exactly_as_sent(alice, value):
    assert alice.post("/api/metrics", {"name": "sleep"}).status == 201
    created = alice.post("/api/entries", {"mood": 3, "metrics": {"sleep": value}})
    assert created.status == 201
    for entry in (created.json, alice.get(f"/api/entries/{created.json['id']}").json,
                  alice.get("/api/entries").json["entries"][0]):
        assert repr(entry["metrics"]["sleep"]) == repr(float(value))


def test_an_infinite_value_stored_by_another_tool_is_left_out_not_a_500(alice, conn):
    assert alice.post("/api/metrics", {"name": "sleep"}).status == 201
    entry = alice.post("/api/entries", {"mood": 3, "metrics": {"sleep": 7}}).json
    conn.execute("UPDATE entry_metrics SET value = ?", (float("inf"),))
    assert alice.get(f"/api/entries/{entry['id']}").json["metrics"] == {}
    assert alice.get("/api/entries").status == 200


@pytest.mark.parametrize("path", [
    "/api/entries/99999999999999999999", "/api/activities/99999999999999999999",
    "/api/metrics/99999999999999999999", "/api/tokens/99999999999999999999",
    "/api/entries/-5", "/api/entries/%D9%A3",
])
def test_ids_too_big_or_not_plain_digits_are_404(alice, path):
    for method in ("GET", "PATCH", "DELETE"):
        response = alice.request(method, path, json_body={} if method == "PATCH" else None)
        assert response.status in (404, 405), (method, path, response.status)
        assert response.json["error"]["code"]


def cursor_of(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize("cursor", [
    cursor_of("-5:1"), cursor_of(" 1 : 2 "), cursor_of("1_000:2"),
    cursor_of("1:99999999999999999999"), cursor_of("99999999999999999999:1"),
    cursor_of("1:2:3"), cursor_of("١:٢"), "%%%", "a" * 100,
])
def test_malformed_cursors_are_400(alice, cursor):
    response = alice.get("/api/entries?cursor=" + cursor)
    assert response.status == 400 and "cursor" in response.json["error"]["fields"]


@pytest.mark.parametrize("query,field", [
    ("limit=%C2%B2", "limit"), ("limit=%D9%A3", "limit"), ("limit=99999999999999999999", "limit"),
    ("mood=%C2%B2", "mood"),
])
def test_unicode_digits_in_numeric_parameters_are_422(alice, query, field):
    response = alice.get("/api/entries?" + query)
    assert response.status == 422 and field in response.json["error"]["fields"]
    year = alice.get("/api/stats/calendar?year=%C2%B2%C2%B2%C2%B2%C2%B2")
    assert year.status == 422 and "year" in year.json["error"]["fields"]


@pytest.mark.parametrize("query", ["limit=%B2", "q=caf%E9", "activity=%FF", "from=%C0%AF"])
def test_query_strings_that_are_not_utf8_are_400_naming_the_parameter(alice, query):
    response = alice.get("/api/entries?" + query)
    assert response.status == 400, response.body
    assert query.split("=")[0] in response.json["error"]["fields"]


@pytest.mark.parametrize("word", ["café", "кофе", "🌧️", "Straße"])
def test_non_ascii_search_and_activity_filters_find_their_entries(alice, word):
    from urllib.parse import quote

    made = alice.post("/api/entries", {"mood": 4, "note": f"a {word} day", "activities": [word]})
    assert made.status == 201
    alice.post("/api/entries", {"mood": 2, "note": "nothing here"})
    for query in (f"q={quote(word)}", f"activity={quote(word)}",
                  f"activity={quote(word.upper())}"):
        found = alice.get("/api/entries?" + query).json["entries"]
        assert [e["id"] for e in found] == [made.json["id"]], query


@pytest.mark.parametrize("occurred_at", ["0001-01-01T00:00:00", "9999-12-31T23:59:59-01:00",
                                         "0001-01-01T00:00:00+14:00", "1899-12-31T23:00:00"])
def test_dates_at_the_edge_of_the_calendar_are_422(client_for, occurred_at):
    east = client_for("tokyo", timezone="Asia/Tokyo")
    response = east.post("/api/entries", {"mood": 3, "occurred_at": occurred_at})
    assert response.status == 422 and "occurred_at" in response.json["error"]["fields"]


def test_names_are_compared_by_one_key_everywhere(alice):
    first = alice.post("/api/entries", {"mood": 3, "activities": ["Ärger", "ärger", "ÄRGER"]})
    assert first.status == 201 and first.json["activities"] == ["Ärger"]
    second = alice.post("/api/entries", {"mood": 3, "activities": ["Straße", "STRASSE"]})
    assert second.json["activities"] == ["Straße"]
    again = alice.post("/api/entries", {"mood": 3, "activities": ["ärger"]})
    assert again.json["activities"] == ["Ärger"]
    assert alice.post("/api/activities", {"name": "ÄRGER"}).status == 422
    assert alice.post("/api/activities", {"name": "strasse"}).status == 422
    names = [a["name"] for a in alice.get("/api/activities").json["activities"]]
    assert sorted(names) == ["Straße", "Ärger"]
    assert alice.post("/api/metrics", {"name": "Schlaf"}).status == 201
    assert alice.post("/api/metrics", {"name": "SCHLAF"}).status == 422
    assert alice.post("/api/entries", {"mood": 3, "metrics": {"schlaf": 7}}).status == 201


def test_a_new_mood_level_without_a_label_drops_the_old_custom_label(alice):
    entry = alice.post("/api/entries", {"mood": 5, "mood_label": "ecstatic"}).json
    same = alice.patch(f"/api/entries/{entry['id']}", {"mood": 5, "note": "x"}).json
    assert same["mood_label"] == "ecstatic"
    changed = alice.patch(f"/api/entries/{entry['id']}", {"mood": 3}).json
    assert changed["mood"] == 3 and changed["mood_label"] == "meh"
    labelled = alice.patch(f"/api/entries/{entry['id']}", {"mood": 2, "mood_label": "grim"}).json
    assert labelled["mood_label"] == "grim"


def test_an_empty_patch_changes_nothing_not_even_updated_at(alice, clock):
    entry = alice.post("/api/entries", {"mood": 4}).json
    clock.advance(120)
    assert alice.patch(f"/api/entries/{entry['id']}", {}).json == entry
    assert alice.patch("/api/entries/999", {}).status == 404


def test_ids_are_never_reused_after_a_delete(alice):
    for path, body in (("/api/entries", {"mood": 3}), ("/api/activities", {"name": "a"}),
                       ("/api/metrics", {"name": "m"}), ("/api/tokens", {"name": "t"})):
        first = alice.post(path, body).json["id"]
        assert alice.delete(f"{path}/{first}").status == 204
        second = alice.post(path, body).json["id"]
        assert second > first, path


def test_times_have_one_format_seconds_and_an_offset(alice):
    entry = alice.post("/api/entries", {"mood": 3,
                                        "occurred_at": "2026-11-30T21:15:31.016000+01:00"}).json
    assert entry["occurred_at"] == "2026-11-30T21:15:31+01:00"
    assert entry["created_at"].endswith("Z") and len(entry["created_at"]) == 20
    assert alice.get(f"/api/entries/{entry['id']}").json == entry


def test_the_login_form_decodes_utf8_and_refuses_what_is_not(wsgi, make_user):
    make_user("alice")
    page = Client(wsgi)
    page.get("/login")
    token = page.cookies["kmood_form"]
    bad = page.request("POST", "/login", body=b"csrf_token=" + token.encode() +
                       b"&username=alice&password=%FF%FE", content_type=(
                           "application/x-www-form-urlencoded"))
    assert bad.status == 400 and bad.headers["Content-Type"].startswith("text/html")
    assert "not valid UTF-8" in bad.text
    good = page.post("/login", form={"csrf_token": token, "username": "alice",
                                     "password": PASSWORD, "next": "/entries?q=café"})
    assert good.status == 303 and good.headers["Location"] == "/"


COVER_MBID = "11111111-1111-4111-8111-111111111111"


@pytest.mark.parametrize("method,path,headers,expected", [
    ("GET", "/api/me", {"Authorization": "Bearer \xff\xfe\xe9"}, 401),
    ("GET", "/login", {"Authorization": "Bearer \xff"}, 401),
    ("PATCH", "/api/me", {"X-CSRF-Token": "\xff"}, 400),
    ("GET", f"/covers/{COVER_MBID}", {"If-None-Match": "\xff"}, 400),
    ("GET", "/static/style.css", {"If-Modified-Since": "\xff"}, 200),
    ("GET", "/static/style.css", {"Range": "bytes=\xff"}, 416),
])
def test_header_bytes_that_are_not_utf8_are_a_4xx_never_a_500(alice, conn, method, path,
                                                                headers, expected):
    song = alice.post("/api/entries", {"mood": 3, "song": {"artist": "A", "title": "T"}}).json
    conn.execute("INSERT INTO song_lookups (lookup_key, found, release_mbid, fetched_at)"
                 " SELECT lookup_key, 1, ?, 0 FROM songs WHERE entry_id = ?",
                 (COVER_MBID, song["id"]))
    conn.execute("INSERT INTO covers (release_mbid, content_type, image, fetched_at)"
                 " VALUES (?, 'image/jpeg', x'ffd8ff', 0)", (COVER_MBID,))
    assert alice.get(f"/covers/{COVER_MBID}").status == 200
    before = counts(conn)
    # The test client passes header values on as WSGI does: bytes read as Latin-1.
    response = alice.request(method, path, headers=headers,
                             json_body={"timezone": "UTC"} if method == "PATCH" else None)
    assert response.status == expected, (path, headers, response.status, response.body[:200])
    assert counts(conn) == before


@pytest.mark.parametrize("neighbour", [
    'json={"a":1}', "u=é", "a=\xff", "sp=a b", 'q="unterminated', "c=a\\b", "x=1; ;; y",
    "kmood_session=", 'kmood_session="not-ours"; other=1',
])
def test_a_session_is_found_whatever_cookies_other_apps_set_beside_it(alice, neighbour):
    session = alice.cookies["kmood_session"]
    for jar in (f"{neighbour}; kmood_session={session}", f"kmood_session={session}; {neighbour}"):
        if jar.startswith("kmood_session=;") or 'kmood_session="not-ours"' in jar:
            jar = f"kmood_session={session}; {neighbour}"  # ours first: a browser's order
        response = Client(alice.wsgi).request("GET", "/api/me", headers={"Cookie": jar})
        assert response.status == 200 and response.json["username"] == "alice", (jar, response)
