"""Unauthenticated clients cannot grow the server's memory for good (issue #9, defect 7):
parallel logins at the real scrypt cost, and a 40 MB body to a route that takes 1 MB."""

from __future__ import annotations

import io
import json
import os
import socket
import struct
import threading
import zipfile
import zlib

import pytest

from kmood_lib.web.middleware import SECURITY_HEADERS
from tests.helpers import http, multipart, run

RSS_BOUND_MB = 80  # documented in docs/security.md
UPLOAD_RSS_BOUND_MB = 150  # any upload of any shape; docs/security.md


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """Resident memory now (VmRSS) or at its highest so far (VmHWM)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_sixteen_parallel_logins_at_full_scrypt_cost_leave_rss_bounded(stack_factory):
    stack = stack_factory(KMOOD_SCRYPT_N="16384", KMOOD_LOGIN_MAX_FAILURES="100",
                          KMOOD_LOGIN_MAX_FAILURES_PER_ADDRESS="1000")
    assert run(["kmood.py", "create-user", "alice", "--password-stdin"], stack.env,
               input="correct horse battery\n").returncode == 0
    stack.start(worker=False)
    before = rss_mb(stack.server.pid)
    statuses = []

    def login(i: int) -> None:
        password = "correct horse battery" if i % 2 else f"wrong password {i}"
        status, _, _ = http("POST", stack.url + "/api/session",
                            {"username": "alice", "password": password}, timeout=60)
        statuses.append(status)

    for _ in range(3):
        threads = [threading.Thread(target=login, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    after = rss_mb(stack.server.pid)
    print(f"server RSS {before:.1f} MB before, {after:.1f} MB after 48 logins")
    assert set(statuses) <= {201, 401, 503} and 201 in statuses and 401 in statuses
    assert after <= RSS_BOUND_MB, (before, after)
    assert stack.stop()["server"] == 0


def raw_post(url_port: int, path: str, length: int) -> tuple[int, dict, bytes]:
    """POST `length` bytes over a plain socket (urllib would buffer the whole body)."""
    sock = socket.create_connection(("127.0.0.1", url_port), timeout=60)
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\nConnection: close\r\n\r\n").encode()
    sock.sendall(head)
    chunk = b"x" * 65536
    sent = 0
    try:
        while sent < length:
            sock.sendall(chunk[:length - sent])
            sent += min(len(chunk), length - sent)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server may answer and close before the body is all sent
    data = b""
    while True:
        try:
            part = sock.recv(65536)
        except ConnectionResetError:
            break
        if not part:
            break
        data += part
    sock.close()
    head_raw, _, body = data.partition(b"\r\n\r\n")
    lines = head_raw.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, body


@pytest.fixture(scope="module")
def bare_server(tmp_path_factory):
    """One server for the three 40 MB bodies: each is measured from the RSS it finds, after a
    page has been shown once (what the first page loads for good, Babel's locale data for the
    page's language, is not what a body costs)."""
    from tests.e2e.conftest import Stack

    stack = Stack(tmp_path_factory.mktemp("bodies")).start(worker=False)
    http("GET", stack.url + "/healthz")
    http("GET", stack.url + "/setup")
    yield stack
    assert stack.stop()["server"] == 0


@pytest.mark.parametrize("path", ["/api/session", "/api/entries", "/login"])
def test_a_40_mb_body_gets_the_json_413_with_security_headers_and_no_memory(bare_server, path):
    stack = bare_server
    before = rss_mb(stack.server.pid)
    status, headers, body = raw_post(stack.port, path, 40 * 1024 * 1024)
    after = rss_mb(stack.server.pid)
    assert status == 413
    if path.startswith("/api/"):
        assert headers["Content-Type"].startswith("application/json")
        assert json.loads(body)["error"]["code"] == "payload_too_large"
    for name, value in SECURITY_HEADERS:
        assert headers[name] == value, name
    assert after - before < 5, (before, after)


def gib_bomb() -> bytes:
    """What tests.unit.test_daylio_backup.bomb(1024 ** 3) makes (a ZIP whose backup.daylio
    inflates to 1 GiB of A, 1 MB on the wire) in a third of the time: deflated with zlib's
    run-length strategy, which zipfile cannot be asked for, so the one entry is framed here."""
    chunk, chunks = b"A" * 1024 * 1024, 1024
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15, 8, zlib.Z_RLE)
    data = b"".join(deflate.compress(chunk) for _ in range(chunks)) + deflate.flush()
    crc = 0
    for _ in range(chunks):
        crc = zlib.crc32(chunk, crc)
    name = b"backup.daylio"
    # version 2.0, no flags, deflated, 1980-01-01 00:00, CRC-32, sizes, name length, no extra
    entry = struct.pack("<HHHHHIIIHH", 20, 0, 8, 0, 33, crc, len(data), len(chunk) * chunks,
                        len(name), 0)
    local = b"PK\x03\x04" + entry + name
    central = b"PK\x01\x02" + struct.pack("<H", 20) + entry + bytes(14) + name  # offset 0
    end = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 1, 1, len(central),
                                       len(local) + len(data), 0)
    return local + data + central + end


def test_a_1_gib_zip_bomb_is_refused_and_leaves_the_server_small(stack_factory):
    """Issue #22.1: a 1 043 784-byte .daylio whose backup.daylio inflates to 1 GiB (it took
    the server to 2.67 GB and stayed there)."""
    stack = stack_factory()
    stack.create_user("alice")
    stack.start(worker=False)
    auth = stack.log_in("alice")
    body, content_type = multipart({"dry_run": "1"}, {"file": gib_bomb()})
    before = rss_mb(stack.server.pid)
    for _ in range(3):
        status, _, answer = http("POST", stack.url + "/api/import/daylio", body,
                                 {**auth, "Content-Type": content_type}, timeout=120)
        assert status == 422, answer
        assert "KMOOD_IMPORT_MAX_BYTES" in answer["error"]["message"]
    after, peak = rss_mb(stack.server.pid), rss_mb(stack.server.pid, "VmHWM")
    print(f"server RSS {before:.1f} MB before, {after:.1f} MB after three 1 GiB bombs,"
          f" {peak:.1f} MB at the highest")
    assert peak <= UPLOAD_RSS_BOUND_MB, (before, after, peak)
    assert stack.stop()["server"] == 0


def csv_of_size(megabytes: int) -> bytes:
    lines = ["full_date,date,weekday,time,mood,activities,scales,note_title,note"]
    size, i = 0, 0
    while size < megabytes * 1024 * 1024:
        line = (f"{1901 + i // 2400}-{1 + i // 200 % 12:02d}-{1 + i // 7 % 28:02d},,,"
                f"{i % 24}:{i % 60:02d},good,walk | tea | work,,,note {i} with a few words")
        lines.append(line)
        size += len(line) + 1
        i += 1
    return ("\n".join(lines) + "\n").encode()


def shape_bomb() -> bytes:
    """A backup whose dayEntries are ten million empty lists: 30 MB of JSON that a whole-file
    parse turns into 600 MB of list objects."""
    member = b'{"customMoods": [], "dayEntries": [' + b",".join([b"[]"] * 10_000_000) + b"]}"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("backup.daylio", member)
    return out.getvalue()


def test_large_imports_of_every_shape_stay_under_the_ceiling(stack_factory):
    """Issue #22.1: the rows of a file are read one at a time, never held; what an import
    costs is the upload plus a batch, whatever the file holds."""
    stack = stack_factory()
    stack.create_user("alice")
    stack.start(worker=False)
    auth = stack.log_in("alice")
    before = rss_mb(stack.server.pid)
    outcomes = []
    for name, data, expected in (("shape bomb", shape_bomb(), 422),
                                 ("8 MiB CSV", csv_of_size(8), 200),
                                 ("45 MiB of noise", os.urandom(45 * 1024 * 1024), 422)):
        body, content_type = multipart({"dry_run": "1"}, {"file": data})
        del data
        status, _, answer = http("POST", stack.url + "/api/import/daylio", body,
                                 {**auth, "Content-Type": content_type}, timeout=300)
        del body
        assert status == expected, (name, answer)
        outcomes.append((name, answer.get("rows") if status == 200 else answer["error"]
                         ["message"][:60], rss_mb(stack.server.pid, "VmHWM")))
    peak = rss_mb(stack.server.pid, "VmHWM")
    print(f"server RSS {before:.1f} MB before; {outcomes}")
    assert peak <= UPLOAD_RSS_BOUND_MB, outcomes
    assert stack.stop()["server"] == 0
