"""A table of hostile strings pushed through every text field of every route, in JSON bodies,
query strings and forms: never a 5xx, a JSON error under /api, nothing stored that cannot be
read back as UTF-8 (issue #9). Runs in process through the whole WSGI stack."""

from __future__ import annotations

import json

import pytest

from tests.conftest import PASSWORD
from tests.push_service import SOME_KEYS
from tests.wsgi import Client

HOSTILE = [
    "\ud800", "\udfff", "\ud800abc", "abc\udfff", "a\udbffb", "\udc00\ud800",  # lone surrogates
    "\x00", "a\x00b", "\x01\x02\x1b[31m", "\x7f", "\x85", "\x9f", "\r\n", "\t",  # C0 / C1
    "\u202eevil\u202c", "\u2066x\u2069", "\u200f", "\ufeff", "\uffff", "\U0010ffff",  # bidi etc.
    "x" * 10_000, "é" * 10_000, "🙂" * 5_000, "", " ", "null", "<script>alert(1)</script>",
    "' OR 1=1 --", '"', "\\", "%00", "../../etc/passwd", "NEAR(", "*",
]

# A valid body per request schema; each string field is replaced in turn by a hostile value.
BASE_BODIES = {
    "Login": {"username": "alice", "password": PASSWORD},
    "MeUpdate": {"timezone": "UTC", "listenbrainz_user": "lb", "lastfm_user": "fm"},
    "PasswordChange": {"old_password": PASSWORD, "new_password": PASSWORD},
    "TokenWrite": {"name": "t"},
    "EntryWrite": {"mood": 3, "mood_label": "ok", "note_title": "t", "note": "n",
                   "occurred_at": "2026-01-01T10:00:00+01:00", "activities": ["walk"],
                   "song": {"artist": "a", "title": "t", "album": "b", "source": "manual"},
                   "metrics": {"sleep": 7}},
    "ActivityWrite": {"name": "walk2", "group": "outside", "icon": "🚶"},
    "StarterAnswer": {"names": ["walk", "reading"]},
    "ActivitiesChange": {"ids": [1], "action": "group", "group": "outside"},
    "MetricWrite": {"name": "energy", "unit": "pts"},
    "TemplateWrite": {"name": "Evening", "note_title": "Today", "note": "What went well?"},
    "GoalWrite": {"name": "Walk", "period": "week", "target": 3, "start_date": "2026-11-30"},
    "CheckIn": {"date": "2026-11-30"},
    "moods": {"label": "fine"},
    "ReminderWrite": {"time": "20:30", "weekdays": [0, 1], "timezone": "Europe/Berlin",
                      "channel": "ntfy", "url": "https://ntfy.sh/kmood-test", "token": "tk",
                      "title": "Log", "message": "How are you?"},
    "PushSubscription": {"endpoint": "https://push.example/send/abc", "expirationTime": None,
                         "keys": SOME_KEYS,
                         "label": "Chrome on Android"},
}


def string_paths(value, path=()):
    """Every place in a body that holds a string (including list items and object keys)."""
    if isinstance(value, str):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield (*path, ("key", key))
            yield from string_paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from string_paths(item, (*path, i))


def replaced(body, path, new):
    body = json.loads(json.dumps(body))
    target = body
    for step in path[:-1]:
        target = target[step]
    last = path[-1]
    if isinstance(last, tuple):  # an object key
        target[new] = target.pop(last[1])
    else:
        target[last] = new
    return body


def body_schema_name(op) -> str | None:
    body = op.get("requestBody")
    if not body:
        return None
    if "application/json" not in body["content"]:
        return None  # the multipart upload: test_hostile_strings_in_the_import_upload
    schema = body["content"]["application/json"]["schema"]
    return schema["$ref"].rsplit("/", 1)[1] if "$ref" in schema else "moods"


@pytest.fixture
def world(client_for, conn):
    alice = client_for("alice")
    assert alice.post("/api/metrics", {"name": "sleep"}).status == 201
    entry = alice.post("/api/entries", {"mood": 3, "activities": ["walk"]}).json
    ids = {"entries": entry["id"], "activities": alice.get("/api/activities").json[
        "activities"][0]["id"], "metrics": alice.get("/api/metrics").json["metrics"][0]["id"],
        "tokens": alice.post("/api/tokens", {"name": "x"}).json["id"],
        "reminders": alice.post("/api/reminders", {"time": "20:00", "channel": "webhook",
                                                   "url": "https://example.org/hook"}).json["id"]}
    return alice, ids


def concrete(path: str, ids: dict) -> str:
    if "{level}" in path:
        return path.replace("{level}", "3")
    for plural, value in ids.items():
        if path.startswith(f"/api/{plural}/"):
            return path.replace("{id}", str(value))
    return path.replace("{id}", "1")


def check(response, what) -> None:
    assert response.status < 500, (what, response.status, response.body[:300])
    if response.status >= 400 and response.headers.get("Content-Type", "").startswith(
            "application/json"):
        error = response.json["error"]
        assert set(error) == {"code", "message", "fields"}, what


def everything_reads_back(conn) -> None:
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                 " AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts%'"
                                 ).fetchall():
        for row in conn.execute(f"SELECT * FROM {table}").fetchall():
            for value in row:
                if isinstance(value, str):
                    value.encode("utf-8")


# Columns holding a name a person sets: none may hold a character that shows nothing but
# makes a name display as another (SPEC §9).
NAME_COLUMNS = {"activities": "name || coalesce(icon, '')", "activity_groups": "name",
                "metrics": "name || unit",
                "mood_labels": "label", "entries": "mood_label", "goals": "name",
                "note_templates": "name", "api_tokens": "name", "reminders": "title",
                "songs": "artist || title || coalesce(album, '')"}
HIDDEN_IN_NAMES = "\u200b\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"


def no_name_hides_characters(conn) -> None:
    for table, column in NAME_COLUMNS.items():
        for (value,) in conn.execute(f"SELECT {column} FROM {table}").fetchall():
            assert not value or not set(value) & set(HIDDEN_IN_NAMES), (table, value)


def test_hostile_strings_in_every_json_field_of_every_route(world, wsgi, conn):
    alice, ids = world
    paths = alice.get("/api/openapi.json").json["paths"]
    sent = 0
    for path, ops in paths.items():
        for method, op in ops.items():
            name = body_schema_name(op)
            if name is None:
                continue
            base = BASE_BODIES[name]
            url = concrete(path, ids)
            for where in string_paths(base):
                for hostile in HOSTILE:
                    body = replaced(base, where, hostile)
                    client = Client(wsgi) if path == "/api/session" else alice
                    response = client.request(method.upper(), url, json_body=body)
                    check(response, (method, path, where, hostile[:20]))
                    sent += 1
    assert sent > 1000
    assert alice.get("/api/entries?limit=500").status == 200
    assert alice.get("/api/activities").status == 200
    everything_reads_back(conn)
    no_name_hides_characters(conn)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_hostile_strings_in_the_import_upload(world, conn):
    """Every hostile string as the mood map, the dry-run flag, and inside a CSV's mood,
    activities, title and note; and raw bytes as the file: a 4xx or a report, never a 500,
    and nothing stored that cannot be read back."""
    from tests.unit.test_daylio_csv import NEWEST
    from tests.unit.test_import_pages import upload

    alice, _ = world
    for hostile in HOSTILE:
        text = hostile.encode("utf-8", "surrogatepass")
        for fields in ({"mood_map": hostile}, {"dry_run": hostile}):
            check(upload(alice, "/api/import/daylio",
                         {k: v.encode("utf-8", "surrogatepass") for k, v in fields.items()},
                         {"file": b"x"}), fields)
        quoted = b'"' + text.replace(b'"', b'""') + b'"'
        for column in range(4):
            cells = [b"good", b"walk", b"title", b"note"]
            cells[column] = quoted
            row = b"2024-01-01,,,10:00," + cells[0] + b"," + cells[1] + b",," + b",".join(
                cells[2:])
            data = NEWEST.encode() + b"\n" + row + b"\n"
            check(upload(alice, "/api/import/daylio", {"mood_map": "x=3"}, {"file": data}),
                  (column, hostile[:20]))
    for raw in (b"\xff\xfe\x00", b"PK\x03\x04" + b"\xff" * 100, bytes(range(256)) * 10):
        check(upload(alice, "/api/import/daylio", {}, {"file": raw}), raw[:10])
    everything_reads_back(conn)
    no_name_hides_characters(conn)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_hostile_strings_and_raw_bytes_in_every_query_parameter(world):
    from urllib.parse import quote

    alice, ids = world
    paths = alice.get("/api/openapi.json").json["paths"]
    raw_bytes = ["%FF", "%C0%AF", "%ED%A0%80", "%F4%90%80%80", "%E9", "%00", "%", "%%41"]
    for path, ops in paths.items():
        for method, op in ops.items():
            if method != "get":
                continue
            for param in op.get("parameters", []):
                if param["in"] != "query":
                    continue
                for value in [quote(h.encode("utf-8", "surrogatepass"), safe="")
                              for h in HOSTILE] + raw_bytes:
                    url = f"{concrete(path, ids)}?{param['name']}={value}"
                    check(alice.get(url), url[:80])


def test_hostile_strings_and_raw_bytes_in_every_form(wsgi, make_user, conn):
    make_user("alice")
    for page in ("/login", "/setup"):
        client = Client(wsgi)
        client.get("/login")
        token = client.cookies.get("kmood_form", "")
        for field in ("username", "password", "next", "timezone", "csrf_token"):
            for value in [h.encode("utf-8", "surrogatepass") for h in HOSTILE] + [
                    b"\xff", b"\xc0\xaf", b"\xed\xa0\x80"]:
                fields = {"csrf_token": token.encode(), "username": b"alice",
                          "password": b"wrong password", "next": b"/"}
                fields[field] = value
                from urllib.parse import quote_from_bytes

                body = "&".join(f"{k}={quote_from_bytes(v)}" for k, v in fields.items()).encode()
                response = client.request("POST", page, body=body,
                                          content_type="application/x-www-form-urlencoded")
                assert response.status < 500, (page, field, value[:20], response.body[:200])
                if response.status == 303:
                    assert response.headers["Location"].startswith("/")
                    assert not response.headers["Location"].startswith("//")
    everything_reads_back(conn)
