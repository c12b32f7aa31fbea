"""k-mood's ZIP export (issue #26): the JSON export and every photo as stored; importing it
into a fresh database and exporting again gives the same file apart from ids and times, photo
for photo byte for byte; importing it again adds nothing."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from kmood_lib.bootstrap import bootstrap
from kmood_lib.core.config import Config
from tests import images
from tests.conftest import PASSWORD
from tests.helpers import base_env, multipart
from tests.images import upload
from tests.wsgi import Client


@pytest.fixture
def elsewhere(tmp_path, clock):
    """A second k-mood with its own database, and a logged-in person there."""
    from kmood_lib.accounts.users import create_user
    from kmood_lib.web.app import make_wsgi

    services = bootstrap(Config.from_env(base_env(tmp_path / "elsewhere.db")), clock=clock)
    conn = services.connect()
    create_user(conn, "ada", PASSWORD, now_ms=clock.now_ms(), hasher=services.hasher,
                timezone="Europe/Berlin")
    conn.close()
    client = Client(make_wsgi(services))
    assert client.login("ada", PASSWORD).status == 201
    yield client
    services.hasher.close()


def zip_export(client) -> zipfile.ZipFile:
    answer = client.get("/api/export?format=zip")
    assert answer.status == 200 and answer.headers["Content-Type"] == "application/zip"
    assert answer.headers["Content-Disposition"].endswith('.zip"')
    return zipfile.ZipFile(io.BytesIO(answer.body))


def import_zip(client, archive: zipfile.ZipFile) -> dict:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as copy:
        for info in archive.infolist():
            copy.writestr(info, archive.read(info))
    body, content_type = multipart({}, {"file": out.getvalue()})
    answer = client.request("POST", "/api/import/daylio", body=body, content_type=content_type)
    assert answer.status == 200, answer.json
    return answer.json


def comparable(archive: zipfile.ZipFile) -> tuple[dict, list[list[bytes]]]:
    """The export without what differs by design (ids, times, who), and each entry's photo
    bytes in order."""
    document = json.loads(archive.read("export.json"))
    files = []
    for entry in document["entries"]:
        files.append([archive.read(p["file"]) for p in entry["photos"]])
        for key in ("id", "created_at", "updated_at", "import_key"):
            entry.pop(key)
        entry["photos"] = [{k: v for k, v in p.items() if k in ("width", "height")}
                           for p in entry["photos"]]
    for key in ("exported_at", "user"):
        document.pop(key)
    return document, files


def test_a_zip_export_round_trips_through_a_fresh_database(client_for, elsewhere):
    alice = client_for("alice", timezone="Europe/Berlin")
    first = alice.post("/api/entries", {"mood": 5, "note": "lake", "activities": ["swim"],
                                        "occurred_at": "2026-08-01T18:00:00+02:00"}).json["id"]
    second = alice.post("/api/entries", {"mood": 2, "note": "no photos",
                                         "occurred_at": "2026-08-02T09:00:00+02:00"}).json["id"]
    assert upload(alice, first, images.phone_jpeg(900, 600), images.png(50, 40),
                  images.webp(30, 20)).status == 201
    assert second
    archive = zip_export(alice)
    names = sorted(archive.namelist())
    assert names == ["export.json", f"photos/{first}/1.jpg", f"photos/{first}/2.png",
                     f"photos/{first}/3.webp"]
    stored = [alice.get(p["url"]).body for p in alice.get(f"/api/entries/{first}").json["photos"]]
    assert [archive.read(n) for n in names[1:]] == stored  # the photos as they are stored

    report = import_zip(elsewhere, archive)
    assert report["imported"] == 2 and report["photos"] == 3 and report["format"] == "kmood-json"
    back = zip_export(elsewhere)
    assert comparable(back) == comparable(archive)
    assert import_zip(elsewhere, back)["imported"] == 0
    assert comparable(zip_export(elsewhere)) == comparable(archive)  # nothing added


def test_a_plain_json_export_still_imports_and_names_no_photo_files(client_for, elsewhere):
    alice = client_for("alice")
    entry = alice.post("/api/entries", {"mood": 4}).json["id"]
    upload(alice, entry, images.png())
    plain = alice.get("/api/export?format=json").json
    assert "file" not in plain["entries"][0]["photos"][0]
    body, content_type = multipart({}, {"file": json.dumps(plain).encode()})
    answer = elsewhere.request("POST", "/api/import/daylio", body=body, content_type=content_type)
    assert answer.status == 200 and answer.json["imported"] == 1 and answer.json["photos"] == 0


def test_a_zip_naming_photos_it_does_not_hold_imports_the_entries_and_says_so(client_for,
                                                                               elsewhere):
    alice = client_for("alice")
    entry = alice.post("/api/entries", {"mood": 4}).json["id"]
    upload(alice, entry, images.png())
    archive = zip_export(alice)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as broken:
        broken.writestr("export.json", archive.read("export.json"))
    report = import_zip(elsewhere, zipfile.ZipFile(io.BytesIO(out.getvalue())))
    assert report["imported"] == 1 and report["photos"] == 0
    assert any("1 photo (or memo) named by entries missing from the ZIP" in w
               for w in report["warnings"])
