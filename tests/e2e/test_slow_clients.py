"""Slow clients cannot shut the door (issue #22.3): 101 connections that each trickle one
header line made every other request time out, because waitress stops accepting at its
connection limit (100). Now the limit is KMOOD_CONNECTION_LIMIT (1 000) and one address holds
at most KMOOD_CONNECTIONS_PER_ADDRESS (100) connections; the next is answered 503 and closed."""

from __future__ import annotations

import select
import socket
import time

from tests.helpers import http

ATTACKER = "127.0.0.2"  # all of 127.0.0.0/8 is loopback: another address on this machine


def slow_connection(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((ATTACKER, 0))
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
    return sock


def answer(sock: socket.socket) -> bytes:
    try:
        return sock.recv(4096)
    except (TimeoutError, ConnectionResetError):
        return b""


def test_five_hundred_slow_connections_from_one_address_leave_the_door_open(stack_factory):
    stack = stack_factory().start(worker=False)
    slow = [slow_connection(stack.port) for _ in range(500)]
    try:
        for sock in slow[:100]:
            sock.sendall(b"X-Slow: 1\r\n")  # still talking, a header at a time
        started = time.monotonic()
        status, _, body = http("GET", stack.url + "/healthz", timeout=30)
        elapsed = time.monotonic() - started
        print(f"/healthz answered in {elapsed * 1000:.0f} ms beside 500 slow connections")
        assert status == 200 and body["status"] in ("ok", "degraded"), body
        refused = [answer(sock) for sock in slow[100:]]
        assert all(r.startswith(b"HTTP/1.1 503 ") for r in refused), \
            sum(not r.startswith(b"HTTP/1.1 503 ") for r in refused)
        # Held open, waiting for the rest of their requests: neither an answer nor a close
        # (either would make a socket readable) within one 0.05 s look at all hundred.
        assert select.select(slow[:100], [], [], 0.05)[0] == []
    finally:
        for sock in slow:
            sock.close()
    # the address's connections are counted down as they close: it may connect again
    status, _, _ = http("GET", stack.url + "/healthz", timeout=30)
    again = slow_connection(stack.port)
    again.sendall(b"\r\n")
    assert answer(again).startswith(b"HTTP/1.1 200 "), "closed connections were not counted down"
    again.close()
    assert stack.stop()["server"] == 0
    log = stack.server_log.read_text()
    assert log.count("KMOOD_CONNECTIONS_PER_ADDRESS") == 1, log  # one line, not 400
