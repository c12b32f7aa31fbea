"""`make soak`: k-mood under load, faults and time, on one machine over loopback; prints one
table of what happened and whether anything was lost.

Load: the server, two workers and SOAK_CLIENTS (20) HTTP clients logging entries (activities,
notes, locations, songs; each with a client_id, retried until answered), listing, opening
pages, reading stats and insights, editing; an import every few minutes; an export and a
`kmood.py backup` every minute; fake upstreams on 127.0.0.1 that fail 10% of the time (500, 429
with Retry-After, a hang past the deadline). Faults on a schedule: `kill -9` of a worker every
~20 s (restarted), of the server every ~2 minutes (restarted), the database's disk filled up
and freed again, a one-minute outage of every upstream. Then the checks: every acknowledged
create is in the database exactly once and every acknowledged edit holds; enrichment caught
up (or its job exhausted with its error); no job stuck; no 5xx outside a deliberate fault;
integrity_check of the database and of every backup; the processes' memory flat.

    SOAK_S=600 (duration) SOAK_CLIENTS=20 SOAK_THINK_S=0.5 (mean pause between a client's
    requests) SOAK_DISK_MB=1024 (the size-limited disk the database lives on)
Exit status 0 when every check passes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: bench/queue.py shadows stdlib queue

from bench.soak_checks import (  # noqa: E402
    check_database,
    check_http,
    check_memory,
    check_tasks,
    settle,
    table,
)
from bench.soak_disk import Disk  # noqa: E402
from bench.soak_load import Chaos, Client, Upstreams  # noqa: E402
from tests.helpers import base_env, free_port, healthy, http, run, spawn, wait_until  # noqa: E402

SOAK_S = float(os.environ.get("SOAK_S", "600"))
CLIENTS = int(os.environ.get("SOAK_CLIENTS", "20"))
THINK_S = float(os.environ.get("SOAK_THINK_S", "0.5"))
USERS = 4  # households: the clients are spread over them
WORKER_KILL_S, SERVER_KILL_S = 20.0, 120.0
DISK_FULL_S, OUTAGE_S = 30.0, 60.0
IMPORT_S, EXPORT_S, BACKUP_S = 180.0, 60.0, 60.0
SETTLE_S = 300.0  # after the load: how long enrichment may take to catch up
PASSWORD = "soak-password"


class Deployment:
    """The server and two workers on one database, each restartable; `steady` is never killed,
    `flaky` is killed every WORKER_KILL_S."""

    def __init__(self, tmp: Path, db: Path, upstreams: Upstreams):
        self.tmp, self.port = tmp, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = base_env(
            db, KMOOD_PORT=str(self.port), KMOOD_LOG_LEVEL="WARNING", KMOOD_SCRYPT_N="1024",
            KMOOD_POLITE_INTERVAL_MS="20", KMOOD_SWEEP_INTERVAL_S="10", KMOOD_JOB_LEASE_S="30",
            KMOOD_JOB_BACKOFF_BASE_S="2", KMOOD_JOB_BACKOFF_CAP_S="30",
            KMOOD_BACKUP_DIR=str(tmp / "rotating"), KMOOD_BACKUP_INTERVAL_S="60",
            KMOOD_BACKUP_KEEP="3", KMOOD_WORKER_HEARTBEAT_S="2", KMOOD_WORKER_STALE_S="10",
            **upstreams.env())
        self.procs: dict[str, subprocess.Popen] = {}
        self.born: dict[str, float] = {}
        self.died: list[str] = []  # processes that exited when nobody killed them

    def start(self, name: str) -> None:
        args = ["kmood.py", "serve"] if name == "server" else ["kmood_worker.py"]
        self.procs[name] = spawn(args, self.env, self.tmp / f"{name}.log")
        self.born[name] = time.monotonic()
        if name == "server":
            wait_until(lambda: healthy(self.url), 60, 0.05, what="the server after a start")

    def kill(self, name: str) -> None:
        if self.procs[name].poll() is not None:  # died on its own before its kill
            self.died.append(f"{name} exited {self.procs[name].returncode}")
        self.procs[name].send_signal(signal.SIGKILL)
        self.procs[name].wait()

    def stop_all(self) -> dict[str, int]:
        for proc in self.procs.values():
            proc.send_signal(signal.SIGTERM)
        return {name: proc.wait(60) for name, proc in self.procs.items()}

    def rss_mb(self) -> dict[str, tuple[float, float]]:
        """name -> (resident MB, age in s) of each process now."""
        out = {}
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                continue
            status = Path(f"/proc/{proc.pid}/status").read_text()
            kb = next(int(line.split()[1]) for line in status.splitlines()
                      if line.startswith("VmRSS:"))
            out[name] = (kb / 1024, time.monotonic() - self.born[name])
        return out


class Soak:
    def __init__(self, tmp: Path, disk: Disk, upstreams: Upstreams, chaos: Chaos):
        self.tmp, self.disk, self.upstreams, self.chaos = tmp, disk, upstreams, chaos
        self.deploy = Deployment(tmp, disk.path / "kmood.db", upstreams)
        self.stop = threading.Event()
        self.windows: list[tuple[str, float, float]] = []  # (fault, start, end) in monotonic s
        self.events: dict[str, int] = {"worker kills": 0, "server kills": 0}
        self.tasks: list[dict] = []  # imports, exports and backups, with their outcome
        self.rss: dict[str, dict] = {}
        # (MB, age, seconds into the run) of the server right before each kill
        self.server_rss: list[tuple[float, float, float]] = []
        self.clients: list[Client] = []
        self.tokens: dict[str, str] = {}
        self.started = 0.0
        self.length_s = SOAK_S

    # -- set-up --
    def users(self) -> list[tuple[str, str, str]]:
        """(username, API token, session cookie) for each household and the importer."""
        out = []
        for name in [f"soak{n}" for n in range(USERS)] + ["importer"]:
            done = run(["kmood.py", "create-user", name, "--password-stdin"], self.deploy.env,
                       PASSWORD + "\n")
            assert done.returncode == 0, done.stderr
            _, headers, login = http("POST", self.deploy.url + "/api/session",
                                     {"username": name, "password": PASSWORD})
            cookie = headers["Set-Cookie"].split(";")[0]
            _, _, token = http("POST", self.deploy.url + "/api/tokens", {"name": "soak"},
                               {"Cookie": cookie, "X-CSRF-Token": login["csrf_token"]})
            self.tokens[name] = token["token"]
            out.append((name, token["token"], cookie))
        return out

    # -- the run --
    def run(self) -> None:
        deploy = self.deploy
        done = run(["kmood.py", "migrate"], deploy.env)
        assert done.returncode == 0, done.stderr
        (self.tmp / "backups").mkdir()
        deploy.start("server")
        deploy.start("steady")
        deploy.start("flaky")
        households = self.users()[:USERS]
        self.clients = [Client(deploy.port, *households[n % USERS], self.stop, seed=n,
                               think_s=THINK_S) for n in range(CLIENTS)]
        self.started = time.monotonic()
        for client in self.clients:
            client.start()
        schedule = self.schedule()
        helpers: list[threading.Thread] = []
        while schedule:
            at, name, action = schedule.pop(0)
            pause = self.started + at - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            print(f"  [{time.monotonic() - self.started:6.1f} s] {name}", flush=True)
            if name in ("import", "export", "backup"):  # slow: beside the fault timeline
                thread = threading.Thread(target=action, daemon=True)
                thread.start()
                helpers.append(thread)
            else:
                action()
        self.stop.set()
        for thread in self.clients + helpers:
            thread.join(RETRYING_GRACE_S)

    def schedule(self) -> list[tuple[float, str, object]]:
        plan: list[tuple[float, str, object]] = []
        t = WORKER_KILL_S
        while t < SOAK_S:
            plan.append((t, "kill -9 a worker", self.kill_worker))
            t += WORKER_KILL_S
        t = SERVER_KILL_S - 30
        while t < SOAK_S:
            plan.append((t, "kill -9 the server", self.kill_server))
            t += SERVER_KILL_S
        outage_at = 0.25 * SOAK_S
        plan += [(outage_at, "upstream outage begins", lambda: self.outage(True)),
                 (outage_at + min(OUTAGE_S, 0.15 * SOAK_S), "upstream outage ends",
                  lambda: self.outage(False))]
        full_at = 0.6 * SOAK_S  # clear of the server's kills (at 90 s, then every 120 s)
        plan += [(full_at, "disk full", self.fill_disk),
                 (full_at + min(DISK_FULL_S, 0.1 * SOAK_S), "disk freed", self.free_disk)]
        for every, name, action in ((IMPORT_S, "import", self.import_),
                                    (EXPORT_S, "export", self.export),
                                    (BACKUP_S, "backup", self.backup)):
            t = min(30.0, every / 2)
            while t < SOAK_S:
                plan.append((t, name, action))
                t += every
        plan += [(between_kills(0.1 * SOAK_S), "memory: start", lambda: self.sample_rss("start")),
                 (between_kills(0.5 * SOAK_S), "memory: middle",
                  lambda: self.sample_rss("middle")),
                 (between_kills(SOAK_S - WORKER_KILL_S), "memory: end",
                  lambda: self.sample_rss("end")),
                 (SOAK_S, "load ends", lambda: None)]
        return sorted(plan, key=lambda item: item[0])

    # -- faults --
    def kill_worker(self) -> None:
        self.deploy.kill("flaky")
        self.events["worker kills"] += 1
        self.deploy.start("flaky")

    def kill_server(self) -> None:
        if (seen := self.deploy.rss_mb().get("server")) is not None:
            # each instance at the same age: right before its kill
            self.server_rss.append((*seen, time.monotonic() - self.started))
        began = time.monotonic()
        self.deploy.kill("server")
        self.events["server kills"] += 1
        self.deploy.start("server")
        self.windows.append(("server killed and restarted", began, time.monotonic()))

    def outage(self, on: bool) -> None:
        self.chaos.outage = on
        if on:
            self.outage_began = time.monotonic()
        else:
            self.windows.append(("upstream outage", self.outage_began, time.monotonic()))

    def fill_disk(self) -> None:
        self.full_began = time.monotonic()
        self.disk.fill()

    def free_disk(self) -> None:
        self.disk.free()
        self.windows.append(("disk full", self.full_began, time.monotonic()))

    def fault_summary(self) -> str:
        spans = {}
        for kind, start, end in self.windows:
            spans.setdefault(kind, []).append(end - start)
        parts = [f"{kind} {len(s)}x, {sum(s):.0f} s in all" for kind, s in spans.items()]
        if self.disk.kind is None:
            parts.append(f"disk full skipped: {self.disk.why_not}")
        else:
            parts.append(f"disk filled with {self.disk.filled_mb:.0f} MiB ({self.disk.kind})")
        return "; ".join(parts)

    def sample_rss(self, when: str) -> None:
        self.rss[when] = self.deploy.rss_mb()

    # -- the periodic tasks --
    def answered(self, method: str, path: str, token: str, body=None, headers=None,
                 deadline_s: float = 180):
        """(status, body) over a new connection, again after a refused connection, 503 or 507."""
        deadline = time.monotonic() + deadline_s
        while True:
            try:
                status, _, data = http(method, self.deploy.url + path, body,
                                       {"Authorization": f"Bearer {token}", **(headers or {})},
                                       timeout=120)
                if status not in (503, 507) or time.monotonic() > deadline:
                    return status, data
            except OSError:
                if time.monotonic() > deadline:
                    return "conn", None
            time.sleep(1)

    def import_(self) -> None:
        n = sum(1 for task in self.tasks if task["task"] == "import")
        self.tasks.append(task := {"task": "import", "n": n})
        rows = daylio_rows(n)
        body, boundary = multipart_body(rows)
        status, report = self.answered(
            "POST", "/api/import/daylio", self.tokens["importer"], body,
            {"Content-Type": f"multipart/form-data; boundary={boundary}"})
        task.update(ok=status == 200 and report.get("imported") == len(rows), status=status,
                    imported=report.get("imported") if isinstance(report, dict) else None,
                    rows=len(rows))

    def export(self) -> None:
        client = self.clients[len(self.tasks) % len(self.clients)]
        before = set(client.ledger.acked)
        self.tasks.append(task := {"task": "export", "user": client.ledger.user})
        status, document = self.answered("GET", "/api/export?format=json",
                                         self.tokens[client.ledger.user])
        exported = {e["client_id"] for e in document["entries"]} if status == 200 else set()
        task.update(ok=status == 200 and before <= exported, status=status,
                    missing=len(before - exported))

    def backup(self) -> None:
        self.tasks.append(task := {"task": "backup"})
        done = run(["kmood.py", "backup", str(self.tmp / "backups")], self.deploy.env,
                   timeout=300)
        task.update(ok=done.returncode == 0, status=done.returncode,
                    error=done.stderr.strip()[-300:])


def between_kills(t: float) -> float:
    """The moment half-way between two of the flaky worker's kills at or after t, so that its
    memory is read from a process that has started, not one just spawned."""
    return (t // WORKER_KILL_S) * WORKER_KILL_S + WORKER_KILL_S / 2


RETRYING_GRACE_S = 200  # a client mid-retry finishes its request before the checks


def daylio_rows(n: int, count: int = 150) -> list[str]:
    """`count` Daylio CSV rows on days no other import of the soak uses (newest first)."""
    from datetime import date, timedelta

    first = date(2015, 1, 1) + timedelta(days=n * count)
    moods = ["awful", "bad", "meh", "good", "rad"]
    rows = []
    for k in range(count):
        day = first + timedelta(days=k)
        rows.append(f"{day.isoformat()},{day.strftime('%B %d')},{day.strftime('%A')},20:{k % 60:02d},"
                    f"{moods[k % 5]},walk | soak import {n},,,imported day {k}")
    return rows[::-1]


def multipart_body(rows: list[str]) -> tuple[bytes, str]:
    boundary = "soak-boundary-7f3a"
    csv = ("full_date,date,weekday,time,mood,activities,scales,note_title,note\n"
           + "\n".join(rows) + "\n").encode()
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"daylio.csv\"\r\nContent-Type: text/csv\r\n\r\n").encode() + csv + \
        f"\r\n--{boundary}--\r\n".encode()
    return body, boundary


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="kmood-soak-"))
    chaos = Chaos(__import__("random").Random(1))
    print(f"k-mood soak: {SOAK_S:.0f} s, {CLIENTS} clients (mean pause {THINK_S} s), {USERS}"
          f" households, in {tmp}", flush=True)
    with Disk(tmp, int(os.environ.get("SOAK_DISK_MB", "1024"))) as disk, \
            Upstreams(chaos) as upstreams:
        print(f"  the database's disk: {disk.describe()}", flush=True)
        soak = Soak(tmp, disk, upstreams, chaos)
        try:
            soak.run()
            settled = settle(soak, SETTLE_S)
            exits = soak.deploy.stop_all()
            checks = (check_database(soak) + check_http(soak) + check_tasks(soak, exits)
                      + check_memory(soak))
        finally:
            for proc in soak.deploy.procs.values():
                if proc.poll() is None:
                    proc.kill()
        print(table(soak, checks, SOAK_S, settled))
        (tmp / "soak.json").write_text(json.dumps({"checks": checks}, default=str))
    return 0 if all(ok for _, _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
