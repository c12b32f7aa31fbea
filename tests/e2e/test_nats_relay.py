"""The NATS relay with a real nats-server: a save wakes the worker through NATS (the change
check and the poll are set to 10 s / 60 s, and the pickup lands before the worker's first
change check since it went idle, so nothing else could have woken it), the message carries
ids only, and killing NATS mid-run loses nothing: saves still succeed at once,
every job completes through polling, and once NATS is back the relay wakes the worker again."""

import json
import socket
import sqlite3
import subprocess
import sys

import pytest

from tests.helpers import (
    NatsServer,
    base_env,
    http,
    spawn,
    start_test_server,
    stop,
    wait_until,
)

QUIET = {  # nothing but a poke may wake the idle worker within seconds
    "KMOOD_WAKE_INTERVAL_MS": "10000", "KMOOD_POLL_INTERVAL_S": "60",
    "KMOOD_SWEEP_INTERVAL_S": "3600", "KMOOD_CHECKPOINT_INTERVAL_S": "3600",
    "KMOOD_SESSION_CLEANUP_INTERVAL_S": "3600",
}
WAKE_S = 10  # KMOOD_WAKE_INTERVAL_MS: the slowest a commit can be noticed without NATS
PROMPT_S = 3  # what "at once" means here: well below WAKE_S


class Subscriber:
    """A NATS subscriber speaking the plain text protocol, so the test needs no event loop."""

    def __init__(self, port: int, subject: str):
        self.sock = socket.create_connection(("127.0.0.1", port), 10)
        self.file = self.sock.makefile("rb")
        assert self.file.readline().startswith(b"INFO ")
        self.sock.sendall(b'CONNECT {"verbose":false,"name":"test"}\r\n'
                          + f"SUB {subject} 1\r\nPING\r\n".encode())
        assert self.file.readline().strip() == b"PONG"

    def next_message(self, timeout: float) -> bytes:
        self.sock.settimeout(timeout)
        while True:
            line = self.file.readline()
            if line.startswith(b"PING"):
                self.sock.sendall(b"PONG\r\n")
            elif line.startswith(b"MSG "):
                size = int(line.split()[-1])
                return self.file.read(size + 2)[:-2]
            elif not line:
                raise AssertionError("nats-server closed the subscriber's connection")

    def close(self):
        self.sock.close()


def start(tmp_path, **extra):
    env, url, auth, server = start_test_server(tmp_path, **QUIET, **extra)
    worker = spawn(["tests/entry.py", "worker"], env, tmp_path / "worker.log")
    return env, url, auth, server, worker


def read(tmp_path, sql):
    conn = sqlite3.connect(tmp_path / "k.db", timeout=30)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def pickups(tmp_path) -> set[int]:
    return {row[0] for row in read(tmp_path, "SELECT entry_id FROM test_pickups")}


def worker_idle(tmp_path) -> bool:
    """The heartbeat says the worker's loop is idling (so only a wake-up can start work)."""
    return read(tmp_path, "SELECT step FROM workers") == [("idle",)]


def idle_since_ms(tmp_path) -> int | None:
    """When the idling worker began to wait (its first change check is WAKE_S after that);
    None while it is not idling."""
    rows = read(tmp_path, "SELECT step, step_since FROM workers")
    return rows[0][1] if rows and rows[0][0] == "idle" else None


def picked_up_through_nats(tmp_path, entry_id: int, idle_since: int) -> None:
    """The pickup came within PROMPT_S and before the worker's first change check since it
    went idle at `idle_since`: only the relay's poke can have woken it."""
    wait_until(lambda: entry_id in pickups(tmp_path), PROMPT_S, what="pickup through NATS")
    [(picked_at_ns,)] = read(tmp_path, "SELECT picked_at_ns FROM test_pickups"
                                       f" WHERE entry_id = {entry_id}")
    assert picked_at_ns // 1_000_000 < idle_since + WAKE_S * 1000 - 100, (picked_at_ns,
                                                                         idle_since)


def save(url, auth, note="") -> int:
    status, _, entry = http("POST", url + "/api/entries", {"mood": 4, "note": note}, auth,
                            timeout=10)  # hang guard: a save never waits for NATS
    assert status == 201, entry
    return entry["id"]


def test_a_save_wakes_the_worker_through_nats_and_nats_going_away_loses_nothing(tmp_path):
    nats = NatsServer(tmp_path / "nats.log").start()
    env, url, auth, server, worker = start(tmp_path, KMOOD_NATS_URL=nats.url)
    try:
        wait_until(nats.both_connected, 30, what="server and worker connected to NATS")
        listener = Subscriber(nats.port, "kmood.entry.saved")
        idle_since = wait_until(lambda: idle_since_ms(tmp_path), 30, what="the worker idling")
        first = save(url, auth, note="a secret that stays home")
        picked_up_through_nats(tmp_path, first, idle_since)
        message = listener.next_message(10)
        assert json.loads(message) == {"user_id": 1, "entry_id": first,
                                       "kinds": ["insights", "test_pickup"]}
        assert b"secret" not in message
        listener.close()

        nats.kill()
        wait_until(lambda: worker_idle(tmp_path), 30, what="the worker idling again")
        stranded = [save(url, auth) for _ in range(3)]  # saves go on at once without NATS
        wait_until(lambda: set(stranded) <= pickups(tmp_path), 5 * WAKE_S,
                   what="pickups through the change check alone")
        _, _, metrics = http("GET", url + "/metrics", headers=auth)
        assert "kmood_relay_connected 0" in metrics
        dropped = [line for line in metrics.splitlines()
                   if line.startswith("kmood_relay_dropped_total")]
        assert dropped and int(dropped[0].split()[1]) >= 3, metrics

        nats.start()  # same port: both relays reconnect by themselves
        wait_until(nats.both_connected, 30, what="server and worker reconnected")
        listener = Subscriber(nats.port, "kmood.entry.saved")
        idle_since = wait_until(lambda: idle_since_ms(tmp_path), 30, what="the worker idling")
        again = save(url, auth)
        picked_up_through_nats(tmp_path, again, idle_since)
        assert json.loads(listener.next_message(10))["entry_id"] == again
        listener.close()
    finally:
        assert stop(worker) == 0
        assert stop(server) == 0
    logs = (tmp_path / "server.log").read_text() + (tmp_path / "worker.log").read_text()
    assert "Traceback" not in logs
    assert "NATS relay reconnected" in logs


def test_without_the_relay_the_same_save_waits_for_the_change_check(tmp_path):
    """The control: with the same settings and no NATS, the worker does not see the save within
    PROMPT_S, so the pickups above came through the relay."""
    env, url, auth, server, worker = start(tmp_path)
    try:
        wait_until(lambda: worker_idle(tmp_path), 30, what="the worker idling")
        entry = save(url, auth)
        with pytest.raises(AssertionError, match="timed out"):
            wait_until(lambda: entry in pickups(tmp_path), PROMPT_S, what="pickup")
    finally:
        assert stop(worker) == 0
        assert stop(server) == 0


def test_without_a_nats_url_nothing_imports_the_client(tmp_path):
    """Server and worker built and run without KMOOD_NATS_URL never import nats-py."""
    script = (
        "import sys\n"
        "from kmood_lib.bootstrap import bootstrap\n"
        "from kmood_lib.core.config import Config\n"
        "from kmood_lib.web.app import make_wsgi\n"
        "from tests.helpers import one_worker_iteration\n"
        "import os, kmood, kmood_worker\n"
        "services = bootstrap(Config.from_env(os.environ))\n"
        "make_wsgi(services)\n"
        "services.relay.start('x'); services.relay.wake(); services.relay.close()\n"
        "one_worker_iteration(services)\n"
        "print('nats' in sys.modules, type(services.relay).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=base_env(tmp_path / "k.db"),
                          capture_output=True, text=True, timeout=60,
                          cwd=str(__import__("tests.helpers").helpers.ROOT))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "NullRelay"]
