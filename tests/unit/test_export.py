"""Export and re-import: k-mood's JSON carries everything and imports back into a fresh
database as identical entries; the Daylio-style CSV reads back through the Daylio importer with
the same moods, activities and notes; both downloads from the API (issue #12)."""

from __future__ import annotations

import csv
import io
import json
from zoneinfo import ZoneInfo

import pytest

from kmood_lib.bootstrap import bootstrap
from kmood_lib.core.config import Config
from kmood_lib.portability import export, importer, kmood_json
from tests.fakes import NOW_MS, FakeClock
from tests.helpers import base_env
from tests.unit.test_daylio_backup import backup

# What must survive a round trip (ids, times of creation and what the worker looks up again
# are the new database's own).
KEPT = ("occurred_at", "time_known", "mood", "mood_label", "activities", "note_title", "note",
        "metrics", "source")


def kept(entry: dict) -> dict:
    out = {k: entry[k] for k in KEPT}
    out["location"] = entry["location"] and {k: entry["location"][k] for k in ("lat", "lon")}
    out["song"] = entry["song"] and {k: entry["song"][k] for k in ("artist", "title", "album",
                                                                    "source")}
    return out


@pytest.fixture
def journal(client_for, conn):
    """A journal with everything an entry can hold, written through the API and a backup."""
    ann = client_for("ann", timezone="Europe/Berlin")
    user_id = conn.execute("SELECT id FROM users WHERE username = 'ann'").fetchone()[0]
    assert ann.post("/api/metrics", {"name": "sleep", "unit": "h", "min": 0, "max": 24}
                    ).status == 201
    assert ann.post("/api/activities", {"name": "running", "group": "Sport"}).status == 201
    bodies = [
        {"mood": 4, "occurred_at": "2025-05-01T21:15:07+02:00", "activities": ["running", "tea"],
         "note_title": "A <title> & more", "note": "line one\nline two, \"quoted\"\n  indented",
         "metrics": {"sleep": 7.25}, "location": {"lat": 52.52, "lon": 13.405},
         "song": {"artist": "Radiohead", "title": "Reckoner", "album": "In Rainbows",
                  "source": "manual"}},
        {"mood": 2, "mood_label": "Grumpy", "occurred_at": "2025-05-02T06:00:00+02:00",
         "note": "café ☕ 🙂"},
        {"mood": 5, "occurred_at": "2025-05-02T06:00:00+02:00"},
    ]
    for body in bodies:
        assert ann.post("/api/entries", body).status == 201, body
    importer.import_file(conn, user_id, ZoneInfo("Europe/Berlin"), backup(), {}, FakeClock())
    return ann, user_id


def fresh(tmp_path, clock):
    services = bootstrap(Config.from_env(base_env(tmp_path / "fresh.db")), clock=clock)
    conn = services.connect()
    from kmood_lib.accounts import users

    user = users.create_user(conn, "ann", "long password", now_ms=0, hasher=services.hasher,
                             timezone="Europe/Berlin")
    return conn, user.id


def api_entries(conn, user_id: int) -> list[dict]:
    return [kept(e) for e in export.all_entries(conn, user_id)]


def test_json_export_imports_into_a_fresh_database_as_identical_entries(journal, conn,
                                                                       tmp_path, clock):
    ann, user_id = journal
    response = ann.get("/api/export?format=json")
    assert response.status == 200
    assert response.headers["Content-Disposition"].startswith('attachment; filename="kmood-')
    document = response.json
    assert document["format"] == "k-mood" and document["version"] == 1
    assert len(document["entries"]) == 10 and document["entries"][0]["occurred_at"] < \
        document["entries"][-1]["occurred_at"]  # oldest first
    assert {"name": "sleep", "unit": "h", "min": 0.0, "max": 24.0} in document["metrics"]
    assert {"name": "running", "group": "Sport", "icon": "🏃",  # named so by the Daylio backup
            "archived": False} in document["activities"]
    other, other_id = fresh(tmp_path, clock)
    report = importer.import_file(other, other_id, ZoneInfo("Europe/Berlin"), response.body,
                                  {}, FakeClock())
    assert (report["imported"], report["format"]) == (10, "kmood-json")
    assert api_entries(other, other_id) == api_entries(conn, user_id)
    groups = dict(other.execute("SELECT a.name, g.name FROM activities a JOIN activity_groups g"
                                " ON g.id = a.group_id").fetchall())
    assert groups["running"] == "Sport" and groups["work"] == "Work stuff"
    again = importer.import_file(other, other_id, ZoneInfo("Europe/Berlin"), response.body,
                                 {}, FakeClock())
    assert (again["imported"], again["duplicates"]) == (0, 10)
    # ...and back into the journal it came from: every entry is already there.
    home = importer.import_file(conn, user_id, ZoneInfo("Europe/Berlin"), response.body, {}, FakeClock())
    assert (home["imported"], home["duplicates"]) == (0, 10)


def test_csv_export_is_daylio_shaped_and_reads_back_with_the_same_moods_and_notes(
        journal, conn, tmp_path, clock):
    ann, user_id = journal
    response = ann.get("/api/export?format=csv")
    assert response.status == 200 and response.headers["Content-Type"].startswith("text/csv")
    text = response.body.decode("utf-8")
    assert text.startswith("\ufefffull_date,date,weekday,time,mood,activities,scales,"
                           "note_title,note\n")
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    newest = rows[0]
    assert rows[-1]["full_date"] == "2022-12-31"  # newest first, like Daylio
    first = next(r for r in rows if r["full_date"] == "2025-05-01")
    assert first["date"] == "May 1" and first["weekday"] == "Thursday"
    assert first["time"] == "21:15" and first["activities"] == "running | tea"
    assert first["scales"] == "sleep: 7.25/24 h"
    assert first["note_title"] == "A &lt;title&gt; &amp; more"
    assert first["note"] == 'line one<br>line two, "quoted"<br>  indented'
    assert next(r for r in rows if r["full_date"] == "2023-04-01")["time"] == ""  # date-only
    del newest
    # Read back into the same journal: every row matches an entry (nothing new).
    same = importer.import_file(conn, user_id, ZoneInfo("Europe/Berlin"), response.body, {}, FakeClock())
    assert (same["imported"], same["duplicates"]) == (0, 10)
    # Into a fresh journal, with the custom names mapped: the same moods, activities, notes.
    other, other_id = fresh(tmp_path, clock)
    mood_map = {"grumpy": 2, "pretty good": 4, "null": 4, "tired": 2}
    report = importer.import_file(other, other_id, ZoneInfo("Europe/Berlin"), response.body,
                                  mood_map, FakeClock())
    assert report["imported"] == 10

    def essence(conn_, uid):
        return sorted((e["occurred_at"][:16], e["time_known"], e["mood"], e["mood_label"],
                       e["activities"], e["note_title"], e["note"].strip())
                      for e in export.all_entries(conn_, uid))

    assert essence(other, other_id) == essence(conn, user_id)


def test_an_unknown_export_format_is_422_and_a_stranger_gets_nothing(journal, wsgi):
    from tests.wsgi import Client

    ann, _ = journal
    assert ann.get("/api/export?format=xml").status == 422
    assert Client(wsgi).get("/api/export").status == 401


@pytest.mark.parametrize("data, message", [
    (b'{"format": "k-mood", "version": 7, "entries": []}', "version 7"),
    (b'{"format": "other"}', "not a k-mood export"),
    (b'{"format": "k-mood", "version": 1}', "no entries list"),
    (b'{"format": "k-mood", "version": 1, "entries": [', "not hold valid JSON"),
])
def test_files_that_are_not_a_k_mood_export_are_refused(conn, make_user, data, message):
    make_user("bea")
    user_id = conn.execute("SELECT id FROM users WHERE username = 'bea'").fetchone()[0]
    with pytest.raises(kmood_json.ExportFormatError, match=message):
        importer.import_file(conn, user_id, ZoneInfo("UTC"), data, {}, FakeClock())


def test_a_bad_entry_in_an_export_refuses_the_whole_file(conn, make_user):
    make_user("bea")
    user_id = conn.execute("SELECT id FROM users WHERE username = 'bea'").fetchone()[0]
    good = {"id": 1, "occurred_at": "2025-01-01T10:00:00+01:00", "mood": 3, "activities": [],
            "note_title": "", "note": "", "metrics": {}, "location": None, "song": None}
    document = {"format": "k-mood", "version": 1, "entries": [
        good, {**good, "id": 2, "mood": 9}, {**good, "id": 3, "occurred_at": "yesterday"},
        {**good, "id": 4, "location": {"lat": 91, "lon": 0}},
        {**good, "id": 5, "song": {"artist": "a", "title": "t", "source": "radio"}}]}
    with pytest.raises(importer.ImportRefused) as refused:
        importer.import_file(conn, user_id, ZoneInfo("UTC"), json.dumps(document).encode(), {},
                             FakeClock())
    assert [p.split(":")[0] for p in refused.value.report["problems"]] == [
        "entry 2", "entry 3", "entry 4", "entry 5"]
    assert conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 0


def test_csv_cells_a_spreadsheet_would_run_are_neutralised_and_read_back_unchanged(
        client_for, conn, tmp_path, clock):
    ann = client_for("ann", timezone="Europe/Berlin")
    user_id = conn.execute("SELECT id FROM users WHERE username = 'ann'").fetchone()[0]
    risky = ['=HYPERLINK("http://evil.example","x")', "+1+2", "-2 then more", "@SUM(A1)",
             "\tindented", "fine = plain"]
    for i, text in enumerate(risky):
        assert ann.post("/api/entries", {"mood": 3, "occurred_at": f"2025-05-0{i + 1}T10:00:00",
                                         "note_title": text, "note": text,
                                         "activities": ["=cmd", "walk"]}).status == 201
    rows = list(csv.DictReader(io.StringIO(ann.get("/api/export?format=csv").text.lstrip(
        "\ufeff"))))
    for row in rows:
        for name, cell in row.items():
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (name, cell)
    by_title = {r["note_title"]: r for r in rows}
    assert by_title["'=HYPERLINK(\"http://evil.example\",\"x\")"]["activities"] == "'=cmd | walk"
    assert by_title["fine = plain"]["note"] == "fine = plain"  # only such cells: the rest as is
    assert by_title["'-2 then more"]["full_date"] == "2025-05-03"
    other, other_id = fresh(tmp_path, clock)
    report = importer.import_file(other, other_id, ZoneInfo("Europe/Berlin"),
                                  ann.get("/api/export?format=csv").body, {}, FakeClock())
    assert report["imported"] == len(risky)
    def essence(conn_, uid):  # Daylio's notes are HTML: whitespace at the ends is not kept
        return sorted((e["note_title"].strip(), e["note"].strip(), e["activities"])
                      for e in export.all_entries(conn_, uid))

    assert essence(other, other_id) == essence(conn, user_id)
    assert {title for title, _, _ in essence(other, other_id)} == {t.strip() for t in risky}


def comparable(document: dict) -> dict:
    """An export without what an import cannot carry over, as docs/import-export.md documents:
    ids, import keys and the times of the import; the place names and song details, which the
    worker looks up again; and a reminder's token (never exported) with what depends on it."""
    out = {k: v for k, v in document.items() if k != "exported_at"}
    out["entries"] = [
        {**{k: v for k, v in e.items() if k not in ("id", "import_key", "created_at",
                                                       "updated_at")},
         "location": e["location"] and {"lat": e["location"]["lat"], "lon": e["location"]["lon"]},
         "song": e["song"] and {k: v for k, v in e["song"].items() if k != "metadata"}}
        for e in document["entries"]]
    out["reminders"] = [{k: v for k, v in r.items() if k not in (
        "id", "created_at", "updated_at", "has_token", "enabled", "next_fire_at",
        "next_local_date")} for r in document["reminders"]]
    return out


def test_export_import_export_round_trips_labels_vocabularies_reminders_and_weather(
        journal, conn, tmp_path, clock):
    ann, user_id = journal
    assert ann.patch("/api/moods/5", {"label": "ecstatic"}).status == 200
    assert ann.patch("/api/me", {"listenbrainz_user": "ann_lb"}).status == 200
    assert ann.post("/api/activities", {"name": "unused", "group": "Quiet"}).status == 201
    old = ann.post("/api/activities", {"name": "old hobby 2"}).json
    assert ann.patch(f"/api/activities/{old['id']}", {"archived": True}).status == 200
    assert ann.post("/api/metrics", {"name": "energy", "min": 1, "max": 10}).status == 201
    with_token = {"time": "21:00", "channel": "ntfy", "url": "https://ntfy.sh/ann-topic",
                  "token": "secret", "weekdays": [0, 2]}
    assert ann.post("/api/reminders", with_token).status == 201
    assert ann.post("/api/reminders", {"time": "08:15", "channel": "webhook",
                                       "url": "https://example.org/hook",
                                       "skip_if_logged": False}).status == 201
    located = next(e for e in ann.get("/api/entries?limit=50").json["entries"]
                   if e["location"])
    conn.execute("INSERT INTO weather (entry_id, temperature_c, code, unavailable, fetched_at)"
                 " VALUES (?, 7.5, 61, 0, 1)", (located["id"],))
    first = ann.get("/api/export?format=json")
    other, other_id = fresh(tmp_path, clock)
    report = importer.import_file(other, other_id, ZoneInfo("Europe/Berlin"), first.body, {},
                                  FakeClock())
    assert report["imported"] == 10
    assert any("switched off until their token is entered again" in line
               for line in report["restored"])
    assert other.execute("SELECT count(*) FROM weather").fetchone()[0] == 1
    second = export.export_document(other, other_id, NOW_MS)
    assert comparable(second) == comparable(first.json)
    restored = {r["time"]: r for r in second["reminders"]}
    assert restored["21:00"]["enabled"] is False and restored["21:00"]["has_token"] is False
    assert restored["08:15"]["enabled"] is True
    again = importer.import_file(other, other_id, ZoneInfo("Europe/Berlin"), first.body, {},
                                 FakeClock())
    assert (again["imported"], again["restored"]) == (0, [])  # nothing doubled
    assert len(export.export_document(other, other_id, NOW_MS)["reminders"]) == 2


def test_an_export_brings_back_an_entry_deleted_since_without_its_client_id(client_for, conn):
    """Importing is deliberate: an export taken before an entry was deleted brings it back
    (import keys, not client ids, say what is already there), without its client_id, so the
    remembered id blocks no import and an outbox's replay of it is still 410 (#36 6a)."""
    import uuid

    zoe = client_for("zoe")
    user_id = conn.execute("SELECT id FROM users WHERE username = 'zoe'").fetchone()[0]
    client_id = str(uuid.uuid4())
    body = {"mood": 4, "note": "kept in the export", "client_id": client_id}
    saved = zoe.post("/api/entries", body).json
    exported = zoe.get("/api/export?format=json").body
    assert zoe.delete(f"/api/entries/{saved['id']}").status == 204
    report = importer.import_file(conn, user_id, ZoneInfo("UTC"), exported, {}, FakeClock())
    assert report["imported"] == 1
    [entry] = zoe.get("/api/entries").json["entries"]
    assert entry["note"] == "kept in the export" and entry["client_id"] is None
    assert zoe.post("/api/entries", body).status == 410
    assert len(zoe.get("/api/entries").json["entries"]) == 1
