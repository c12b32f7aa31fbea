"""The journal without JavaScript: plain form posts with the CSRF field log, edit and delete
entries (POST -> 303 -> GET), through the same checks as the JSON API (issue #10)."""

from __future__ import annotations

import re
import uuid

import pytest

from tests.wsgi import Client


@pytest.fixture
def alice(client_for):
    client = client_for("alice", timezone="Europe/Berlin")
    assert client.post("/api/metrics", {"name": "sleep", "unit": "h", "min": 0, "max": 24}
                       ).status == 201
    assert client.post("/api/activities", {"name": "running", "group": "sport"}).status == 201
    return client


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def client_id_of(page: str) -> str:
    return re.search(r'name="client_id" value="([^"]+)"', page).group(1)


def post_form(client: Client, path: str, fields: dict | list, csrf: str | None):
    pairs = list(fields.items()) if isinstance(fields, dict) else list(fields)
    if csrf is not None:
        pairs.append(("csrf_token", csrf))
    from urllib.parse import urlencode

    saved, client.csrf = client.csrf, None  # a browser form sends the field, not the header
    try:
        return client.request("POST", path, body=urlencode(pairs).encode(),
                              content_type="application/x-www-form-urlencoded")
    finally:
        client.csrf = saved


def metric_field(page: str) -> str:
    return re.search(r'name="(metric_\d+)"', page).group(1)


def log_form(alice, **extra):
    page = alice.get("/").text
    fields = [("mood", "4"), ("activity", "running"), ("new_activities", "friends"),
              ("note_title", "Sunday"), ("note", "long walk\r\nthen tea"),
              (metric_field(page), "7.5"), ("date", "2026-11-29"), ("time", "18:30"),
              ("client_id", client_id_of(page))]
    fields += list(extra.items())
    return page, fields


def test_logging_an_entry_with_a_plain_form_post(alice):
    page, fields = log_form(alice)
    response = post_form(alice, "/entries", fields, csrf_of(page))
    assert response.status == 303 and response.headers["Location"] == "/?done=logged"
    entry = alice.get("/api/entries").json["entries"][0]
    assert entry["mood"] == 4 and entry["activities"] == ["friends", "running"]
    assert entry["note"] == "long walk\nthen tea" and entry["note_title"] == "Sunday"
    assert entry["metrics"] == {"sleep": 7.5} and entry["source"] == "web"
    assert entry["occurred_at"] == "2026-11-29T18:30:00+01:00"
    history = alice.get("/entries").text
    assert "long walk\nthen tea" in history and "friends" in history


def test_a_replayed_form_creates_one_entry(alice):
    page, fields = log_form(alice)
    for _ in range(3):
        assert post_form(alice, "/entries", fields, csrf_of(page)).status == 303
    assert len(alice.get("/api/entries").json["entries"]) == 1


@pytest.mark.parametrize("csrf", [None, "wrong"])
def test_a_form_post_without_the_right_csrf_token_is_403_and_changes_nothing(alice, csrf):
    page, fields = log_form(alice)
    assert post_form(alice, "/entries", fields, csrf).status == 403
    entry = alice.post("/api/entries", {"mood": 2}).json
    assert post_form(alice, f"/entries/{entry['id']}/edit", {"mood": "5", "date": "2026-01-01"},
                     csrf).status == 403
    assert post_form(alice, f"/entries/{entry['id']}/delete", {}, csrf).status == 403
    assert [e["mood"] for e in alice.get("/api/entries").json["entries"]] == [2]


def test_a_url_encoded_form_is_a_form_whoever_proves_who_is_posting(alice):
    """`curl -d 'mood=4&…' /entries`: a url-encoded body is a form like a multipart one (it
    simply carries no photos), also when the CSRF token comes as a header or the poster is an
    API token, so the form field is not what reads the body first (#36 6c: 422 "Mood:
    required", the photos' reader having drained the body)."""
    from urllib.parse import urlencode

    from tests.wsgi import Client

    def curl(client, path, fields):
        return client.request("POST", path, body=urlencode(fields).encode(),
                              content_type="application/x-www-form-urlencoded")

    logged = curl(alice, "/entries", [("mood", "4"), ("activity", "running"),
                                      ("note", "by curl"), ("date", "2026-11-29")])
    assert logged.status == 303 and logged.headers["Location"] == "/?done=logged"
    bot = Client(alice.wsgi)
    bot.bearer = alice.post("/api/tokens", {"name": "script"}).json["token"]
    assert curl(bot, "/entries", {"mood": "2", "note": "by token"}).status == 303
    entries = alice.get("/api/entries").json["entries"]
    assert sorted((e["mood"], e["note"], e["activities"]) for e in entries) == [
        (2, "by token", []), (4, "by curl", ["running"])]
    edited = curl(alice, f"/entries/{entries[0]['id']}/edit",
                  {"mood": "5", "note": "edited by curl", "date": "2026-11-29"})
    assert edited.status == 303
    assert alice.get(f"/api/entries/{entries[0]['id']}").json["note"] == "edited by curl"
    no_photo = curl(alice, f"/entries/{entries[0]['id']}/photos", {})
    assert no_photo.status == 422 and "choose one or more photos" in no_photo.text


def test_bad_input_shows_the_form_again_with_what_was_typed(alice):
    page, fields = log_form(alice)
    fields = [(k, v) for k, v in fields if k not in ("mood",)] + [(metric_field(page), "99")]
    response = post_form(alice, "/entries", fields, csrf_of(page))
    assert response.status == 422
    assert "Mood: required" in response.text and "sleep: must be between" in response.text
    assert "long walk\r\nthen tea" in response.text  # nothing typed is lost
    assert alice.get("/api/entries").json["entries"] == []


def test_editing_and_deleting_with_plain_forms(alice):
    page, fields = log_form(alice)
    post_form(alice, "/entries", fields, csrf_of(page))
    entry = alice.get("/api/entries").json["entries"][0]
    edit = alice.get(f"/entries/{entry['id']}/edit").text
    assert 'value="4" id="mood-4" required checked' in edit and "long walk" in edit
    changed = post_form(alice, f"/entries/{entry['id']}/edit", [
        ("mood", "2"), ("activity", "running"), ("note", "rain after all"),
        ("date", "2026-11-29"), ("time", "18:30")], csrf_of(edit))
    assert changed.status == 303
    after = alice.get(f"/api/entries/{entry['id']}").json
    assert after["mood"] == 2 and after["note"] == "rain after all"
    assert after["activities"] == ["running"] and after["metrics"] == {}
    confirm = alice.get(f"/entries/{entry['id']}/delete")
    assert confirm.status == 200 and "Delete this entry?" in confirm.text
    assert alice.get(f"/api/entries/{entry['id']}").status == 200  # asking deletes nothing
    gone = post_form(alice, f"/entries/{entry['id']}/delete", {}, csrf_of(confirm.text))
    assert gone.status == 303 and gone.headers["Location"] == "/entries?done=deleted"
    assert alice.get(f"/api/entries/{entry['id']}").status == 404
    assert "Entry deleted." in alice.get("/entries?done=deleted").text


def test_another_users_entry_is_404_on_every_page(alice, client_for):
    entry = alice.post("/api/entries", {"mood": 3}).json
    bob = client_for("bob")
    csrf = csrf_of(bob.get("/").text)
    for path in (f"/entries/{entry['id']}/edit", f"/entries/{entry['id']}/delete"):
        assert bob.get(path).status == 404
    assert post_form(bob, f"/entries/{entry['id']}/edit", {"mood": "1", "date": "2026-01-01"},
                     csrf).status == 404
    assert post_form(bob, f"/entries/{entry['id']}/delete", {}, csrf).status == 404
    assert alice.get(f"/api/entries/{entry['id']}").json["mood"] == 3


HOSTILE_NOTE = "<script>alert(1)</script>"
HOSTILE_ACTIVITY = '"><img src=x onerror=alert(1)>'


def test_user_text_is_escaped_on_every_page(alice):
    entry = alice.post("/api/entries", {"mood": 3, "note": HOSTILE_NOTE, "note_title": HOSTILE_NOTE,
                                        "activities": [HOSTILE_ACTIVITY]}).json
    alice.patch("/api/moods/3", {"label": HOSTILE_ACTIVITY})
    for path in ("/", "/entries", f"/entries/{entry['id']}/edit",
                 f"/entries/{entry['id']}/delete"):
        text = alice.get(path).text
        assert HOSTILE_NOTE not in text and "<img src=x" not in text, path
        assert "&lt;script&gt;" in text or "&lt;img" in text, path


def test_history_filters_by_day_mood_activity_and_words(alice):
    for when, mood, note, acts in (("2026-10-05T09:00:00", 5, "café morning", ["running"]),
                                   ("2026-10-05T21:00:00", 2, "tired evening", []),
                                   ("2026-11-01T12:00:00", 4, "walk in the park", [])):
        alice.post("/api/entries", {"mood": mood, "occurred_at": when, "note": note,
                                    "activities": acts})
    day = alice.get("/entries?from=2026-10-05&to=2026-10-05").text
    assert "café morning" in day and "tired evening" in day and "park" not in day
    assert "Mon 5 Oct 2026" in day
    assert "café" in alice.get("/entries?q=caf%C3%A9").text
    only_good = alice.get("/entries?mood=5&mood=4").text
    assert "tired" not in only_good and "park" in only_good and "café" in only_good
    running = alice.get("/entries?activity=running").text
    assert "café" in running and "park" not in running
    bad = alice.get("/entries?from=2026-13-01")
    assert bad.status == 422 and "must be a real date" in bad.text


def test_history_pages_with_an_older_link(alice):
    for i in range(35):
        alice.post("/api/entries", {"mood": 3, "note": f"entry {i}",
                                    "occurred_at": f"2026-09-{i % 28 + 1:02d}T{i % 24:02d}:00:00"})
    first = alice.get("/entries").text
    older = re.search(r'href="(/entries\?cursor=[^"]+)"', first).group(1)
    second = alice.get(older.replace("&amp;", "&")).text
    notes = re.findall(r"entry (\d+)", first) + re.findall(r"entry (\d+)", second)
    assert sorted(set(notes), key=int) == [str(i) for i in range(35)]
    assert "Older entries" not in second


def test_the_log_form_carries_a_fresh_client_id_and_the_users_labels(alice):
    alice.patch("/api/moods/5", {"label": "ecstatic"})
    first, second = alice.get("/").text, alice.get("/").text
    assert uuid.UUID(client_id_of(first)) != uuid.UUID(client_id_of(second))
    assert "ecstatic" in first and 'name="csrf_token"' in first


def test_a_metric_input_carries_its_bounds_and_only_those_it_has(alice):
    ids = [alice.post("/api/metrics", body).json["id"] for body in (
        {"name": "energy", "min": 0, "max": 10}, {"name": "steps", "min": 0.5},
        {"name": "mood swings"})]
    inputs = {m.group(1): m.group(0) for m in re.finditer(
        r'<input type="number"[^>]*name="metric_(\d+)"[^>]*>', alice.get("/").text)}
    energy, steps, swings = (inputs[str(i)] for i in ids)
    assert 'min="0"' in energy and 'max="10"' in energy
    assert 'min="0.5"' in steps and "max=" not in steps
    assert "min=" not in swings and "max=" not in swings


def test_text_a_person_wrote_takes_its_own_direction(alice):
    """Hebrew and Arabic notes render right to left, punctuation on the right side (#23.7)."""
    assert alice.post("/api/entries", {"mood": 4, "note_title": "שלום", "note": "مرحبا!",
                                       "activities": ["ריצה"]}).status == 201
    history = alice.get("/entries").text
    assert '<p class="title" dir="auto">שלום</p>' in history
    assert '<p class="note" dir="auto">مرحبا!</p>' in history
    assert '<li dir="auto">ריצה</li>' in history
    assert 'dir="auto">ריצה</label>' in alice.get("/").text
