"""Voice memos answer byte ranges by RFC 9110 (issue #36.5): what cannot be parsed is ignored,
several ranges come as multipart/byteranges, If-Range and If-None-Match are honoured; and the
bytes (a photo's too) are streamed from the database on a connection of the body's own,
released when the body is closed."""

from __future__ import annotations

import email.parser
import email.policy
import os
import sqlite3

import pytest

from kmood_lib.core.blobs import CHUNK_BYTES

HEAD = b"\x00\x00\x00\x18ftypM4A \x00\x00\x02\x00M4A mp42isom"
MEMO = HEAD + bytes(range(256)) * 40
SIZE = len(MEMO)


def add_memo(conn, entry_id: int, data: bytes = MEMO) -> int:
    return conn.execute("INSERT INTO voice_memos (entry_id, position, sha256, content_type,"
                        " created_at, data) VALUES (?, 1, ?, 'audio/mp4', 0, ?) RETURNING id",
                        (entry_id, f"sha-of-{len(data)}", data)).fetchone()[0]


@pytest.fixture
def alice(client_for):
    return client_for("alice")


@pytest.fixture
def memo_url(alice, conn) -> str:
    entry = alice.post("/api/entries", {"mood": 3, "note": "said it aloud"}).json["id"]
    return f"/memos/{add_memo(conn, entry)}"


def whole(answer, data: bytes = MEMO) -> bool:
    return (answer.status == 200 and answer.body == data
            and answer.headers["Content-Length"] == str(len(data))
            and answer.headers["Content-Type"] == "audio/mp4"
            and "Content-Range" not in answer.headers)


@pytest.mark.parametrize("wanted", [
    "items=0-1", "bytes=abc", "bytes=1-0", "bytes=", "bytes=5", "bytes=--1", "bytes=-",
    "bytes=0-1;x", "bytes 0-1", "bytes=0-1,x-2", "bytes=,",
    "bytes=\u0663-4".encode().decode("latin-1"),  # an Arabic-Indic digit, as WSGI hands it over
])
def test_a_range_header_that_cannot_be_parsed_is_ignored_and_the_whole_memo_sent(
        alice, memo_url, wanted):
    assert whole(alice.get(memo_url, headers={"Range": wanted})), wanted


@pytest.mark.parametrize("wanted,start,end", [
    ("bytes=10-19", 10, 19), ("bytes=-500", SIZE - 500, SIZE - 1), ("bytes=100-", 100, SIZE - 1),
    ("bytes=0-99999999", 0, SIZE - 1), ("bytes=-99999999", 0, SIZE - 1), ("BYTES=0-0", 0, 0),
    ("bytes=0-1,99999-", 0, 1),
    pytest.param(f"bytes={SIZE - 1}-{'9' * 5000}", SIZE - 1, SIZE - 1, id="5000-digit last-pos"),
    ("bytes= 3-4 ,", 3, 4), ("bytes=,0-1,,", 0, 1),  # empty list elements are allowed
])
def test_a_satisfiable_range_is_a_206_with_its_bytes(alice, memo_url, wanted, start, end):
    part = alice.get(memo_url, headers={"Range": wanted})
    assert part.status == 206 and part.body == MEMO[start:end + 1], wanted
    assert part.headers["Content-Range"] == f"bytes {start}-{end}/{SIZE}"
    assert part.headers["Content-Length"] == str(end + 1 - start)
    assert part.headers["Content-Type"] == "audio/mp4"


def parts_of(answer) -> list[tuple[dict, bytes]]:
    """The parts of a multipart/byteranges body, read by the standard library's MIME parser."""
    kind = answer.headers["Content-Type"]
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {kind}\r\n\r\n".encode() + answer.body)
    assert message.is_multipart() and message.get_content_type() == "multipart/byteranges"
    return [(dict(part.items()), part.get_payload(decode=True)) for part in message.iter_parts()]


def test_several_ranges_are_a_206_multipart_byteranges_in_the_order_asked(alice, memo_url):
    answer = alice.get(memo_url, headers={"Range": "bytes=2-3,0-1, -2"})
    assert answer.status == 206 and "Content-Range" not in answer.headers
    boundary = answer.headers["Content-Type"].split("boundary=")[1]
    assert answer.headers["Content-Type"] == f"multipart/byteranges; boundary={boundary}"
    assert answer.headers["Content-Length"] == str(len(answer.body))
    assert answer.body.startswith(f"--{boundary}\r\n".encode())
    assert answer.body.endswith(f"\r\n--{boundary}--\r\n".encode())
    parts = parts_of(answer)
    assert [(p["Content-Type"], p["Content-Range"], data) for p, data in parts] == [
        ("audio/mp4", f"bytes 2-3/{SIZE}", MEMO[2:4]),
        ("audio/mp4", f"bytes 0-1/{SIZE}", MEMO[0:2]),
        ("audio/mp4", f"bytes {SIZE - 2}-{SIZE - 1}/{SIZE}", MEMO[-2:]),
    ]
    many = ",".join(f"{i * 10}-{i * 10 + 4}" for i in range(16))
    assert len(parts_of(alice.get(memo_url, headers={"Range": f"bytes={many}"}))) == 16


@pytest.mark.parametrize("wanted", [
    "bytes=0-5,3-8", "bytes=0-,100-200", "bytes=-10,0-" + str(SIZE),
    "bytes=" + ",".join(f"{i * 10}-{i * 10 + 4}" for i in range(17)),
])
def test_overlapping_or_too_many_ranges_get_the_whole_memo(alice, memo_url, wanted):
    assert whole(alice.get(memo_url, headers={"Range": wanted})), wanted


@pytest.mark.parametrize("wanted", [f"bytes={SIZE}-", "bytes=999999-", "bytes=-0",
                                    f"bytes={SIZE}-{SIZE + 5},99999-"])
def test_no_satisfiable_range_is_a_416_naming_the_length(alice, memo_url, wanted):
    refused = alice.get(memo_url, headers={"Range": wanted})
    assert refused.status == 416, wanted
    assert refused.headers["Content-Range"] == f"bytes */{SIZE}"


def test_ranges_are_sent_only_while_if_range_names_the_current_etag(alice, memo_url):
    etag = alice.get(memo_url).headers["Etag"]
    asked = {"Range": "bytes=10-19"}
    assert alice.get(memo_url, headers={**asked, "If-Range": etag}).status == 206
    for other in ('"another"', f"W/{etag}", "Sat, 01 Jan 2000 00:00:00 GMT", "garbage"):
        assert whole(alice.get(memo_url, headers={**asked, "If-Range": other})), other


def test_if_none_match_naming_the_etag_is_a_304(alice, memo_url):
    etag = alice.get(memo_url).headers["Etag"]
    for sent in (etag, "*", f'"other", {etag}', f"W/{etag}"):
        again = alice.get(memo_url, headers={"If-None-Match": sent, "Range": "bytes=0-1"})
        assert again.status == 304 and again.body == b"", sent
        assert again.headers["Etag"] == etag
        assert again.headers["Cache-Control"] == "private, no-cache"
    assert whole(alice.get(memo_url, headers={"If-None-Match": '"other"'}))


def test_head_answers_the_length_without_the_body(alice, memo_url):
    for asked in ({}, {"Range": "bytes=0-1"}):  # a range is for GET only
        answer = alice.request("HEAD", memo_url, headers=asked)
        assert answer.status == 200 and answer.body == b""
        assert answer.headers["Content-Length"] == str(SIZE)
        assert answer.headers["Accept-Ranges"] == "bytes"


def test_a_memo_of_several_chunks_comes_whole_and_in_ranges_across_them(alice, conn):
    entry = alice.post("/api/entries", {"mood": 3}).json["id"]
    data = HEAD + bytes(i * 7 % 251 for i in range(2 * CHUNK_BYTES + 12345))
    url = f"/memos/{add_memo(conn, entry, data)}"
    assert whole(alice.get(url), data)
    across = f"bytes={CHUNK_BYTES - 5}-{2 * CHUNK_BYTES + 4}"
    assert alice.get(url, headers={"Range": across}).body == data[CHUNK_BYTES - 5:
                                                                  2 * CHUNK_BYTES + 5]
    parts = parts_of(alice.get(url, headers={"Range": f"bytes=0-3,{CHUNK_BYTES}-"}))
    assert [payload for _, payload in parts] == [data[:4], data[CHUNK_BYTES:]]


def test_another_user_s_memo_is_a_404_even_with_its_etag(alice, memo_url, client_for):
    etag = alice.get(memo_url).headers["Etag"]
    bob = client_for("bob")
    for asked in ({}, {"If-None-Match": etag}, {"Range": "bytes=0-1"}):
        assert bob.get(memo_url, headers=asked).status == 404
    assert alice.get("/memos/999999").status == 404


def open_body(client, path: str):
    """A GET sent to the app whose body is left unread: (status, body iterable)."""
    import io
    from wsgiref.util import setup_testing_defaults

    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "wsgi.input": io.BytesIO(),
               "HTTP_COOKIE": "; ".join(f"{k}={v}" for k, v in client.cookies.items())}
    setup_testing_defaults(environ)
    started = []
    body = client.wsgi(environ, lambda status, headers, exc_info=None: started.append(status))
    return started[0], body


def snapshot_held(db_path) -> bool:
    """Whether a reader still holds an old snapshot: a write, then a checkpoint that cannot
    reset the WAL while anyone reads from it."""
    raw = sqlite3.connect(db_path, isolation_level=None, timeout=0)
    try:
        raw.execute("INSERT INTO login_failures (scope, subject, at) VALUES ('x', 'y', 0)")
        return raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 1
    finally:
        raw.close()


def open_files(db_path) -> int:
    """How many descriptors this process holds on the database file (one per connection)."""
    where = os.path.realpath(db_path)
    return sum(os.path.realpath(f"/proc/self/fd/{fd}") == where
               for fd in os.listdir("/proc/self/fd"))


def test_the_body_reads_in_its_own_transaction_until_it_is_closed(alice, conn, db_path):
    entry = alice.post("/api/entries", {"mood": 3}).json["id"]
    data = HEAD + bytes(3 * CHUNK_BYTES)
    url = f"/memos/{add_memo(conn, entry, data)}"
    assert not snapshot_held(db_path)
    status, body = open_body(alice, url)
    assert status.startswith("200") and not isinstance(body, list)  # streamed, not joined
    chunks = iter(body)
    assert len(next(chunks)) == CHUNK_BYTES  # a chunk, never the whole memo
    # A writer changes the row meanwhile: the body goes on with the bytes it began with.
    conn.execute("UPDATE voice_memos SET data = zeroblob(10) WHERE entry_id = ?", (entry,))
    assert b"".join(chunks)[-10:] == data[-10:]
    status, body = open_body(alice, url)
    next(iter(body))
    assert snapshot_held(db_path)  # the body's snapshot is held while it is being sent...
    body.close()  # ...and let go when the server closes it (sent, or the client gone)
    assert not snapshot_held(db_path)
    assert alice.post("/api/entries", {"mood": 4}).status == 201  # the thread writes again
    before = open_files(db_path)
    for wanted in ("bytes=0-1", "bytes=0-1,5-6", "bytes=999999999-", "items=1-2"):
        alice.get(url, headers={"Range": wanted})
    alice.request("HEAD", url)
    alice.get(url, headers={"If-None-Match": "*"})
    assert open_files(db_path) == before  # each answer's connection is closed with it


class WriterInBetween:
    """A connection that lets another writer in just before the blob is opened: the race
    that a lookup and the blob's opening outside one read transaction would lose."""

    def __init__(self, conn, write):
        self._conn, self._write = conn, write

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def blobopen(self, *args, **kwargs):
        self._write()
        return self._conn.blobopen(*args, **kwargs)


def test_the_bytes_read_are_those_of_the_memo_whose_owner_was_checked(alice, client_for,
                                                                      services, conn):
    from kmood_lib.journal import memos

    alices = alice.post("/api/entries", {"mood": 3}).json["id"]
    memo = add_memo(conn, alices, HEAD + b"alice's words")
    bobs = client_for("bob").post("/api/entries", {"mood": 2}).json["id"]

    def swap() -> None:  # her memo goes, and bob's new one is given its rowid
        conn.execute("DELETE FROM voice_memos WHERE id = ?", (memo,))
        conn.execute("INSERT INTO voice_memos (id, entry_id, position, sha256, content_type,"
                     " created_at, data) VALUES (?, ?, 1, 'b', 'audio/mp4', 0, ?)",
                     (memo, bobs, HEAD + b"bob's words!"))

    owner = conn.execute("SELECT user_id FROM entries WHERE id = ?", (alices,)).fetchone()[0]
    _, _, reader = memos.open_file(lambda: WriterInBetween(services.connect(), swap), owner,
                                   memo)
    try:
        assert b"".join(reader.chunks(0, reader.size)) == HEAD + b"alice's words"
    finally:
        reader.close()
    assert conn.execute("SELECT data FROM voice_memos WHERE id = ?", (memo,)).fetchone()[0] \
        == HEAD + b"bob's words!"


def test_photos_are_streamed_like_memos(alice, conn, db_path):
    from tests import images
    from tests.images import upload

    entry = alice.post("/api/entries", {"mood": 3}).json["id"]
    [photo] = upload(alice, entry, images.png(900, 700, alpha=False)).json["photos"]
    (stored,) = conn.execute("SELECT data FROM photo_files WHERE size = 'full'").fetchone()
    status, body = open_body(alice, photo["url"])
    assert status.startswith("200") and not isinstance(body, list)
    first = next(iter(body))
    assert snapshot_held(db_path)
    body.close()
    assert not snapshot_held(db_path)
    assert first == stored[:CHUNK_BYTES]
    part = alice.get(photo["url"], headers={"Range": "bytes=-4"})
    assert part.status == 206 and part.body == stored[-4:]
    before = open_files(db_path)
    etag = alice.get(photo["thumb_url"]).headers["Etag"]
    assert alice.get(photo["thumb_url"], headers={"If-None-Match": etag}).status == 304
    assert open_files(db_path) == before
