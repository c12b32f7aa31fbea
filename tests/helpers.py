"""Process helpers for concurrency and end-to-end tests: free ports, spawning, polling; and one
worker iteration in the test's own process."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
# Every process spawn() starts; the autouse fixture in conftest.py kills what a test left
# running (a failed assertion must not leave a worker spinning on the machine).
SPAWNED: list[subprocess.Popen] = []
NATS_SERVER = shutil.which("nats-server") or "/usr/sbin/nats-server"


def base_env(db_path: Path, **extra: str) -> dict[str, str]:
    """A process environment with a temp database, cheap scrypt and nothing pointing outside."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KMOOD_")}
    env.update({
        "KMOOD_DB": str(db_path),
        "KMOOD_SCRYPT_N": "16",
        "KMOOD_POLITE_INTERVAL_MS": "1",  # tests that pin the 1 s rule set it back
        "KMOOD_LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",
        # Upstreams point at a closed local port unless a test starts a fake.
        "KMOOD_OPEN_METEO_ARCHIVE_URL": "http://127.0.0.1:9",
        "KMOOD_OPEN_METEO_FORECAST_URL": "http://127.0.0.1:9",
        "KMOOD_NOMINATIM_URL": "http://127.0.0.1:9",
        "KMOOD_MUSICBRAINZ_URL": "http://127.0.0.1:9",
        "KMOOD_COVERART_URL": "http://127.0.0.1:9",
        "KMOOD_LISTENBRAINZ_URL": "http://127.0.0.1:9",
        "KMOOD_LASTFM_URL": "http://127.0.0.1:9",
    })
    env.update(extra)
    return env


def made_once(tmp_path_factory, name: str, make) -> Path:
    """A file `make(path)` writes once for the whole run, whichever test process asks first
    (the others wait on a lock and take the same file): under xdist every process has a
    base temp of its own inside one shared by the run. Users copy the file, never change it."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / f"made-once-{name}"
    folder.mkdir(exist_ok=True)
    path, done = folder / name, folder / "done"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            make(path)
            done.touch()
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(args: list[str], env: dict[str, str], log_path: Path, stdin=None,
          cwd: Path = ROOT) -> subprocess.Popen:
    log = open(log_path, "ab")
    proc = subprocess.Popen([PYTHON, *args], cwd=cwd, env=env, stdout=log,
                            stderr=subprocess.STDOUT, stdin=stdin or subprocess.DEVNULL)
    SPAWNED.append(proc)
    return proc


def run(args: list[str], env: dict[str, str], input: str | None = None,
        timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, *args], cwd=ROOT, env=env, input=input, capture_output=True,
                          text=True, timeout=timeout)


def wait_until(predicate, timeout: float = 30.0, interval: float = 0.02, what: str = "condition"):
    """Poll another process's observable state until `predicate()` is truthy, or fail."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def http(method: str, url: str, body=None, headers: dict | None = None, timeout: float = 30):
    """(status, headers, parsed JSON or text) over real HTTP; never raises on HTTP errors."""
    data = None
    headers = dict(headers or {})
    if body is not None and not isinstance(body, bytes):
        data = json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    elif isinstance(body, bytes):
        data = body
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, resp_headers, raw = resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as exc:
        status, resp_headers, raw = exc.code, exc.headers, exc.read()
    text = raw.decode("utf-8", "replace")
    if (resp_headers.get("Content-Type") or "").startswith("application/json"):
        return status, resp_headers, json.loads(text)
    return status, resp_headers, text


def login_cookie(base_url: str, username: str, password: str) -> str:
    """A session cookie for `username`, logged in over HTTP (`Cookie: ...` header value)."""
    _, headers, _ = http("POST", base_url + "/api/session",
                         {"username": username, "password": password})
    return headers["Set-Cookie"].split(";")[0]


def healthy(base_url: str) -> bool:
    try:
        return http("GET", base_url + "/healthz", timeout=2)[0] == 200
    except OSError:
        return False


def add_user(env: dict[str, str], name: str, password: str) -> None:
    """What `kmood.py create-user NAME --password-stdin` does (the command has its own tests),
    done in this process: the file migrated first if it is new, everything closed after."""
    from kmood_lib.accounts.users import create_user
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.core.config import Config

    services = bootstrap(Config.from_env(env))
    conn = services.connect()
    try:
        create_user(conn, name, password, now_ms=services.clock.now_ms(), hasher=services.hasher)
    finally:
        conn.close()
        services.close_writer()
        services.hasher.close()


def start_test_server(tmp_path: Path, **extra: str):
    """tests/entry.py's server (the test job kinds registered) on a free port, with a user
    alice logged in: (env, url, cookie and CSRF headers, server process)."""
    from tests.entry import create_test_tables

    port = free_port()
    env = base_env(tmp_path / "k.db", KMOOD_PORT=str(port), **extra)
    create_test_tables(env["KMOOD_DB"])
    add_user(env, "alice", "correct horse")
    server = spawn(["tests/entry.py", "server"], env, tmp_path / "server.log")
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: healthy(url), 60, what="server")
    _, headers, me = http("POST", url + "/api/session",
                          {"username": "alice", "password": "correct horse"})
    auth = {"Cookie": headers["Set-Cookie"].split(";")[0], "X-CSRF-Token": me["csrf_token"]}
    return env, url, auth, server


def one_worker_iteration(services) -> bool:
    """A fresh worker's one iteration at the clock's now, closed after, as `--once` runs it;
    True when a step found work."""
    from kmood_lib.worker.context import close_worker, open_worker
    from kmood_lib.worker.loop import run_once

    worker = open_worker(services)
    try:
        return run_once(worker, services.clock.now_ms())
    finally:
        close_worker(worker)


def stop(proc: subprocess.Popen, timeout: float = 30) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError(f"process {proc.args} ignored SIGTERM for {timeout}s") from None


class NatsServer:
    """A real nats-server on free loopback ports (clients, and monitoring for /connz)."""

    def __init__(self, log_path: Path):
        if not shutil.which(NATS_SERVER):
            raise AssertionError("nats-server is missing: `make test` installs it (apt-get "
                                 "install -y --no-install-recommends nats-server)")
        self.port, self.monitor = free_port(), free_port()
        self.url = f"nats://127.0.0.1:{self.port}"
        self.log = log_path
        self.proc = None

    def start(self):
        log = open(self.log, "ab")
        self.proc = subprocess.Popen([NATS_SERVER, "-a", "127.0.0.1", "-p", str(self.port),
                                      "-m", str(self.monitor)], stdout=log, stderr=log)
        SPAWNED.append(self.proc)
        wait_until(lambda: self.connections() is not None, 30, what="nats-server")
        return self

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def connections(self) -> dict[str, int] | None:
        """Client name -> number of subscriptions, from the monitoring endpoint."""
        try:
            status, _, body = http("GET", f"http://127.0.0.1:{self.monitor}/connz?subs=1",
                                   timeout=2)
        except OSError:
            return None
        if isinstance(body, str):
            body = json.loads(body)
        return {c.get("name", ""): c.get("subscriptions", 0) for c in body["connections"]}

    def both_connected(self) -> bool:
        seen = self.connections() or {}
        server = any(name.startswith("k-mood server") for name in seen)
        worker = any(name.startswith("k-mood worker") and subs == 2 for name, subs in seen.items())
        return server and worker


def multipart(fields: dict[str, str | bytes], files: dict[str, bytes]) -> tuple[bytes, str]:
    """A multipart/form-data body; a field given as bytes is sent as those bytes."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        raw = value if isinstance(value, bytes) else value.encode("utf-8")
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                     .encode() + raw + b"\r\n")
    for name, data in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}";'
                     f' filename="{name}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n'
                     .encode() + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), \
        f"multipart/form-data; boundary={boundary}"


HISTORY_WORDS = ["walk", "tea", "rain", "long", "Donaudampfschifffahrtsgesellschaftskapitän",
                 "שלום עולם, מה שלומך?", "مرحبا بالعالم", "https://example.org/a/really/long/path/x"]


def three_years_of_daylio(last: date, activities: int = 150) -> bytes:
    """A Daylio CSV of one or two entries a day for three years up to `last`: notes of mixed
    scripts and lengths (RTL, a very long word, a URL), up to five of `activities` names each,
    a sleep scale. The history the phone-fit tests and `make audit` open every page with."""
    rng = random.Random(23)
    names = [f"activity {i:03d}" for i in range(activities)]
    lines = ["full_date,date,weekday,time,mood,activities,scales,note_title,note"]
    for offset in range(3 * 365):
        day = last - timedelta(days=offset)
        for slot in range(rng.randrange(1, 3)):
            note = " ".join(rng.choice(HISTORY_WORDS) for _ in range(rng.randrange(0, 30)))
            lines.append(f'{day.isoformat()},,,{9 + slot * 8}:{rng.randrange(60):02d},'
                         f'{rng.choice(["awful", "bad", "meh", "good", "rad"])},'
                         f'{" | ".join(rng.sample(names, rng.randrange(0, 6)))},'
                         f'Sleep: {rng.randrange(4, 10)}:00,,"{note}"')
    return ("\n".join(lines) + "\n").encode()
