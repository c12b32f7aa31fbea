"""A Daylio backup's photos come with their entries (issue #26): the assets list, members named
by checksum under assets/photos/<year>/<month>/ (with or without a leading slash), in the
entry's order, re-encoded without their EXIF; a voice memo, a missing file and a file no entry
names are reported, never an error; importing the backup again adds nothing."""

from __future__ import annotations

import io
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from PIL import Image

from kmood_lib.portability import importer
from tests import images
from tests.unit.test_daylio_backup import MOODS, TAGS, ann, backup, day_entry  # noqa: F401
from tests.unit.test_daylio_csv import run


def picture(seed: int, size=(64, 48)) -> bytes:
    """A PNG whose pixels say which it is (lossless: stored pixels compare exactly)."""
    image = Image.new("RGB", size)
    image.putdata([((x * 7 + seed * 40) % 256, (y * 5 + seed) % 256, seed * 30 % 256)
                   for y in range(size[1]) for x in range(size[0])])
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def with_assets(entries: list[dict], assets: list[dict], files: dict[str, bytes]) -> bytes:
    document = {"version": 15, "customMoods": MOODS, "tags": TAGS, "tag_groups": [],
                "dayEntries": entries, "assets": assets, "metadata": {"created_at": 1}}
    return backup(document, extra=files)


def sums(n: int) -> str:
    return f"{n:032x}"


def photo_backup() -> bytes:
    """3 entries x 2 photos (one a phone JPEG with GPS), a voice memo, a missing file and a
    file no entry names."""
    entries, assets, files = [], [], {}
    for i in range(3):
        entry = day_entry(200 + i, datetime(2024, 5, 1 + i, 9, 0), 2, 1 + i % 5)
        own = []
        for j in range(2):
            ident = 10 * i + j
            data = picture(ident) if (i, j) != (2, 1) else images.phone_jpeg(320, 240)
            assets.append({"id": ident, "checksum": sums(ident), "type": 1,
                           "createdAt": 1, "android_metadata": '{"Name": "IMG.jpg"}'})
            slash = "/" if i == 1 else ""  # Daylio writes a leading slash; tools do not
            files[f"{slash}assets/photos/2024/5/{sums(ident)}"] = data
            own.append(ident)
        entry["assets"] = own[::-1] if i == 0 else own  # the entry's order, not the list's
        entries.append(entry)
    entries[0]["assets"].append(90)  # a voice memo
    assets.append({"id": 90, "checksum": sums(90), "type": 2, "createdAt": 1})
    files[f"assets/audio/2024/5/{sums(90)}"] = b"\x00\x00\x00\x18ftypM4A "
    entries[1]["assets"].append(91)  # named, listed, but not in the archive
    assets.append({"id": 91, "checksum": sums(91), "type": 1, "createdAt": 1})
    files[f"assets/photos/2019/1/{sums(92)}"] = picture(92)  # in the archive, no entry's
    return with_assets(entries, assets, files)


def one_entry_with(*files: bytes) -> bytes:
    """A backup of one entry (1 June 2024, entry 300) whose photos are `files`, in order."""
    entry = day_entry(300, datetime(2024, 6, 1, 9, 0), 2, 1)
    entry["assets"] = list(range(1, len(files) + 1))
    return with_assets([entry], [{"id": i, "checksum": sums(i), "type": 1}
                                 for i in entry["assets"]],
                       {f"assets/photos/2024/6/{sums(i)}": data
                        for i, data in enumerate(files, start=1)})


def stored_photos(conn, user_id: int) -> dict[str, list[bytes]]:
    """note date -> the full-size bytes of the entry's photos in order."""
    out: dict[str, list[bytes]] = {}
    for day, data in conn.execute(
            "SELECT e.local_date, f.data FROM photos p JOIN entries e ON e.id = p.entry_id"
            " JOIN photo_files f ON f.user_id = e.user_id AND f.sha256 = p.sha256"
            " AND f.size = 'full'"
            " WHERE e.user_id = ? ORDER BY e.local_date, p.position", (user_id,)):
        out.setdefault(day, []).append(bytes(data))
    return out


def pixels(data: bytes) -> bytes:
    return Image.open(io.BytesIO(data)).convert("RGB").tobytes()


def test_a_backup_s_photos_arrive_on_their_entries_in_order(conn, ann):
    data = photo_backup()
    dry = run(conn, ann, data, dry_run=True)
    assert dry["photos"] == 6 and conn.execute("SELECT count(*) FROM photos").fetchone()[0] == 0
    report = run(conn, ann, data)
    assert report["imported"] == 3 and report["photos"] == 6
    found = stored_photos(conn, ann)
    assert sorted(found) == ["2024-05-01", "2024-05-02", "2024-05-03"]
    first = found["2024-05-01"]  # listed as [1, 0]: the entry's order wins
    assert pixels(first[0]) == pixels(picture(1)) and pixels(first[1]) == pixels(picture(0))
    assert [pixels(p) for p in found["2024-05-02"]] == [pixels(picture(10)), pixels(picture(11))]
    jpeg = found["2024-05-03"][1]
    assert Image.open(io.BytesIO(jpeg)).getexif() == {} and b"PhoneMaker" not in jpeg
    assert Image.open(io.BytesIO(jpeg)).size == (240, 320)  # turned upright
    said = " | ".join(report["warnings"] + report["ignored"])
    assert report["memos"] == 1  # the voice memo came along (tests/unit/test_memos.py)
    assert "1 photo or memo file named by entries missing from the archive" in said
    assert "2 files under assets/ belong to no entry" in said  # and backup()'s own
    assert conn.execute("SELECT count(*) FROM import_photos").fetchone()[0] == 0

    again = run(conn, ann, data)
    assert again["imported"] == 0 and stored_photos(conn, ann) == found


def test_a_photo_that_cannot_be_read_is_left_out_and_the_rest_imports(conn, ann):
    data = one_entry_with(images.SVG, picture(2))
    report = run(conn, ann, data)
    assert report["imported"] == 1
    assert any("entry 300: photo " in w and "left out" in w for w in report["warnings"])
    assert [pixels(p) for p in stored_photos(conn, ann)["2024-06-01"]] == [pixels(picture(2))]


def test_photos_of_an_import_that_stopped_half_way_arrive_when_the_worker_finishes_it(
        conn, ann, services, clock):
    from kmood_lib.worker import maintenance
    from tests.unit.test_import_staging import Stop, stop_after

    entries, assets, files = [], [], {}
    for i in range(600):  # three publishing batches; a photo on the first and the last
        entries.append(day_entry(1000 + i, datetime(2023, 1, 1, 8, 0) + timedelta(days=i), 1,
                                 1 + i % 5))
        if i in (0, 599):
            entries[-1]["assets"] = [i]
            assets.append({"id": i, "checksum": sums(i), "type": 1})
            files[f"assets/photos/2023/1/{sums(i)}"] = picture(i % 7)
    data = with_assets(entries, assets, files)
    with pytest.raises(Stop):
        run_file = importer.import_file
        run_file(conn, ann, ZoneInfo("Europe/Berlin"), data, {}, clock,
                 progress=stop_after(1))
    assert conn.execute("SELECT count(*) FROM photos").fetchone()[0] == 1  # the first batch's
    assert conn.execute("SELECT count(*) FROM import_photos").fetchone()[0] == 1  # waiting
    clock.advance(services.config.import_lease_s + 1)
    assert maintenance.recover_imports(services, conn, clock.now_ms())
    found = stored_photos(conn, ann)
    assert sorted(found) == ["2023-01-01", "2024-08-22"]
    assert conn.execute("SELECT count(*) FROM import_photos").fetchone()[0] == 0
