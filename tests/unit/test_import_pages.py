"""Importing through the API (`POST /api/import/daylio`) and the settings pages: upload,
dry-run report with a level picker per unknown mood name, confirm (issue #12)."""

from __future__ import annotations

import io
import re
import zipfile

from tests.helpers import multipart
from tests.unit.test_daylio_backup import backup
from tests.unit.test_daylio_csv import NEWEST, csv_bytes

ROWS = ["2024-01-02,,,18:00,Sad,walk,,,rainy", "2024-01-01,,,9:00,good,,,,sunny",
        "2024-01-01,,,10:00,SAD,,,,second"]


def upload(client, path: str, fields: dict, files: dict):
    body, content_type = multipart(fields, files)
    return client.request("POST", path, body=body, content_type=content_type)


def count(client) -> int:
    return len(client.get("/api/entries").json["entries"])


def test_the_api_imports_with_a_mood_map_and_reports(client_for):
    ann = client_for("ann")
    refused = upload(ann, "/api/import/daylio", {}, {"file": csv_bytes(NEWEST, *ROWS)})
    assert refused.status == 422
    assert refused.json["report"]["unknown_moods"] == [
        {"name": "Sad", "rows": 2, "first": ["line 2", "line 4"], "suggested": None}]
    assert count(ann) == 0
    dry = upload(ann, "/api/import/daylio", {"mood_map": '{"sad": 2}', "dry_run": "1"},
                 {"file": csv_bytes(NEWEST, *ROWS)})
    assert dry.status == 200 and (dry.json["imported"], dry.json["dry_run"]) == (3, True)
    assert count(ann) == 0
    done = upload(ann, "/api/import/daylio", {"mood_map": "Säd=1,sad=2"},
                  {"file": csv_bytes(NEWEST, *ROWS)})
    assert done.status == 200 and done.json["imported"] == 3
    assert sorted(e["mood"] for e in ann.get("/api/entries").json["entries"]) == [2, 2, 4]
    assert [e["source"] for e in ann.get("/api/entries").json["entries"]] == ["daylio"] * 3
    again = upload(ann, "/api/import/daylio", {"mood_map": "sad=2"}, {"file": backup()})
    assert again.status == 200 and again.json["format"] == "daylio-backup"


def test_the_api_refuses_what_it_cannot_read_with_a_clear_422_or_415(client_for):
    ann = client_for("ann")
    cases = [
        ({}, {}, 422, "no file"),
        ({"mood_map": "sad=9"}, {"file": b"x"}, 422, "levels run from 1"),
        ({"dry_run": "maybe"}, {"file": b"x"}, 422, "dry_run"),
        ({}, {"file": b"hello\n"}, 422, "not a Daylio CSV header"),
        ({}, {"file": b"PK\x03\x04broken"}, 422, "not a ZIP archive"),
    ]
    for fields, files, status, message in cases:
        response = upload(ann, "/api/import/daylio", fields, files)
        assert response.status == status and message in response.json["error"]["message"], (
            fields, response.json)
    as_json = ann.post("/api/import/daylio", {"file": "x"})
    assert as_json.status == 415
    assert count(ann) == 0


def test_an_upload_over_the_limit_is_413(env, wsgi, client_for):
    ann = client_for("ann")
    limit = wsgi.bottle.config["kmood.services"].config.max_upload_bytes
    body, content_type = multipart({}, {"file": b"x" * (limit + 10)})
    response = ann.request("POST", "/api/import/daylio", body=body, content_type=content_type)
    assert response.status == 413


def test_the_api_needs_the_csrf_token_with_a_cookie(client_for):
    ann = client_for("ann")
    ann.csrf = None
    assert upload(ann, "/api/import/daylio", {}, {"file": csv_bytes(NEWEST, *ROWS)}).status == 403


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def test_the_import_pages_upload_report_map_and_confirm(client_for):
    ann = client_for("ann")
    start = ann.get("/settings/import")
    assert start.status == 200 and 'enctype="multipart/form-data"' in start.text
    token = csrf_of(start.text)
    ann.csrf = None  # a browser form sends the token as a field
    sent = upload(ann, "/settings/import", {"csrf_token": token, "mood_map": ""},
                  {"file": csv_bytes(NEWEST, *ROWS)})
    assert sent.status == 303
    report_url = sent.headers["Location"]
    report = ann.get(report_url).text
    assert "3</strong> entries readable, from 1 Jan 2024 to 2 Jan 2024" in report
    assert "“Sad”" in report and 'name="map_level_0"' in report
    assert count_entries(ann) == 0
    unmapped = ann.request("POST", report_url, form={"csrf_token": token, "map_name_0": "Sad",
                                                     "map_level_0": ""})
    assert unmapped.status == 422
    assert 'choose a level for <bdi dir="auto">&#039;Sad&#039;</bdi>' in unmapped.text
    confirmed = ann.request("POST", report_url, form={"csrf_token": token, "map_name_0": "Sad",
                                                      "map_level_0": "2"})
    assert confirmed.status == 303 and confirmed.headers["Location"] == report_url
    result = ann.get(report_url).text
    assert "<strong>3</strong> entries imported; <strong>0</strong> skipped" in result
    assert count_entries(ann) == 3
    again = ann.request("POST", report_url, form={"csrf_token": token, "map_name_0": "Sad",
                                                  "map_level_0": "2"})
    assert again.status == 303 and count_entries(ann) == 3  # a repeated confirm adds nothing


def test_a_second_upload_of_the_same_file_reports_duplicates(client_for):
    ann = client_for("ann")
    token = csrf_of(ann.get("/settings/import").text)
    ann.csrf = None
    for expected in ("3</strong> will be imported", "0</strong> will be imported"):
        sent = upload(ann, "/settings/import", {"csrf_token": token, "mood_map": "sad=2"},
                      {"file": csv_bytes(NEWEST, *ROWS)})
        report_url = sent.headers["Location"]
        assert expected in ann.get(report_url).text
        ann.request("POST", report_url, form={"csrf_token": token})
    assert count_entries(ann) == 3


def test_the_report_page_shows_problems_and_offers_no_confirm(client_for):
    ann = client_for("ann")
    token = csrf_of(ann.get("/settings/import").text)
    ann.csrf = None
    bad = csv_bytes(NEWEST, "2024-02-30,,,10:00,good,,,,x")
    report_url = upload(ann, "/settings/import", {"csrf_token": token}, {"file": bad}
                        ).headers["Location"]
    page = ann.get(report_url).text
    assert ('line 2: the date <bdi dir="auto">&#039;2024-02-30&#039;</bdi> is not a real day'
            in page)
    assert f'action="{report_url}"' not in page
    empty = upload(ann, "/settings/import", {"csrf_token": token}, {})
    assert empty.status == 422 and "choose a Daylio CSV export" in empty.text


def pending(conn) -> list[tuple]:
    return [tuple(r) for r in conn.execute(
        "SELECT user_id, length(data), report IS NOT NULL FROM pending_imports ORDER BY 1")]


def test_an_upload_is_read_once_on_arrival_and_a_user_keeps_one_pending(client_for, conn):
    ann = client_for("ann")
    token = csrf_of(ann.get("/settings/import").text)
    ann.csrf = None
    broken = upload(ann, "/settings/import", {"csrf_token": token}, {"file": b"nope" * 1000})
    assert broken.status == 422 and "not a Daylio CSV header" in broken.text
    assert pending(conn) == []  # a file that is not an export is never stored
    first = upload(ann, "/settings/import", {"csrf_token": token},
                   {"file": csv_bytes(NEWEST, *ROWS)}).headers["Location"]
    conn.execute("UPDATE pending_imports SET data = x'00'")  # the page must not read it again
    assert "Mood names to map" in ann.get(first).text  # "Sad" has no level yet
    second = upload(ann, "/settings/import", {"csrf_token": token},
                    {"file": csv_bytes(NEWEST, ROWS[1])}).headers["Location"]
    assert second != first and ann.get(first).status == 404  # replaced: one pending at a time
    assert len(pending(conn)) == 1
    cancelled = ann.request("POST", second + "/cancel", form={"csrf_token": token})
    assert cancelled.status == 303 and cancelled.headers["Location"] == (
        "/settings/import?done=cancelled")
    assert pending(conn) == [] and ann.get(second).status == 404
    third = upload(ann, "/settings/import", {"csrf_token": token},
                   {"file": csv_bytes(NEWEST, ROWS[1])}).headers["Location"]
    assert ann.request("POST", third, form={"csrf_token": token}).status == 303
    assert [(u, size, done) for u, size, done in pending(conn)] == [(1, 0, 1)]  # file dropped
    assert count(ann) == 1


def test_another_users_upload_is_404(client_for):
    ann, bob = client_for("ann"), client_for("bob")
    token = csrf_of(ann.get("/settings/import").text)
    ann.csrf = None
    report_url = upload(ann, "/settings/import", {"csrf_token": token, "mood_map": "sad=2"},
                        {"file": csv_bytes(NEWEST, *ROWS)}).headers["Location"]
    assert bob.get(report_url).status == 404
    assert bob.request("POST", report_url, form={}).status in (403, 404)


def count_entries(client) -> int:
    return count(client)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def crafted_files() -> list[tuple[str, dict, dict]]:
    """(what, form fields, files) that once made the importer raise instead of report."""
    from tests.unit.test_daylio_backup import ENTRIES, GROUPS, MOODS, TAGS

    def with_entry(**fields):
        return backup({"version": 15, "customMoods": MOODS, "tags": TAGS, "tag_groups": GROUPS,
                       "dayEntries": [{**ENTRIES[0], **fields}]})

    deep_backup = io.BytesIO()
    with zipfile.ZipFile(deep_backup, "w") as archive:
        archive.writestr("backup.daylio", '{"dayEntries": ' + nested(100_000) + "}")
    old_layout = "year,date,weekday,time,mood,activities,note"
    return [
        ("a backup nested 100 000 deep", {}, {"file": deep_backup.getvalue()}),
        ("a k-mood export nested 200 000 deep", {},
         {"file": ('{"format": "k-mood", "version": 1, "entries": ' + nested(200_000)
                   + "}").encode()}),
        ("a mood map nested 40 000 deep", {"mood_map": '{"a":' + nested(40_000) + "}"},
         {"file": csv_bytes(NEWEST, "2025-01-01,January 1,Wednesday,10:00,good,,,,x")}),
        ("a backup year of 10**100", {}, {"file": with_entry(year=10**100)}),
        ("a backup month of 10**30", {}, {"file": with_entry(month=10**30)}),
        ("a backup day of 10**30", {}, {"file": with_entry(day=10**30)}),
        ("an old CSV year of 20 digits", {},
         {"file": csv_bytes(old_layout, "99999999999999999999,June 22,Monday,10:00,good,,x")}),
        ("an old CSV day of 20 digits", {},
         {"file": csv_bytes(old_layout, "2020,June 99999999999999999999,Monday,10:00,good,,x")}),
    ]


def test_crafted_files_are_a_422_that_says_why_and_import_nothing(client_for):
    ann = client_for("ann")
    for what, fields, files in crafted_files():
        for dry_run in ("1", "0"):
            response = upload(ann, "/api/import/daylio", {**fields, "dry_run": dry_run}, files)
            assert response.status == 422, (what, response.status, response.body[:300])
            assert response.json["error"]["message"], what
    assert count(ann) == 0
