"""Enrichment benchmark: 10 000 stranded entries over 3 years — most in two home cells, the
rest on a few trips to 38 other cells, 500 distinct songs among them — enriched by the real
worker process against zero-latency fakes on 127.0.0.1 (Open-Meteo, Nominatim, MusicBrainz,
Cover Art Archive), with the deployment's one-request-a-second rule for Nominatim and
MusicBrainz (the MusicBrainz fake answers 503 to anything faster).

Prints the weather requests beside the minimum this design allows (distinct cell x year x
archive/forecast groups), entries per request (baseline: 1.0, one request per entry), the wall
time to fill all weather, and requests per kind. 500 songs at one a second take over eight
minutes, so the run stops once every place is named and reports the songs' pace instead."""

from __future__ import annotations

import random
import sqlite3
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: bench/queue.py shadows stdlib queue

from kmood_lib.accounts import users  # noqa: E402
from kmood_lib.bootstrap import bootstrap  # noqa: E402
from kmood_lib.core.config import Config  # noqa: E402
from kmood_lib.journal import writes  # noqa: E402
from kmood_lib.journal.entry_input import parse_entry  # noqa: E402
from tests.fakes import (  # noqa: E402
    FakeCoverArt,
    FakeMusicBrainz,
    FakeNominatim,
    FakeOpenMeteo,
    png,
    recording,
)
from tests.helpers import base_env, spawn, stop  # noqa: E402

ENTRIES, YEARS, TRIP_CELLS, SONGS = 10_000, 3, 38, 500
HOMES = [(52.52, 13.40), (48.14, 11.58)]
TARGET_S = 30
PLACES_DEADLINE_S = 120


def song(i: int) -> tuple[str, str]:
    return f"Artist {i % 120}", f"Track {i}"


def catalogue() -> dict:
    """Every song is found; one release in three has a cover."""
    out = {}
    for i in range(SONGS):
        artist, title = song(i)
        out[(artist.lower(), title.lower())] = [recording(
            f"{i:08x}-0000-4000-8000-000000000000", title, artist,
            f"{i:08x}-1111-4000-8000-000000000000", f"Album {i}")]
    return out


def seed(env: dict) -> None:
    services = bootstrap(Config.from_env(env))
    conn = services.connect()
    user = users.create_user(conn, "bench", "bench-password", now_ms=0, hasher=services.hasher)
    rng = random.Random(11)
    now = datetime.now(timezone.utc)
    trips = [((rng.uniform(-40, 60), rng.uniform(-120, 140)),
              now - timedelta(days=rng.randrange(10, 365 * YEARS))) for _ in range(TRIP_CELLS)]
    for i in range(ENTRIES):
        if i % 10 == 0:  # one entry in ten is on a trip of a few days
            (lat, lon), start = trips[i // 10 % TRIP_CELLS]
            when = start + timedelta(hours=rng.randrange(96))
        else:
            lat, lon = HOMES[i % 2]
            when = now - timedelta(minutes=rng.randrange(10, 60 * 24 * 365 * YEARS))
        body = {"mood": rng.randint(1, 5), "occurred_at": when.isoformat(),
                "location": {"lat": lat + rng.uniform(-0.02, 0.02),
                             "lon": lon + rng.uniform(-0.02, 0.02)}}
        if i % 4 == 0:  # one entry in four has a song, 500 distinct ones
            artist, title = song(rng.randrange(SONGS))
            body["song"] = {"artist": artist, "title": title, "source": "manual"}
        data = parse_entry(body, tz=ZoneInfo("UTC"), now=now, metric_defs={}, patch=False)
        writes.create_entry(conn, user.id, data, "api", 0)
    conn.close()
    services.hasher.close()


def minimum_requests(db: Path, delay_days: int, deg: float) -> int:
    conn = sqlite3.connect(db)
    cutoff = (datetime.now(timezone.utc).date() - timedelta(days=delay_days)).isoformat()
    # One request per cell, UTC year and part (archive up to the cutoff, forecast after it).
    count = conn.execute(
        "SELECT count(*) FROM (SELECT DISTINCT CAST(round(lat / ?) AS INTEGER),"
        " CAST(round(lon / ?) AS INTEGER), strftime('%Y', occurred_at / 1000, 'unixepoch'),"
        " date(occurred_at / 1000 + 1800, 'unixepoch') > ? FROM entries WHERE lat IS NOT NULL)",
        (deg, deg, cutoff)).fetchone()[0]
    conn.close()
    return count


def count(db: Path, sql: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def main() -> list[str]:
    tmp = Path(tempfile.mkdtemp(prefix="kmood-enrich-"))
    db = tmp / "bench.db"
    covers = {f"{i:08x}-1111-4000-8000-000000000000": ("image/png", png(250, 250, (i % 256, 90, 40)))
              for i in range(0, SONGS, 3)}
    with FakeOpenMeteo() as meteo, FakeNominatim() as nominatim, \
            FakeMusicBrainz(catalogue(), enforce_rate=True) as musicbrainz, \
            FakeCoverArt(covers) as coverart:
        env = base_env(db, KMOOD_LOG_LEVEL="WARNING", KMOOD_SCRYPT_N="1024",
                       KMOOD_OPEN_METEO_ARCHIVE_URL=meteo.url,
                       KMOOD_OPEN_METEO_FORECAST_URL=meteo.url, KMOOD_NOMINATIM_URL=nominatim.url,
                       KMOOD_MUSICBRAINZ_URL=musicbrainz.url, KMOOD_COVERART_URL=coverart.url,
                       KMOOD_POLITE_INTERVAL_MS="1000", KMOOD_SWEEP_INTERVAL_S="5")
        seed(env)
        config = Config.from_env(env)
        floor = minimum_requests(db, config.weather_archive_delay_days, config.weather_cell_deg)
        cells = count(db, "SELECT count(DISTINCT printf('%d:%d', round(lat / 0.1), round(lon / 0.1)))"
                          " FROM entries WHERE lat IS NOT NULL")
        distinct_songs = count(db, "SELECT count(DISTINCT lookup_key) FROM songs")
        started = time.perf_counter()
        worker = spawn(["kmood_worker.py"], env, tmp / "worker.log")
        try:
            weather_s = places_s = None
            while time.perf_counter() - started < PLACES_DEADLINE_S:
                time.sleep(0.05)  # polls the worker's progress; this paces the benchmark only
                if weather_s is None and count(db, "SELECT count(*) FROM weather") >= ENTRIES:
                    weather_s = time.perf_counter() - started
                    weather_requests = len(meteo.requests)
                if count(db, "SELECT count(*) FROM entry_places") >= ENTRIES:
                    places_s = time.perf_counter() - started
                    break
            wall = time.perf_counter() - started
        finally:
            stop(worker)
        done = count(db, "SELECT count(*) FROM weather")
        looked_up = count(db, "SELECT count(*) FROM song_lookups")
        song_requests = len(musicbrainz.requests)
        refused = sum(1 for r in musicbrainz.requests if r.get("refused"))
    if weather_s is None:
        weather_s, weather_requests = wall, len(meteo.requests)
    per_request = done / max(weather_requests, 1)
    return [f"entries with weather: {done} of {ENTRIES} in {weather_s:.1f} s"
            f"  ({'ok' if done == ENTRIES and weather_s < TARGET_S else 'OVER'} the"
            f" {TARGET_S} s target)",
            f"weather requests: {weather_requests}, minimum this design allows: {floor}"
            f"  ({'= minimum' if weather_requests == floor else 'above the minimum'})",
            f"entries per weather request: {per_request:.1f}"
            f"  (baseline one request per entry: 1.0; ratio {per_request:.0f}x)",
            f"place requests: {len(nominatim.requests)} for {cells} cells"
            f" ({'all named' if places_s else 'not all named'} in {places_s or wall:.1f} s at"
            f" one a second)",
            f"song requests: {song_requests} for {looked_up} of {distinct_songs} distinct songs"
            f" in {wall:.1f} s ({song_requests / wall:.2f} per second, {refused} refused with"
            f" 503); all {distinct_songs} would take about {distinct_songs:.0f} s",
            f"cover requests: {len(coverart.requests)} (redirected image fetches:"
            f" {len(coverart.images.requests)})"]


if __name__ == "__main__":
    print(f"Enrichment benchmark: {ENTRIES} stranded entries over {YEARS} years, 2 home cells"
          f" and {TRIP_CELLS} trip cells, {SONGS} distinct songs, zero-latency fakes")
    for line in main():
        print(line)
