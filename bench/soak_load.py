"""The soak's load: HTTP clients that log, list, browse and edit as people do and keep their
own ledger of what the server acknowledged, and fake upstreams that misbehave on purpose."""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import uuid
from dataclasses import dataclass, field

from tests.fakes import (
    FakeCoverArt,
    FakeMusicBrainz,
    FakeNominatim,
    FakeOpenMeteo,
    Reply,
    png,
    recording,
)

ACTIVITIES = ["work", "walk", "friends", "family", "reading", "gym", "cooking", "music",
              "gaming", "rain", "coffee", "garden"]
PLACES = {(52.52, 13.40): ("Berlin", "DE"), (48.14, 11.58): ("Munich", "DE"),
          (50.94, 6.96): ("Cologne", "DE"), (53.55, 9.99): ("Hamburg", "DE"),
          (51.51, -0.13): ("London", "GB"), (41.39, 2.17): ("Barcelona", "ES")}
SONGS = [(f"Artist {n}", f"Song {n}") for n in range(10)]
PAGES = ["/", "/entries", "/calendar", "/stats", "/stats?range=all", "/insights", "/goals"]
STATS = ["summary", "weekday", "activities", "weather", "places", "music"]
RETRY_FOR_S = 180  # a create or edit is retried (same client_id) this long before it counts as unanswered


# --- upstreams ----------------------------------------------------------------------------

class Chaos:
    """Wraps every route of the fakes: a share of requests fail (500), are throttled (429 with
    Retry-After) or hang past the client's deadline; `outage` fails everything with 503."""

    def __init__(self, rng: random.Random, fail: float = 0.06, throttle: float = 0.03,
                 hang: float = 0.01):
        self.rng, self.lock = rng, threading.Lock()
        self.fail, self.throttle, self.hang = fail, throttle, hang
        self.outage = False
        self.counts = {"ok": 0, "500": 0, "429": 0, "hang": 0, "outage 503": 0}

    def wrap(self, reply_fn):
        def chaotic(record):
            with self.lock:
                roll = self.rng.random()
                if self.outage:
                    outcome = "outage 503"
                elif roll < self.fail:
                    outcome = "500"
                elif roll < self.fail + self.throttle:
                    outcome = "429"
                elif roll < self.fail + self.throttle + self.hang:
                    outcome = "hang"
                else:
                    outcome = "ok"
                self.counts[outcome] += 1
            if outcome == "outage 503":
                return Reply({"error": "down for maintenance"}, 503, headers={"Retry-After": "5"})
            if outcome == "500":
                return Reply({"error": "internal"}, 500)
            if outcome == "429":
                return Reply({"error": "slow down"}, 429, headers={"Retry-After": "2"})
            if outcome == "hang":
                return Reply(behaviour="hang")
            return reply_fn(record) if callable(reply_fn) else reply_fn
        return chaotic


class Upstreams:
    """Open-Meteo, Nominatim, MusicBrainz and the Cover Art Archive on 127.0.0.1, all chaotic."""

    def __init__(self, chaos: Chaos):
        catalogue = {(artist.lower(), title.lower()): [recording(
            f"00000000-0000-4000-8000-{n:012d}", title, artist,
            f"00000000-0000-4000-9000-{n:012d}", f"Album {n}")]
            for n, (artist, title) in enumerate(SONGS)}
        covers = {f"00000000-0000-4000-9000-{n:012d}": ("image/png", png(8, 8, (n * 20, 90, 140)))
                  for n in range(0, len(SONGS), 2)}  # half the releases have a cover
        self.fakes = [FakeOpenMeteo(), FakeNominatim(PLACES), FakeMusicBrainz(catalogue),
                      FakeCoverArt(covers)]
        for fake in self.fakes:
            fake.routes = {path: chaos.wrap(reply) for path, reply in fake.routes.items()}
            fake.requests = _Forgetful()  # an hour of requests is not kept in memory
        self.meteo, self.nominatim, self.musicbrainz, self.coverart = self.fakes

    def env(self) -> dict[str, str]:
        return {"KMOOD_OPEN_METEO_ARCHIVE_URL": self.meteo.url,
                "KMOOD_OPEN_METEO_FORECAST_URL": self.meteo.url,
                "KMOOD_NOMINATIM_URL": self.nominatim.url,
                "KMOOD_MUSICBRAINZ_URL": self.musicbrainz.url,
                "KMOOD_COVERART_URL": self.coverart.url}

    def __enter__(self) -> Upstreams:
        for fake in self.fakes:
            fake.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        for fake in self.fakes:
            fake.__exit__(*exc)


class _Forgetful(list):
    """A request log that keeps only the last few (the fakes append every request)."""

    def append(self, item) -> None:
        super().append(item)
        if len(self) > 100:
            del self[:50]


# --- clients ------------------------------------------------------------------------------

@dataclass
class Sample:
    at: float  # time.monotonic() when the request started
    op: str
    status: int | str  # an HTTP status, or "conn" when the connection failed
    seconds: float
    retry_after: str | None = None
    error: str = ""  # how a connection failed: refused, reset, timed out


@dataclass
class Ledger:
    """What the server acknowledged to one client: client_id -> (entry id, last mood)."""

    user: str
    acked: dict[str, list] = field(default_factory=dict)  # [id, mood, moods an unanswered edit may have left]
    unanswered: list[str] = field(default_factory=list)  # gave up retrying: never acknowledged


class Client(threading.Thread):
    """One person's phone: logs an entry (with a client_id, retried as the outbox does until
    the server answers), lists, opens pages, reads stats and insights, edits a mood."""

    def __init__(self, port: int, user: str, token: str, cookie: str, stop: threading.Event,
                 seed: int, think_s: float):
        super().__init__(daemon=True, name=f"client-{user}-{seed}")
        self.port, self.stop, self.think_s = port, stop, think_s
        self.rng = random.Random(seed)
        self.api = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        self.page = {"Cookie": cookie}
        self.ledger = Ledger(user)
        self.samples: list[Sample] = []
        self.conn: http.client.HTTPConnection | None = None
        self.failures: list[str] = []  # answers no fault explains (a 4xx to a valid request)
        self.insights_waits = 0  # 429 + Retry-After: the person's other insights still computing

    def request(self, op: str, method: str, path: str, body=None, headers=None):
        """(status, parsed JSON or None, Retry-After); status "conn" when the socket failed."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        started_at, started = time.monotonic(), time.perf_counter()
        try:
            self.conn.request(method, path, body=json.dumps(body) if body is not None else None,
                              headers=headers or self.api)
            response = self.conn.getresponse()
            data = response.read()
            status, retry_after = response.status, response.getheader("Retry-After")
        except (OSError, http.client.HTTPException) as exc:
            self.conn.close()
            self.conn = None
            self.samples.append(Sample(started_at, op, "conn", time.perf_counter() - started,
                                       error=type(exc).__name__))
            return "conn", None, None
        self.samples.append(Sample(started_at, op, status, time.perf_counter() - started,
                                   retry_after))
        if response.getheader("Connection", "").lower() == "close":
            self.conn.close()
            self.conn = None
        parsed = None
        if data and (response.getheader("Content-Type") or "").startswith("application/json"):
            parsed = json.loads(data)
        return status, parsed, retry_after

    def until_answered(self, op: str, method: str, path: str, body: dict):
        """Send, and again after a refused connection, a 503 or a 507 (waiting as Retry-After
        says), until the server answers or RETRY_FOR_S passes: the outbox's way."""
        deadline = time.monotonic() + RETRY_FOR_S
        while time.monotonic() < deadline:
            status, parsed, retry_after = self.request(op, method, path, body)
            if status == "conn" or status in (503, 507):
                time.sleep(min(float(retry_after or 0.2), 5) * (0.5 + self.rng.random()))
                continue
            return status, parsed
        return None, None

    def create(self) -> None:
        client_id = str(uuid.uuid4())
        body = {"mood": self.rng.choice([1, 2, 3, 3, 4, 4, 4, 5, 5]),
                "activities": self.rng.sample(ACTIVITIES, self.rng.randrange(0, 4)),
                "note": f"soak {client_id[:8]}: " + self.rng.choice(
                    ["walked by the river", "long day at work", "coffee with a friend",
                     "rain all day", "slept well"]),
                "client_id": client_id}
        if self.rng.random() < 0.6:
            lat, lon = self.rng.choice(list(PLACES))
            body["location"] = {"lat": lat + self.rng.uniform(-0.01, 0.01),
                                "lon": lon + self.rng.uniform(-0.01, 0.01)}
        if self.rng.random() < 0.3:
            artist, title = self.rng.choice(SONGS)
            body["song"] = {"artist": artist, "title": title}
        status, parsed = self.until_answered("create", "POST", "/api/entries", body)
        if status in (200, 201):
            self.ledger.acked[client_id] = [parsed["id"], body["mood"]]
        elif status is None:
            self.ledger.unanswered.append(client_id)
        else:
            self.failures.append(f"create answered {status}: {parsed}")

    def edit(self) -> None:
        if not self.ledger.acked:
            return
        client_id = self.rng.choice(list(self.ledger.acked))
        entry_id, mood = self.ledger.acked[client_id]
        new_mood = mood % 5 + 1
        status, parsed = self.until_answered("edit", "PATCH", f"/api/entries/{entry_id}",
                                             {"mood": new_mood})
        if status == 200:
            self.ledger.acked[client_id] = [entry_id, new_mood]
        elif status is None:
            # Unknown whether it landed: either mood may be in the database now.
            self.ledger.acked[client_id].append(new_mood)
        else:
            self.failures.append(f"edit answered {status}: {parsed}")

    def read(self) -> None:
        roll = self.rng.random()
        if roll < 0.45:
            op, path, headers = "list", "/api/entries?limit=20", self.api
        elif roll < 0.80:
            op, path, headers = "page", self.rng.choice(PAGES), self.page
        elif roll < 0.95:
            op, path, headers = "stats", f"/api/stats/{self.rng.choice(STATS)}", self.api
        else:
            op, path, headers = "insights", "/api/insights", self.api
        status, parsed, retry_after = self.request(op, "GET", path, headers=headers)
        if status == 429 and retry_after and "insights" in path:
            self.insights_waits += 1  # one computation per person at a time (issue #36.3)
        elif isinstance(status, int) and 400 <= status < 500:
            self.failures.append(f"GET {path} answered {status}: {parsed}")

    def run(self) -> None:
        while not self.stop.is_set():
            roll = self.rng.random()
            if roll < 0.35:
                self.create()
            elif roll < 0.42:
                self.edit()
            else:
                self.read()
            self.stop.wait(self.rng.uniform(0, 2 * self.think_s))
        if self.conn is not None:
            self.conn.close()
