"""Voice memos (issue #26): a Daylio backup's audio assets come with their entries, kept as
they are, played in history, served in ranges only to their owner, and carried by the ZIP
export; what is not audio is left out with a warning."""

from __future__ import annotations

import io
import zipfile

from tests.unit.test_daylio_backup import (
    ann,  # noqa: F401 - a fixture
    day_entry,
)
from tests.unit.test_daylio_backup_photos import picture, sums, with_assets
from tests.unit.test_daylio_csv import run

M4A = b"\x00\x00\x00\x18ftypM4A \x00\x00\x02\x00M4A mp42isom" + bytes(range(256)) * 40
MP3 = b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x90\x64" + bytes(900)


def memo_backup() -> bytes:
    from datetime import datetime

    first = day_entry(700, datetime(2024, 3, 1, 20, 0), 1, 2)
    second = day_entry(701, datetime(2024, 3, 2, 20, 0), 1, 4)
    first["assets"] = [1, 2, 3]  # a photo, then two memos, in the entry's order
    second["assets"] = [4]  # not audio: left out
    listed = [{"id": 1, "checksum": sums(1), "type": 1}, {"id": 2, "checksum": sums(2), "type": 2},
              {"id": 3, "checksum": sums(3), "type": 2}, {"id": 4, "checksum": sums(4), "type": 2}]
    files = {f"assets/photos/2024/3/{sums(1)}": picture(1),
             f"/assets/audio/2024/3/{sums(2)}": M4A, f"/assets/audio/2024/3/{sums(3)}": MP3,
             f"/assets/audio/2024/3/{sums(4)}": b"<html>not audio</html>"}
    return with_assets([first, second], listed, files)


def test_a_backup_s_voice_memos_arrive_as_they_were_and_play_in_history(conn, ann,
                                                                         client_for):
    report = run(conn, ann, memo_backup())
    assert report["imported"] == 2 and report["memos"] == 3 and report["photos"] == 1
    assert any("not audio" in w for w in report["warnings"])
    rows = conn.execute("SELECT content_type, data FROM voice_memos ORDER BY position").fetchall()
    assert [(kind, bytes(data)) for kind, data in rows] == [("audio/mp4", M4A),
                                                            ("audio/mpeg", MP3)]
    assert run(conn, ann, memo_backup())["imported"] == 0
    assert conn.execute("SELECT count(*) FROM voice_memos").fetchone()[0] == 2  # not twice


def test_a_memo_is_served_in_ranges_to_its_owner_only(client_for, conn):
    alice = client_for("alice")
    entry = alice.post("/api/entries", {"mood": 3, "note": "said it aloud"}).json["id"]
    memo = conn.execute("INSERT INTO voice_memos (entry_id, position, sha256, content_type,"
                        " created_at, data) VALUES (?, 1, 'abc', 'audio/mp4', 0, ?) RETURNING id",
                        (entry, M4A)).fetchone()[0]
    [listed] = alice.get(f"/api/entries/{entry}").json["memos"]
    assert listed == {"id": memo, "url": f"/memos/{memo}", "content_type": "audio/mp4"}
    whole = alice.get(listed["url"])
    assert whole.status == 200 and whole.body == M4A
    assert whole.headers["Content-Type"] == "audio/mp4"
    part = alice.get(listed["url"], headers={"Range": "bytes=10-19"})
    assert part.status == 206 and part.body == M4A[10:20]
    assert part.headers["Content-Range"] == f"bytes 10-19/{len(M4A)}"
    assert alice.get(listed["url"], headers={"Range": "bytes=999999-"}).status == 416
    assert f'<audio class="memo" controls preload="none" src="/memos/{memo}"' in alice.get(
        "/entries").text
    assert client_for("bob").get(listed["url"]).status == 404


def test_the_zip_export_carries_the_memos_back(conn, ann, client_for):
    from tests.unit.test_export_zip import import_zip

    run(conn, ann, memo_backup())
    from tests.conftest import PASSWORD
    from tests.wsgi import Client

    client = Client(client_for("zed").wsgi)
    assert client.login("ann", PASSWORD).status == 201
    answer = client.get("/api/export?format=zip")
    archive = zipfile.ZipFile(io.BytesIO(answer.body))
    memo_files = sorted(n for n in archive.namelist() if n.startswith("memos/"))
    assert [archive.read(n) for n in memo_files] == [M4A, MP3]
    assert [n.rsplit(".", 1)[1] for n in memo_files] == ["m4a", "mp3"]
    other = client_for("yan")
    report = import_zip(other, archive)
    assert report["memos"] == 2 and report["imported"] == 2
    [entry] = [e for e in other.get("/api/entries").json["entries"] if e["memos"]]
    assert [other.get(m["url"]).body for m in entry["memos"]] == [M4A, MP3]
