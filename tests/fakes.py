"""Fakes with real behaviour: a controllable clock; fake upstream HTTP servers on 127.0.0.1."""

from __future__ import annotations

import json
import re
import struct
import threading
import time
import zlib
from datetime import date, datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

START = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
NOW_MS = int(START.timestamp() * 1000)  # a FakeClock's now until it is moved


class FakeClock:
    """A clock that moves only when the test says so."""

    def __init__(self, start: datetime | None = None):
        start = start or START
        self._ms = int(start.timestamp() * 1000)

    def now(self) -> datetime:
        return datetime.fromtimestamp(self._ms / 1000, timezone.utc)

    def now_ms(self) -> int:
        return self._ms

    def monotonic(self) -> float:
        return self._ms / 1000

    def sleep(self, seconds: float) -> None:
        """What production waits for moves this clock instead: no test waits real time."""
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        self._ms += int(seconds * 1000)

    def set(self, when: datetime) -> None:
        self._ms = int(when.timestamp() * 1000)


# --- fake upstream HTTP servers (real sockets on 127.0.0.1) --------------------------------



class QuietServer(ThreadingHTTPServer):
    """A client that hangs up mid-answer (a deadline, a size cap) is expected, not an error."""

    def handle_error(self, request, client_address):
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class Reply:
    """What the fake answers: JSON with a status, or a misbehaviour ('hang', 'trickle')."""

    def __init__(self, body=None, status: int = 200, behaviour: str = "normal",
                 headers: dict | None = None, raw: bytes | None = None,
                 content_type: str = "application/json"):
        self.body, self.status, self.behaviour = body, status, behaviour
        self.headers = headers or {}
        self.raw = raw
        self.content_type = content_type


class FakeUpstream:
    """A real HTTP server; `route(path, reply_or_function)` scripts its answers per path.

    Every request is recorded (method, path, query, headers, JSON body) for assertions.
    """

    def __init__(self):
        self.routes: dict[str, object] = {}
        self.requests: list[dict] = []
        self.stopping = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _handle(self):
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                record = {"method": self.command, "path": parts.path,
                          "query": {k: v[0] for k, v in parse_qs(parts.query).items()},
                          "headers": dict(self.headers),
                          "json": json.loads(raw) if raw else None, "at": time.monotonic()}
                fake.requests.append(record)
                reply = fake.routes.get(parts.path) or fake.routes.get("*")
                if callable(reply):
                    reply = reply(record)
                if reply is None:
                    reply = Reply({"error": "no route in fake"}, 404)
                fake.answer(self, reply)

            do_GET = do_POST = do_PUT = _handle

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def answer(self, handler, reply: Reply) -> None:
        data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
        if reply.behaviour == "hang":
            self.stopping.wait(60)
            return
        if reply.behaviour == "trickle":
            handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for byte in b"Content-Type: application/json\r\n\r\n" + data:
                if self.stopping.wait(0.1):
                    return
                try:
                    handler.wfile.write(bytes([byte]))
                    handler.wfile.flush()
                except OSError:
                    return
            return
        if "Date" in reply.headers:  # the reply's own clock, not the one send_response adds
            handler.send_response_only(reply.status)
        else:
            handler.send_response(reply.status)
        handler.send_header("Content-Type", reply.content_type)
        handler.send_header("Content-Length", str(len(data)))
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def route(self, path: str, reply) -> FakeUpstream:
        self.routes[path] = reply
        return self

    def __enter__(self) -> FakeUpstream:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


def fake_temperature(day: date, hour: int, lat: float) -> float:
    """What the fake Open-Meteo says for an hour: it encodes the day and hour, so a test can
    tell which hour an entry was given."""
    return round(day.toordinal() % 1000 + hour / 100 + (lat % 1) / 1000, 5)


class FakeOpenMeteo(FakeUpstream):
    """Archive and forecast with SPEC §8's shape, for any place and span. `nulls` lists
    days answered with null values; `failure` (a Reply) answers every request while set."""

    def __init__(self):
        super().__init__()
        self.nulls: set[date] = set()
        self.failure: Reply | None = None
        self.route("/v1/archive", self._hourly).route("/v1/forecast", self._hourly)

    def _hourly(self, record) -> Reply:
        if self.failure is not None:
            return self.failure
        query = record["query"]
        if "past_days" in query and ("start_date" in query or "end_date" in query):
            return Reply({"error": True, "reason": "past_days and start_date conflict"}, 400)
        start, end = date.fromisoformat(query["start_date"]), date.fromisoformat(query["end_date"])
        lat = float(query["latitude"])
        times, temps, codes = [], [], []
        day = start
        while day <= end:
            for hour in range(24):
                times.append(f"{day.isoformat()}T{hour:02d}:00")
                empty = day in self.nulls
                temps.append(None if empty else fake_temperature(day, hour, lat))
                codes.append(None if empty else (3 if hour % 2 else 61))
            day += timedelta(days=1)
        return Reply({"latitude": lat, "longitude": float(query["longitude"]),
                      "utc_offset_seconds": 0, "timezone": "GMT",
                      "hourly_units": {"time": "iso8601", "temperature_2m": "°C",
                                       "weather_code": "wmo code"},
                      "hourly": {"time": times, "temperature_2m": temps, "weather_code": codes}})

    def calls(self, path: str) -> list[dict]:
        return [r for r in self.requests if r["path"] == path]


class FakeNominatim(FakeUpstream):
    """Reverse geocoding with SPEC §8's shape: a place per known cell, else "Unable to geocode"."""

    def __init__(self, places: dict[tuple[float, float], tuple[str, str]] | None = None):
        super().__init__()
        self.places = places or {}
        self.failure: Reply | None = None
        self.route("/reverse", self._reverse)

    def _reverse(self, record) -> Reply:
        if self.failure is not None:
            return self.failure
        lat, lon = float(record["query"]["lat"]), float(record["query"]["lon"])
        for (plat, plon), (city, country) in self.places.items():
            if abs(plat - lat) < 0.06 and abs(plon - lon) < 0.06:
                return Reply({"place_id": 1, "display_name": f"{city}, Somewhere, {country}",
                              "address": {"city": city, "country_code": country.lower()}})
        return Reply({"error": "Unable to geocode"})


class FakeMusicBrainz(FakeUpstream):
    """Recording search with SPEC §8's shape. `catalogue` maps a lower-cased (artist, title) to
    the recordings answered for it; anything else gets a low-scoring stranger. With
    `enforce_rate`, a request too soon after the previous one gets 503, as the real service
    does over one a second (with the tests' 0.1 s allowance for scheduling jitter)."""

    MIN_GAP_S = 0.9

    QUERY = re.compile(r'recording:"((?:[^"\\]|\\.)*)" AND artist:"((?:[^"\\]|\\.)*)"')

    def __init__(self, catalogue: dict[tuple[str, str], list[dict]] | None = None,
                 enforce_rate: bool = False):
        super().__init__()
        self.catalogue = catalogue or {}
        self.enforce_rate = enforce_rate
        self.failure: Reply | None = None
        self.route("/ws/2/recording", self._search)

    def _search(self, record) -> Reply:
        if self.failure is not None:
            return self.failure
        earlier = [r["at"] for r in self.requests[:-1]]
        if self.enforce_rate and earlier and record["at"] - max(earlier) < self.MIN_GAP_S:
            record["refused"] = True
            return Reply({"error": "rate limit exceeded"}, 503)
        query = record["query"]
        match = self.QUERY.fullmatch(query.get("query", ""))
        if not match or query.get("fmt") != "json":
            return Reply({"error": "bad query"}, 400)
        title, artist = (re.sub(r"\\(.)", r"\1", part) for part in match.groups())
        found = self.catalogue.get((artist.lower(), title.lower()))
        if found is None:
            found = [{"id": "00000000-0000-4000-8000-000000000000", "score": "41",
                      "title": "Something else", "length": 1000,
                      "artist-credit": [{"artist": {"name": "Someone else"}}], "releases": []}]
        return Reply({"created": "2026-12-01T00:00:00.000Z", "count": len(found), "offset": 0,
                      "recordings": found})


def recording(mbid: str, title: str, artist: str, release: str, release_title: str,
              release_date: str | None = "2004-04-19", score=100, length=222000) -> dict:
    """One recording as MusicBrainz's search answers it."""
    releases = [{"id": release, "title": release_title, "status": "Official",
                 **({"date": release_date} if release_date else {})}]
    return {"id": mbid, "score": score, "title": title, "length": length,
            "artist-credit": [{"name": artist, "artist": {"id": mbid, "name": artist}}],
            "releases": releases}


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A solid-colour PNG, built by hand (no imaging library needed)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                            0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


class FakeCoverArt(FakeUpstream):
    """Cover Art Archive: `/release/<mbid>/front-250` redirects (307) to the image on another
    server (`self.images`, a second fake on its own port), or answers 404 for a release with
    no cover. `covers` maps release MBIDs to (content type, bytes)."""

    def __init__(self, covers: dict[str, tuple[str, bytes]] | None = None):
        super().__init__()
        self.covers = covers or {}
        self.failure: Reply | None = None
        self.images = FakeUpstream()
        self.images.route("*", self._image)
        self.route("*", self._front)

    def _front(self, record) -> Reply:
        if self.failure is not None:
            return self.failure
        match = re.fullmatch(r"/release/([0-9a-f-]{36})/front-250", record["path"])
        if not match or match.group(1) not in self.covers:
            return Reply(raw=b"Not found", status=404, content_type="text/plain")
        return Reply(raw=b"See: the image", status=307, content_type="text/plain",
                     headers={"Location": f"{self.images.url}/images/{match.group(1)}-250.png"})

    def _image(self, record) -> Reply:
        match = re.fullmatch(r"/images/([0-9a-f-]{36})-250\.png", record["path"])
        if not match or match.group(1) not in self.covers:
            return Reply(raw=b"Not found", status=404, content_type="text/plain")
        kind, data = self.covers[match.group(1)]
        return Reply(raw=data, content_type=kind)

    def __enter__(self) -> FakeCoverArt:
        self.images.__enter__()
        return super().__enter__()

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        self.images.__exit__(*exc)
