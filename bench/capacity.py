"""Capacity: how many households of four, each person logging five times a day, one 2-core
machine serves with p99 under 100 ms, and which resource runs out first (issue #27).

1. Seed 40 households x 4 people with a year of history each (5 entries a day, in process
   through the journal's bulk insert), give each person a session cookie and an API token.
2. Start kmood.py and kmood_worker.py as deployed (default KMOOD_THREADS, synchronous=FULL),
   with the enrichment upstreams faked on 127.0.0.1 so the worker does its real work; each
   under `strace --seccomp-bpf`, so only its fsync and fdatasync calls stop it (and are logged
   with a timestamp), no other call.
3. Offer an open-loop load (Poisson arrivals at a fixed rate, each request timed from when it
   was due, not from when a free connection sent it) of person actions, stepping the rate up
   until a step's p99 passes 100 ms or a request fails; per step: latencies, the server's and
   the worker's CPU, the machine's CPU, fsyncs per second, RSS.
4. Turn the best step into households with a stated peak-hour model, and set each resource's
   use beside its limit (one core for one CPython process, 2 cores, the disk's own rate of
   sequential fdatasyncs, memory).
"""

from __future__ import annotations

import contextlib
import dataclasses
import http.client
import json
import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import NamedTuple
from zoneinfo import ZoneInfo

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: bench/queue.py shadows stdlib queue

from bench.api import cpu_s  # noqa: E402
from bench.soak_load import ACTIVITIES, PLACES, Chaos, Upstreams  # noqa: E402
from kmood_lib.accounts import auth, users  # noqa: E402
from kmood_lib.bootstrap import bootstrap  # noqa: E402
from kmood_lib.core.config import Config  # noqa: E402
from kmood_lib.core.db import transaction  # noqa: E402
from kmood_lib.journal import writes  # noqa: E402
from kmood_lib.journal.entry_input import parse_entry  # noqa: E402
from tests.helpers import PYTHON, ROOT, base_env, free_port, healthy, spawn, wait_until  # noqa: E402

HOUSEHOLDS, PEOPLE, SEED_DAYS, PER_DAY = 40, 4, 365, 5
TZ = "Europe/Berlin"
RATES = [int(r) for r in os.environ.get("CAPACITY_RATES", "25,50,100,150,200,300,400,600"
                                        ).split(",")]
STEP_S = float(os.environ.get("CAPACITY_STEP_S", "15"))
P99_LIMIT_MS = 100
PEAK_HOUR_SHARE = 0.25  # the busiest (evening) hour carries a quarter of a day's logging
ACTIONS_PER_HOUSEHOLD_DAY = PEOPLE * PER_DAY
SENDERS, THREADS = 2, 32  # 64 keep-alive connections (k-mood allows 100 per address)
TIMEOUT_S, DRAIN_S, WARMUP_S, SETTLE_S = 10, 10, 3, 20
# One log action, in the order a phone sends it: the log page, the create, then one look at
# history or stats, chosen by these weights.
LOOKS = {"GET /api/entries?limit=20": 40, "GET /entries": 25, "GET /stats": 20,
         "GET /api/stats/summary": 15}
ACTION = ["GET /", "POST /api/entries", "look"]
NOTES = ["walked by the river", "long day at work", "coffee with a friend", "rain all day",
         "slept well", "tired", "dinner with the kids"]


class Sample(NamedTuple):
    request: str
    lag_s: float | None  # sent this long after it was due; None: never sent (a failure)
    latency_s: float | None  # answered this long after it was due
    ok: bool
    done_s: float | None  # answered at, from the step's start


@dataclass
class Step:
    rate: int
    seconds: float
    wall_s: float = 0.0  # the step with its drain: what CPU shares are taken over
    samples: list[Sample] = field(default_factory=list)
    generator_cpu_s: float = 0.0
    cpu: dict = field(default_factory=dict)  # server, worker, machine: % of one core
    rss_mib: dict = field(default_factory=dict)
    fsyncs: dict | None = None  # server, worker: fsync + fdatasync calls (None: not counted)

    def latencies(self, request: str | None = None) -> list[float]:
        return sorted(s.latency_s for s in self.samples if s.latency_s is not None
                      and request in (None, s.request))

    @property
    def errors(self) -> int:
        return sum(1 for s in self.samples if not s.ok)

    @property
    def creates(self) -> int:
        return sum(1 for s in self.samples if s.request == "POST /api/entries" and s.ok)

    @property
    def achieved(self) -> float:
        """Answered requests per second, over the step and however long the last took past it."""
        answered = [s.done_s for s in self.samples if s.ok]
        return len(answered) / max(self.seconds, max(answered, default=0))

    def p(self, q: float, request: str | None = None) -> float:
        ordered = self.latencies(request)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered \
            else float("nan")

    @property
    def fsyncs_per_s(self) -> float:
        return sum(self.fsyncs.values()) / self.wall_s if self.fsyncs else float("nan")

    @property
    def fits(self) -> bool:
        return self.errors == 0 and self.p(0.99) < P99_LIMIT_MS

    def line(self) -> str:
        lag = sorted(s.lag_s for s in self.samples if s.lag_s is not None)
        lag_p99 = lag[int(0.99 * (len(lag) - 1))] * 1000 if lag else float("nan")
        return (f"{self.rate:7d} {self.achieved:8.1f} {self.p(0.5):6.1f} {self.p(0.95):6.1f}"
                f" {self.p(0.99):6.1f} {self.p(0.99, 'POST /api/entries'):6.1f} {self.errors:6d}"
                f" {lag_p99:8.1f} {self.cpu['server']:5.0f}% {self.cpu['worker']:5.0f}%"
                f" {self.cpu['machine']:6.0f}% {self.generator_cpu_s / self.wall_s * 100:5.0f}%"
                f" {self.fsyncs_per_s:7.0f} {self.rss_mib['server']:6.0f}"
                f" {self.rss_mib['worker']:6.0f}"
                + ("" if self.fits else "  <- over"))


HEADER = "\n".join(" ".join(f"{name:>{width}}" for name, width in zip(names, (
    7, 8, 6, 6, 6, 6, 6, 8, 6, 6, 7, 6, 7, 6, 6), strict=True)) for names in (
    ("offered", "achieved", "p50", "p95", "p99", "create", "errors", "send lag", "server",
     "worker", "machine", "gen", "fsyncs", "RSS", "RSS"),
    ("req/s", "req/s", "ms", "ms", "ms", "p99 ms", "", "p99 ms", "CPU", "CPU", "CPU/200", "CPU",
     "per s", "server", "worker")))


# --- seeding -------------------------------------------------------------------------------

def seed(env: dict) -> list[tuple[str, str]]:
    """Every person with SEED_DAYS of history, bulk-inserted as an import would; returns each
    person's (session cookie, API token)."""
    services = bootstrap(Config.from_env(env))
    conn = services.connect()
    rng, tz, now = random.Random(27), ZoneInfo(TZ), datetime.now(timezone.utc)
    now_ms, people = int(now.timestamp() * 1000), []
    try:
        for n in range(HOUSEHOLDS * PEOPLE):
            user = users.create_user(conn, f"person{n}", "bench-password", now_ms=now_ms,
                                     hasher=services.hasher, timezone=TZ)
            history = [dataclasses.replace(
                parse_entry(past_entry(rng, now - timedelta(days=SEED_DAYS - day), slot), tz=tz,
                            now=now, metric_defs={}, patch=False), import_key=f"seed:{day}:{slot}")
                for day in range(SEED_DAYS) for slot in range(PER_DAY)]
            with transaction(conn):
                writes.insert_imported(conn, user.id, history, "api", now_ms)
            session = auth.create_session(conn, user.id, now_ms, services.config.session_ttl_s)
            token = auth.create_api_token(conn, user.id, "phone", now_ms)["token"]
            people.append((f"kmood_session={session.token}", token))
    finally:
        conn.close()
        services.hasher.close()
    return people


def past_entry(rng: random.Random, day: datetime, slot: int) -> dict:
    """One history entry, at one of five times of that day; no location, so the worker has no
    backlog of a year's enrichment (a deployment's history would be enriched long ago)."""
    when = day.replace(hour=7 + slot * 3, minute=rng.randrange(60))
    return {"mood": rng.choice([1, 2, 3, 3, 4, 4, 4, 5, 5]), "occurred_at": when.isoformat(),
            "activities": rng.sample(ACTIVITIES, rng.randrange(4)), "note": rng.choice(NOTES)}


def new_entry(rng: random.Random) -> dict:
    """A create as a phone sends it: a client_id, activities, a note, a location 30 % of the time."""
    body = {"client_id": str(uuid.uuid4()), "mood": rng.choice([1, 2, 3, 3, 4, 4, 4, 5, 5]),
            "activities": rng.sample(ACTIVITIES, rng.randrange(4)), "note": rng.choice(NOTES)}
    if rng.random() < 0.3:
        lat, lon = rng.choice(list(PLACES))
        body["location"] = {"lat": lat + rng.uniform(-0.01, 0.01),
                            "lon": lon + rng.uniform(-0.01, 0.01)}
    return body


def request_shares() -> dict[str, float]:
    """Each request's share of all requests, in %, from ACTION and LOOKS."""
    total = sum(LOOKS.values())
    shares = {request: 100 / len(ACTION) for request in ACTION if request != "look"}
    return shares | {look: 100 / len(ACTION) * weight / total for look, weight in LOOKS.items()}


# --- the open-loop load --------------------------------------------------------------------

def schedule(rate: float, seconds: float, people: int, rng: random.Random) -> list[tuple]:
    """(due in s from the start, request, person): log actions, their requests Poisson at
    `rate` in all, each action's three in order."""
    looks, weights = list(LOOKS), list(LOOKS.values())
    due, plan = 0.0, []
    while True:
        person = rng.randrange(people)
        for request in ACTION:
            due += rng.expovariate(rate)
            if due >= seconds:
                return plan
            plan.append((due, rng.choices(looks, weights)[0] if request == "look" else request,
                         person))


def _send(port: int, plan: list, people: list, start: float, stop_at: float, next_index: list,
          lock: threading.Lock, out: list, seed: int) -> None:
    """One keep-alive connection: take the next due request, wait for its time, send it; a
    request still unsent at `stop_at` is counted as failed."""
    rng, conn, samples = random.Random(seed), None, []
    while True:
        with lock:
            i = next_index[0]
            next_index[0] += 1
        if i >= len(plan):
            break
        due, request, person = plan[i]
        due += start
        if due > time.monotonic():
            time.sleep(due - time.monotonic())
        sent = time.monotonic()
        if sent > stop_at:
            samples.append(Sample(request, None, None, False, None))
            continue
        method, path = request.split(" ", 1)
        cookie, token = people[person]
        headers = {"Authorization": f"Bearer {token}"} if path.startswith("/api/") \
            else {"Cookie": cookie}
        body = None
        if method == "POST":
            body, headers["Content-Type"] = json.dumps(new_entry(rng)), "application/json"
        try:
            conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            ok = response.status < 400
            if response.will_close:
                conn.close()
                conn = None
        except (OSError, http.client.HTTPException):
            ok = False
            if conn is not None:
                conn.close()
            conn = None
        done = time.monotonic()
        samples.append(Sample(request, sent - due, done - due, ok, done - start))
    if conn is not None:
        conn.close()
    with lock:
        out.extend(samples)


def _sender_process(args) -> tuple[list, float]:
    """THREADS connections working through this process's share of a step's plan."""
    port, plan, people, start, stop_at, index = args
    cpu = time.process_time()
    out, lock, next_index = [], threading.Lock(), [0]
    threads = [threading.Thread(target=_send, args=(port, plan, people, start, stop_at,
                                                    next_index, lock, out, index * 1000 + n))
               for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out, time.process_time() - cpu


def offer(pool, port: int, people: list, rate: int, seconds: float, procs: dict,
          rng: random.Random) -> Step:
    """One step of the open-loop load, with the processes' CPU, fsyncs and RSS around it."""
    plan = schedule(rate, seconds, len(people), rng)
    start = time.monotonic() + 0.5
    shares = [(port, plan[n::SENDERS], people, start, start + seconds + DRAIN_S, n)
              for n in range(SENDERS)]
    before = {name: cpu_s(proc.pid) for name, proc in procs.items()}
    machine, wall = machine_busy(), time.time()
    parts = pool.map(_sender_process, shares)
    elapsed, busy = time.monotonic() - start + 0.5, machine_busy()
    step = Step(rate, seconds, elapsed, [s for samples, _ in parts for s in samples],
                sum(cpu for _, cpu in parts))
    step.cpu = {name: (cpu_s(proc.pid) - before[name]) / elapsed * 100
                for name, proc in procs.items()}
    step.cpu["machine"] = (busy[0] - machine[0]) / (busy[1] - machine[1]) * os.cpu_count() * 100
    step.rss_mib = {name: rss_mib(proc.pid) for name, proc in procs.items()}
    if all(proc.trace for proc in procs.values()):
        step.fsyncs = {name: proc.fsyncs(wall, wall + elapsed) for name, proc in procs.items()}
    return step


# --- what the machine says -----------------------------------------------------------------

def machine_busy() -> tuple[int, int]:
    """(busy, total) jiffies of all cores from /proc/stat; idle and iowait are not busy."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(values) - values[3] - values[4], sum(values)


def rss_mib(pid: int, key: str = "VmRSS") -> float:
    for text in Path(f"/proc/{pid}/status").read_text().splitlines():
        if text.startswith(key + ":"):
            return int(text.split()[1]) / 1024
    return float("nan")


def fdatasyncs_per_s(directory: Path, seconds: float = 2.0) -> float:
    """The disk's ceiling for commits in a row: append 4 KiB and fdatasync, as one writer does."""
    path = directory / "fsync-probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    calls, block, stop_at = 0, os.urandom(4096), time.monotonic() + seconds
    try:
        while time.monotonic() < stop_at:
            os.write(fd, block)
            os.fdatasync(fd)
            calls += 1
    finally:
        os.close(fd)
        path.unlink()
    return calls / seconds


@dataclass
class Launched:
    """kmood.py or kmood_worker.py, under strace when it can count fsyncs here."""

    popen: subprocess.Popen  # strace, or the process itself
    pid: int  # the Python process
    trace: Path | None  # strace's log: one timestamped line per fsync or fdatasync

    @classmethod
    def start(cls, script: str, env: dict, tmp: Path, strace: bool) -> Launched:
        name = Path(script).stem
        if not strace:
            popen = spawn([script], env, tmp / f"{name}.log")
            return cls(popen, popen.pid, None)
        trace = tmp / f"{name}.fsyncs"
        with open(tmp / f"{name}.log", "ab") as log:
            popen = subprocess.Popen([*STRACE, "-o", str(trace), PYTHON, script], cwd=ROOT,
                                     env=env, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        pid = wait_until(lambda: child_of(popen.pid), 10, what=f"{script} under strace")
        return cls(popen, pid, trace)

    def fsyncs(self, since: float, until: float) -> int:
        """fsync and fdatasync calls begun between two wall-clock times."""
        return sum(1 for text in self.trace.read_text().splitlines()
                   if ("fsync(" in text or "fdatasync(" in text)
                   and since <= float(text.split()[1]) < until)

    def stop(self) -> None:
        """SIGTERM to the Python process (strace then ends with it), SIGKILL after 30 s."""
        if self.popen.poll() is None:
            os.kill(self.pid, signal.SIGTERM)
        try:
            self.popen.wait(30)
        except subprocess.TimeoutExpired:
            for pid in (self.pid, self.popen.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.popen.wait()
            raise AssertionError(f"{self.popen.args} ignored SIGTERM for 30 s") from None


STRACE = [shutil.which("strace") or "strace", "-f", "--seccomp-bpf", "-qq", "-ttt",
          "-e", "trace=fsync,fdatasync", "-e", "signal=none"]


def strace_works() -> bool:
    """Whether strace is here and may trace with a seccomp filter (a container may forbid it)."""
    try:
        return subprocess.run([*STRACE, "-o", os.devnull, "true"], capture_output=True,
                              timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def child_of(parent: int) -> int | None:
    """The pid of a process's child, from /proc/*/stat (field 4 is the parent)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == parent:
                return int(stat.parent.name)
    return None


def settle(worker_pid: int) -> None:
    """Wait (at most SETTLE_S) for the worker's start-up sweeps to go quiet: under 5 % CPU."""
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline:
        before = cpu_s(worker_pid)
        time.sleep(1)
        if cpu_s(worker_pid) - before < 0.05:
            return


# --- the answer ----------------------------------------------------------------------------

def model() -> str:
    return (f"model: a household is {PEOPLE} people x {PER_DAY} logs = {ACTIONS_PER_HOUSEHOLD_DAY}"
            f" log actions a day; one action = {len(ACTION)} requests ({', '.join(ACTION)});"
            f" the busiest hour carries {PEAK_HOUR_SHARE:.0%} of a day's actions ="
            f" {ACTIONS_PER_HOUSEHOLD_DAY * PEAK_HOUR_SHARE:g} per household, at random"
            f" (Poisson) within it")


def households(best: Step, over: Step | None) -> tuple[float, list[str]]:
    """The best step's answered rate as households at the peak hour, and how it was reached."""
    actions = best.achieved / len(ACTION)
    peak = ACTIONS_PER_HOUSEHOLD_DAY * PEAK_HOUR_SHARE
    served = actions / (peak / 3600)
    lines = [f"highest step with p99 < {P99_LIMIT_MS} ms and 0 errors: {best.rate} req/s"
             f" offered ({best.achieved:.0f} answered) = {actions:.1f} log actions/s",
             f"households = {actions:.1f} / ({peak:g} / 3600 s) = {served:,.0f}  (if reminders"
             f" bunch the peak hour's actions into 10 minutes: {served / 6:,.0f})",
             f"the next step ({over.rate} req/s) failed: p99 {over.p(0.99):.0f} ms,"
             f" {over.errors} errors, {over.achieved:.0f} req/s answered; server CPU"
             f" {over.cpu['server']:.0f}% of one core, machine {over.cpu['machine']:.0f}%,"
             f" fsyncs {over.fsyncs_per_s:.0f}/s" if over else
             "no step failed: the ceiling is above the highest rate tried (CAPACITY_RATES)"]
    cpu_ms = best.cpu["server"] * 10 / best.achieved  # 1 % of a core is 10 ms a second
    lines.append(f"the server spent {cpu_ms:.1f} ms of CPU a request: a core of its own would"
                 f" answer {1000 / cpu_ms:.0f} req/s, {1000 / cpu_ms / best.achieved:.1f}x this"
                 f" step (an estimate, not measured)")
    return served, lines


def headroom(best: Step, disk: float) -> list[str]:
    """Each resource's use at the best step against its limit, and the one closest to it."""
    memory = int(Path("/proc/meminfo").read_text().split()[1]) / 1024
    cores = os.cpu_count()
    use = {"the server's CPU (one CPython process: the GIL holds it near one core)":
           best.cpu["server"] / 100,
           f"k-mood's CPU (server + worker) of {cores} cores":
           (best.cpu["server"] + best.cpu["worker"]) / (100 * cores),
           "RSS (server + worker) of the machine's memory":
           (best.rss_mib["server"] + best.rss_mib["worker"]) / memory,
           "the machine's CPU (k-mood, the load generator and any other work on it)":
           best.cpu["machine"] / (100 * cores)}
    lines = [f"at that step: server CPU {best.cpu['server']:.0f}% of one core, worker"
             f" {best.cpu['worker']:.0f}%; RSS {best.rss_mib['server']:.0f} +"
             f" {best.rss_mib['worker']:.0f} MiB of {memory:,.0f} MiB; the whole machine"
             f" {best.cpu['machine']:.0f}% of {100 * cores}% (k-mood"
             f" {best.cpu['server'] + best.cpu['worker']:.0f}%, the load generator"
             f" {best.generator_cpu_s / best.wall_s * 100:.0f}%, other work on it the rest)"]
    if best.fsyncs is not None:
        per_create = best.fsyncs["server"] / max(1, best.creates)
        use["fsyncs (of the disk's sequential fdatasync rate)"] = best.fsyncs_per_s / disk
        lines.append(f"fsyncs: {best.fsyncs_per_s:.0f}/s (server"
                     f" {best.fsyncs['server'] / best.wall_s:.0f}/s, {per_create:.2f} per create;"
                     f" worker {best.fsyncs['worker'] / best.wall_s:.0f}/s) of the disk's"
                     f" {disk:.0f}/s; one after another, creates alone could reach"
                     f" {disk / max(per_create, 1e-9):.0f}/s")
    else:
        lines.append("fsyncs: not counted (strace is missing or may not trace here)")
    closest = max(use, key=use.get)
    return lines + [f"closest to its limit: {closest}, at {use[closest]:.0%}"]


def history(served: float, entries: int, db_mib: float) -> str:
    yearly = served * ACTIONS_PER_HOUSEHOLD_DAY * 365
    return (f"history: this database held {entries:,} entries in {db_mib:.0f} MiB; {served:,.0f}"
            f" households write {yearly:,.0f} a year (~{yearly * db_mib / entries / 1024:,.0f}"
            f" GiB at this size per entry), which this run does not measure")


def ramp(pool, port: int, people: list, procs: dict, rng: random.Random
         ) -> tuple[Step | None, Step | None]:
    """Step the rate up until a step misses; (the last step that fit, the one that missed)."""
    print(HEADER, flush=True)
    best = None
    for rate in RATES:
        step = offer(pool, port, people, rate, STEP_S, procs, rng)
        print(step.line(), flush=True)
        if not step.fits:
            return best, step
        best = step
    return best, None


def main() -> None:
    ctx = multiprocessing.get_context("fork")  # before any thread starts
    tmp = Path(tempfile.mkdtemp(prefix="kmood-capacity-"))
    port, rng = free_port(), random.Random(27)
    mix = ", ".join(f"{name} {weight}%" for name, weight in LOOKS.items())
    shares = ", ".join(f"{name} {share:.1f}%" for name, share in request_shares().items())
    print(f"Capacity: {HOUSEHOLDS} households x {PEOPLE} people, {SEED_DAYS} days x {PER_DAY}"
          f" entries each; rates {RATES} req/s (CAPACITY_RATES), {STEP_S:g} s a step"
          f" (CAPACITY_STEP_S); load average {Path('/proc/loadavg').read_text().split()[0]}"
          f" on {os.cpu_count()} cores", flush=True)
    print(f"mix per log action: GET / (cookie), POST /api/entries (token; activities, note,"
          f" 30% a location), then one of {mix}; open loop, Poisson arrivals, {SENDERS * THREADS}"
          " keep-alive connections, latency from each request's due time", flush=True)
    print(f"so of all requests: {shares}", flush=True)
    with ctx.Pool(SENDERS) as pool, Upstreams(Chaos(random.Random(1), 0, 0, 0)) as upstreams:
        env = base_env(tmp / "capacity.db", KMOOD_PORT=str(port), KMOOD_LOG_LEVEL="WARNING",
                       KMOOD_SCRYPT_N="1024", KMOOD_SYNCHRONOUS="full", **upstreams.env())
        started = time.monotonic()
        people = seed(env)
        entries = len(people) * SEED_DAYS * PER_DAY
        db_mib = (tmp / "capacity.db").stat().st_size / 2**20
        print(f"seeded {entries:,} entries ({db_mib:.0f} MiB) for {len(people)} people in"
              f" {time.monotonic() - started:.0f} s", flush=True)
        disk = fdatasyncs_per_s(tmp)
        print(f"disk: {disk:.0f} sequential 4 KiB appends + fdatasync per second", flush=True)
        strace = strace_works()
        if not strace:
            print("fsyncs: not counted (strace is missing or may not trace here)", flush=True)
        procs = {}
        try:
            procs["server"] = Launched.start("kmood.py", env, tmp, strace)
            procs["worker"] = Launched.start("kmood_worker.py", env, tmp, strace)
            wait_until(lambda: healthy(f"http://127.0.0.1:{port}"), 30, what="kmood server")
            settle(procs["worker"].pid)
            offer(pool, port, people, RATES[0], WARMUP_S, procs, rng)  # warm-up, not counted
            best, over = ramp(pool, port, people, procs, rng)
        finally:
            for proc in procs.values():
                proc.stop()
    print(model())
    if best is None:
        print(f"no step met p99 < {P99_LIMIT_MS} ms with no errors: below {RATES[0]} req/s here")
    else:
        served, lines = households(best, over)
        for text in lines + headroom(best, disk) + [history(served, entries, db_mib)]:
            print(text)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
