"""A long voice memo costs the server no more than a chunk per request (issue #36.5): it is
streamed from SQLite's incremental blob I/O, so many players seeking in it at once — or
downloading it whole — never hold it in memory, and players that stop reading hold neither a
server thread nor the database. A memory bound and a liveness check, not speed assertions."""

from __future__ import annotations

import os
import random
import socket
import sqlite3
import threading
import urllib.request
from http.client import HTTPConnection

from tests.e2e.test_memory import rss_mb
from tests.helpers import http, wait_until
from tests.unit.test_memo_ranges import snapshot_held

MEMO_BYTES = 30 * 1024 * 1024
# Copying the memo per request takes 30 MB per thread (8 threads: 240 MB and more).
SEEK_RISE_BOUND_MB = 50  # measured: 8
DOWNLOAD_RISE_BOUND_MB = 80  # measured: 43; in 64 KiB pieces waitress keeps 118 (core.blobs)


def store_memo(db_path: str, entry_id: int, data: bytes) -> int:
    """A 30 MB memo written by another process, as an import would leave it."""
    conn = sqlite3.connect(db_path, timeout=30, isolation_level=None)
    try:
        return conn.execute("INSERT INTO voice_memos (entry_id, position, sha256, content_type,"
                            " created_at, data) VALUES (?, 1, 'e2e', 'audio/mp4', 0, ?)"
                            " RETURNING id", (entry_id, data)).fetchone()[0]
    finally:
        conn.close()


def fetch(url: str, headers: dict) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as answer:
        return answer.status, answer.read()


def in_parallel(work, threads: int = 8) -> list:
    """Run `work(i)` in `threads` threads; the exceptions raised, if any."""
    failures = []

    def run(i: int) -> None:
        try:
            work(i)
        except Exception as exc:  # reported by the test, not lost in a thread
            failures.append(exc)

    running = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join(120)
    return failures


def with_a_long_memo(stack_factory):
    """A running server, alice's session headers, her 30 MB memo's bytes and its URL."""
    stack = stack_factory()
    stack.create_user("alice")
    stack.start(worker=False)
    auth = stack.log_in("alice")
    entry = http("POST", stack.url + "/api/entries", {"mood": 3}, auth)[2]["id"]
    data = b"\x00\x00\x00\x18ftypM4A " + os.urandom(MEMO_BYTES - 12)
    return stack, auth, data, f"{stack.url}/memos/{store_memo(stack.env['KMOOD_DB'], entry, data)}"


def test_players_seeking_in_a_30_mb_memo_at_once_keep_the_server_small(stack_factory):
    stack, auth, data, url = with_a_long_memo(stack_factory)
    assert http("GET", f"{stack.url}/api/me", None, auth)[0] == 200  # the server warmed up
    before = rss_mb(stack.server.pid, "VmHWM")

    def seek(i: int) -> None:
        rng = random.Random(i)
        for _ in range(25):
            at = rng.randrange(MEMO_BYTES)
            status, body = fetch(url, {**auth, "Range": f"bytes={at}-{at}"})
            assert (status, body) == (206, data[at:at + 1])

    assert in_parallel(seek) == []
    seeking = rss_mb(stack.server.pid, "VmHWM")

    def download(i: int) -> None:
        status, body = fetch(url, auth)
        assert status == 200 and body == data

    assert in_parallel(download) == []
    peak = rss_mb(stack.server.pid, "VmHWM")
    print(f"server peak RSS {before:.1f} MB before, {seeking:.1f} MB after 8 x 25 one-byte"
          f" ranges, {peak:.1f} MB after 8 whole downloads in parallel")
    assert seeking - before < SEEK_RISE_BOUND_MB, (before, seeking)
    assert peak - before < DOWNLOAD_RISE_BOUND_MB, (before, seeking, peak)
    assert stack.stop()["server"] == 0


def stalled_reader(stack, path: str, auth: dict) -> socket.socket:
    """A client that asks for the whole memo and then reads nothing (a paused player)."""
    client = socket.create_connection(("127.0.0.1", stack.port), timeout=30)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nCookie: {auth['Cookie']}\r\n\r\n"
                   .encode())
    return client


def test_clients_that_stop_reading_hold_no_thread_and_no_snapshot_and_head_sends_no_body(
        stack_factory):
    stack, auth, data, url = with_a_long_memo(stack_factory)
    path = url.removeprefix(stack.url)
    head = HTTPConnection("127.0.0.1", stack.port, timeout=30)
    head.request("HEAD", path, headers=auth)
    answer = head.getresponse()
    assert answer.status == 200 and answer.read() == b""
    assert answer.getheader("Content-Length") == str(MEMO_BYTES)
    head.request("GET", path, headers={**auth, "Range": "bytes=-3"})  # the same connection
    assert head.getresponse().read() == data[-3:]
    head.close()
    stalled = [stalled_reader(stack, path, auth) for _ in range(8)]  # as many as threads
    try:
        # Each body was handed to waitress whole (its temporary file): every read snapshot
        # ends, and the threads are free for everyone else.
        wait_until(lambda: not snapshot_held(stack.env["KMOOD_DB"]), 30, what="snapshots gone")
        assert http("GET", f"{stack.url}/api/me", None, auth, timeout=30)[0] == 200
    finally:
        for client in stalled:
            client.close()
    assert stack.stop()["server"] == 0
