"""Two worker processes share Nominatim's and MusicBrainz's one-request-a-second budgets
through the slots in the database: each fake sees their requests at least 0.9 s apart, and the
MusicBrainz fake, which answers 503 to anything faster (as the real one does), never has to
(issue #11)."""

from __future__ import annotations

import sqlite3

from kmood_lib.accounts import users
from kmood_lib.bootstrap import bootstrap
from kmood_lib.core.config import Config
from kmood_lib.journal import writes
from kmood_lib.journal.entry_input import parse_entry, utc_now
from tests.fakes import FakeCoverArt, FakeMusicBrainz, FakeNominatim, recording
from tests.helpers import base_env, spawn, stop, wait_until

CELLS = [(10.0 + i, 20.0 + i) for i in range(6)]
SONGS = [(f"Band {i}", f"Song {i}") for i in range(6)]
CATALOGUE = {(artist.lower(), title.lower()): [recording(
    f"{i:08d}-0000-4000-8000-000000000000", title, artist,
    f"{i:08d}-1111-4000-8000-000000000000", f"Album {i}")] for i, (artist, title) in
    enumerate(SONGS)}


def count(db_path, sql: str) -> int:
    db = sqlite3.connect(db_path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.close()


def assert_paced(requests: list[dict], expected: int) -> None:
    times = sorted(r["at"] for r in requests)
    assert len(times) == expected
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert min(gaps) >= 0.9, gaps


def test_two_workers_never_ask_nominatim_or_musicbrainz_faster_than_once_a_second(tmp_path):
    from zoneinfo import ZoneInfo

    with FakeNominatim({cell: (f"Town {i}", "XX") for i, cell in enumerate(CELLS)}) as fake, \
            FakeMusicBrainz(CATALOGUE, enforce_rate=True) as musicbrainz, \
            FakeCoverArt() as coverart:
        env = base_env(tmp_path / "k.db", KMOOD_NOMINATIM_URL=fake.url,
                       KMOOD_MUSICBRAINZ_URL=musicbrainz.url, KMOOD_COVERART_URL=coverart.url,
                       KMOOD_POLITE_INTERVAL_MS="1000", KMOOD_ENRICH_WEATHER="0",
                       KMOOD_JOB_BATCH="1", KMOOD_SWEEP_INTERVAL_S="0.2")
        services = bootstrap(Config.from_env(env))
        conn = services.connect()
        user = users.create_user(conn, "ann", "long secret", now_ms=0, hasher=services.hasher)
        for (lat, lon), (artist, title) in zip(CELLS, SONGS, strict=True):
            # Saved without the prompt path: the sweeps find the work.
            song = {"artist": artist, "title": title, "source": "manual"}
            data = parse_entry({"mood": 3, "location": {"lat": lat, "lon": lon}, "song": song},
                               tz=ZoneInfo("UTC"), now=utc_now(services.clock), metric_defs={},
                               patch=False)
            writes.create_entry(conn, user.id, data, "api", 0)
        conn.close()
        workers = [spawn(["kmood_worker.py"], env, tmp_path / f"worker{i}.log") for i in (1, 2)]

        def done() -> bool:
            return (count(tmp_path / "k.db", "SELECT count(*) FROM entry_places") == len(CELLS)
                    and count(tmp_path / "k.db", "SELECT count(*) FROM song_lookups"
                              " WHERE found = 1") == len(SONGS))

        try:
            wait_until(done, 60, 0.1, "every entry to get its place and its song's metadata")
        finally:
            codes = [stop(w) for w in workers]
        assert codes == [0, 0]
        assert_paced(fake.requests, len(CELLS))
        assert_paced(musicbrainz.requests, len(SONGS))  # so none was answered 503
        logs = [(tmp_path / f"worker{i}.log").read_text() for i in (1, 2)]
        assert not any("Traceback" in log for log in logs)
        looked_up = [log.count(": Town ") + log.count(": recording ") for log in logs]
        assert sum(looked_up) == len(CELLS) + len(SONGS) and min(looked_up) >= 1, looked_up
