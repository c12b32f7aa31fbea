"""A photo's bytes once per person, and a storage quota (issue #36.6e): the same 14.5 MB photo
on three entries was stored three times and nothing bounded what one person could store. Now
photo_files holds a person's upload once (migration 0026), going with the last photo that shows
it; KMOOD_STORAGE_QUOTA_BYTES bounds photos and voice memos per person, refused with a 413
naming it; Settings shows what is used and left."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from kmood_lib.core import db
from kmood_lib.core.config import Config
from kmood_lib.core.migrate import load_migrations
from kmood_lib.core.migrate import run as migrate
from kmood_lib.journal import storage
from kmood_lib.portability import importer
from tests import images
from tests.fakes import NOW_MS, FakeClock
from tests.helpers import base_env
from tests.images import noise_png, upload
from tests.unit.test_daylio_backup import ann, day_entry  # noqa: F401
from tests.unit.test_daylio_backup_photos import one_entry_with


def files_of(conn) -> list[tuple]:
    return [tuple(r) for r in conn.execute(
        "SELECT user_id, sha256, size FROM photo_files ORDER BY user_id, sha256, size")]


@pytest.fixture
def env(db_path):
    return base_env(db_path, KMOOD_STORAGE_QUOTA_BYTES="600000")


@pytest.fixture
def alice(client_for):
    return client_for("alice")


def entries(client, n: int) -> list[int]:
    return [client.post("/api/entries", {"mood": 3}).json["id"] for _ in range(n)]


def test_the_same_photo_on_three_entries_is_stored_once_and_goes_with_the_last(alice, conn):
    photo = noise_png(1)
    ids = entries(alice, 3)
    shown = [upload(alice, entry, photo).json["photos"][0] for entry in ids]
    assert len({p["id"] for p in shown}) == 3  # three photos, one on each entry
    assert len(files_of(conn)) == 2  # one full-size file and one thumbnail
    assert all(alice.get(p["url"]).body == images.stored(conn, shown[0]["id"]) for p in shown)
    assert alice.request("DELETE", f"/api/photos/{shown[0]['id']}").status == 204
    assert alice.request("DELETE", f"/api/entries/{ids[1]}").status == 204  # by its cascade
    assert len(files_of(conn)) == 2 and alice.get(shown[2]["url"]).status == 200
    assert alice.request("DELETE", f"/api/entries/{ids[2]}").status == 204
    assert files_of(conn) == []


def test_two_people_with_the_same_photo_each_keep_their_own(alice, client_for, conn):
    bob = client_for("bob")
    photo = noise_png(2)
    [mine] = upload(alice, entries(alice, 1)[0], photo).json["photos"]
    [theirs] = upload(bob, entries(bob, 1)[0], photo).json["photos"]
    assert len(files_of(conn)) == 4
    assert bob.request("DELETE", f"/api/photos/{theirs['id']}").status == 204
    assert [row[0] for row in files_of(conn)] == [1, 1]  # alice's are hers alone
    assert alice.get(mine["url"]).status == 200


def test_past_the_quota_an_upload_is_refused_naming_it_and_nothing_is_stored(alice, conn):
    first, second, third = entries(alice, 3)
    assert upload(alice, first, noise_png(3)).status == 201  # about 460 KB stored (and its thumbnail)
    used = storage.used_bytes(conn, 1)
    refused = upload(alice, second, noise_png(4))
    assert refused.status == 413, refused.json
    message = refused.json["error"]["message"]
    assert "storage quota of 600 kB" in message and "KMOOD_STORAGE_QUOTA_BYTES" in message
    assert refused.json["error"]["fields"] == {"photo": "over the storage quota of 600 kB"}
    assert storage.used_bytes(conn, 1) == used
    assert conn.execute("SELECT count(*) FROM photos").fetchone()[0] == 1
    again = upload(alice, third, noise_png(3))  # the same photo costs nothing more
    assert again.status == 201 and storage.used_bytes(conn, 1) == used


def test_settings_shows_what_is_used_and_what_is_left(alice, conn):
    upload(alice, entries(alice, 1)[0], noise_png(5, side=100))
    used = storage.used_bytes(conn, 1)
    page = alice.get("/settings").text
    assert f"use <strong>{storage.megabytes(used)}</strong> of 600 kB" in page
    assert f"<strong>{storage.megabytes(600_000 - used)}</strong> left" in page
    assert "<meter" in page
    assert storage.summary(conn, 1, 0) == {"used_bytes": used, "quota_bytes": None,
                                           "left_bytes": None}


def test_an_import_leaves_out_the_photos_past_the_quota_and_says_so(conn, ann):
    data = one_entry_with(noise_png(6), noise_png(7))
    config = Config.from_env({"KMOOD_STORAGE_QUOTA_BYTES": "600000"})
    from kmood_lib.journal import photos

    report = importer.import_file(conn, ann, ZoneInfo("Europe/Berlin"), data, {}, FakeClock(),
                                  photo_limits=photos.limits_of(config, None))
    assert report["imported"] == 1
    assert any("left out (the storage quota of 600 kB is reached)" in w
               for w in report["warnings"]), report["warnings"]
    assert conn.execute("SELECT count(*) FROM photos").fetchone()[0] == 1
    assert storage.used_bytes(conn, ann) <= 600_000


def test_migration_0026_keeps_every_photo_and_stores_shared_bytes_once(tmp_path):
    """A database with photos stored the 0019 way (a copy per photo) migrates to one copy per
    person and upload, and every photo still finds its bytes."""
    path = tmp_path / "old.db"
    conn = db.connect(str(path), 10_000)
    older = [m for m in load_migrations() if m.version < 26]
    migrate(conn, older, lambda: NOW_MS)
    conn.execute("INSERT INTO users (id, username, username_key, password_hash, created_at,"
                 " updated_at) VALUES (1, 'alice', 'alice', 'x', 0, 0),"
                 " (2, 'bob', 'bob', 'x', 0, 0)")
    for entry_id, user_id in ((1, 1), (2, 1), (3, 2)):
        conn.execute("INSERT INTO entries (id, user_id, occurred_at, utc_offset_s, local_date,"
                     " local_minute, mood, source, created_at, updated_at) VALUES"
                     " (?, ?, 0, 0, '2026-01-01', 600, 3, 'web', 0, 0)", (entry_id, user_id))
        conn.execute("INSERT INTO photos (id, entry_id, position, sha256, width, height,"
                     " created_at) VALUES (?, ?, 1, 'same', 2, 2, 0)", (entry_id, entry_id))
        for size in ("full", "thumb"):
            conn.execute("INSERT INTO photo_files (photo_id, size, content_type, data)"
                         " VALUES (?, ?, 'image/png', ?)", (entry_id, size, f"{size}".encode()))
    migrate(conn, load_migrations(), lambda: NOW_MS)
    assert files_of(conn) == [(1, "same", "full"), (1, "same", "thumb"),
                              (2, "same", "full"), (2, "same", "thumb")]
    for photo_id in (1, 2, 3):
        assert images.stored(conn, photo_id) == b"full"
    conn.close()
