"""The song_metadata kind against fake MusicBrainz and Cover Art Archive servers on 127.0.0.1:
one search per distinct (artist, title) by name key, "not found" and "no cover" recorded, the
cover fetched through its redirect and served by k-mood (issue #11, songs slice)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kmood_lib.queue import jobs, sweeps
from kmood_lib.upstream.coverart import CoverArt
from kmood_lib.upstream.http import UpstreamError
from kmood_lib.upstream.musicbrainz import phrase
from tests.fakes import FakeCoverArt, FakeMusicBrainz, Reply, png, recording
from tests.helpers import base_env, one_worker_iteration
from tests.unit.test_weather import drain
from tests.wsgi import Client

NOW = datetime(2025, 4, 10, 12, 0, tzinfo=timezone.utc)
CREEP, PABLO = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
KARMA, OKC = "33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"
BARE = "55555555-5555-4555-8555-555555555555"  # a release with no cover
COVER = png(250, 250, (200, 80, 40))


@pytest.fixture
def musicbrainz():
    catalogue = {
        ("radiohead", "creep"): [
            recording(CREEP, "Creep", "Radiohead", OKC, "Later compilation", "2008-06-02",
                      score="87"),
            recording(CREEP, "Creep", "Radiohead", PABLO, "Pablo Honey", "1993-02-22",
                      score="100", length=238000)],
        ("radiohead", "karma police"): [
            recording(KARMA, "Karma Police", "Radiohead", BARE, "OK Computer", "1997-05-21")],
        ("obscure band", "b-side"): [
            recording(KARMA, "B-Side", "Obscure Band", BARE, "Demo", None, score=80)],
        ('the "quoted"', "back\\slash"): [
            recording(KARMA, 'back\\slash', 'The "Quoted"', BARE, "Odd", "2001")],
    }
    with FakeMusicBrainz(catalogue) as fake:
        yield fake


@pytest.fixture
def coverart():
    with FakeCoverArt({PABLO: ("image/png", COVER)}) as fake:
        yield fake


@pytest.fixture
def env(db_path, musicbrainz, coverart):
    return base_env(db_path, KMOOD_MUSICBRAINZ_URL=musicbrainz.url,
                    KMOOD_COVERART_URL=coverart.url, KMOOD_ENRICH_WEATHER="0",
                    KMOOD_ENRICH_PLACE="0", KMOOD_JOB_BACKOFF_BASE_S="1",
                    KMOOD_JOB_BACKOFF_CAP_S="2")


@pytest.fixture
def alice(client_for, clock):
    clock.set(NOW)
    return client_for("alice")


def with_song(client, artist: str, title: str, mood: int = 3) -> int:
    song = {"artist": artist, "title": title, "source": "manual"}
    response = client.post("/api/entries", {"mood": mood, "song": song})
    assert response.status == 201, response.text
    return response.json["id"]


def metadata_of(client, entry_id: int):
    return client.get(f"/api/entries/{entry_id}").json["song"]["metadata"]


def test_one_search_per_distinct_song_shared_by_every_entry_with_it(alice, client_for,
                                                                   services, clock,
                                                                   musicbrainz, coverart):
    spellings = ["Radiohead", "RADIOHEAD", "radiohead", "Radiohead"]
    ids = [with_song(alice, artist, title) for artist, title in
           zip(spellings, ["Creep", "creep", "CREEP", "Creep"], strict=True)]
    bob = client_for("bob")
    bobs = with_song(bob, "radiohead", "Creep")
    drain(services, clock)
    assert len(musicbrainz.requests) == 1  # one lookup for five songs spelled four ways
    expected = {"recording_mbid": CREEP, "release": "Pablo Honey", "release_date": "1993-02-22",
                "length_ms": 238000, "cover_url": f"/covers/{PABLO}"}
    assert all(metadata_of(alice, i) == expected for i in ids)
    assert metadata_of(bob, bobs) == expected
    query = musicbrainz.requests[0]["query"]
    assert query["query"] == 'recording:"Creep" AND artist:"Radiohead"'  # the first spelling
    assert query["limit"] == "5" and query["fmt"] == "json"
    # The cover came through the redirect to a second host, once.
    assert [r["path"] for r in coverart.requests] == [f"/release/{PABLO}/front-250"]
    assert [r["path"] for r in coverart.images.requests] == [f"/images/{PABLO}-250.png"]
    for request in (*musicbrainz.requests, *coverart.requests, *coverart.images.requests):
        assert request["headers"]["User-Agent"] == services.config.user_agent
    with_song(alice, "Radiohead", "Creep")  # known now: no request at all
    drain(services, clock)
    assert len(musicbrainz.requests) == 1 and len(coverart.requests) == 1


def test_the_cover_is_served_by_kmood_to_its_listeners_only(alice, client_for, services, clock):
    with_song(alice, "Radiohead", "Creep")
    drain(services, clock)
    cover = alice.get(f"/covers/{PABLO}")
    headers = {name.lower(): value for name, value in cover.headers.items()}
    assert cover.status == 200 and cover.body == COVER
    assert headers["content-type"] == "image/png"
    assert headers["cache-control"] == "private, no-cache"  # kept only to be asked again
    kept = {"If-None-Match": headers["etag"]}
    again = alice.get(f"/covers/{PABLO}", headers=kept)
    assert again.status == 304 and again.body == b""
    assert client_for("carol").get(f"/covers/{PABLO}", headers=kept).status == 404  # not hers
    assert Client(alice.wsgi).get(f"/covers/{PABLO}", headers=kept).status == 303  # to log in
    assert alice.get(f"/covers/{BARE}").status == 404
    assert alice.get("/covers/not-an-mbid").status == 404
    assert "img-src 'self' data:;" in headers["content-security-policy"]
    assert "https:" not in headers["content-security-policy"]


def test_not_found_and_no_cover_are_results_never_asked_again(alice, services, clock,
                                                              musicbrainz, coverart, conn):
    weak = with_song(alice, "Obscure Band", "B-Side")  # best score 80 < 90
    unknown = with_song(alice, "Nobody", "Nothing")  # only a stranger scoring 41
    bare = with_song(alice, "Radiohead", "Karma Police")  # found; its release has no cover
    drain(services, clock)
    assert metadata_of(alice, weak) is None and metadata_of(alice, unknown) is None
    assert metadata_of(alice, bare) == {
        "recording_mbid": KARMA, "release": "OK Computer", "release_date": "1997-05-21",
        "length_ms": 222000, "cover_url": None}
    assert conn.execute("SELECT count(*) FROM song_lookups WHERE found = 0").fetchone()[0] == 2
    assert conn.execute("SELECT content_type FROM covers WHERE release_mbid = ?",
                        (BARE,)).fetchone()[0] is None
    counts = (len(musicbrainz.requests), len(coverart.requests))
    assert sweeps.sweep_all(conn, services.job_kinds, clock.now_ms(), 100,
                            jobs.Policy.from_config(services.config))["song_metadata"] == 0
    assert counts == (3, 1)


def test_a_lower_threshold_accepts_the_weaker_match(env, db_path, clock, make_user):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.core.config import Config

    services = bootstrap(Config.from_env({**env, "KMOOD_MUSICBRAINZ_MIN_SCORE": "80"}),
                         clock=clock)
    adapter = services.musicbrainz
    assert adapter.search("Obscure Band", "B-Side", 80)["score"] == 80
    assert adapter.search("Obscure Band", "B-Side", 81) is None


def test_quotes_and_backslashes_are_escaped_in_the_query(musicbrainz, services):
    assert phrase('a "b" \\c') == '"a \\"b\\" \\\\c"'
    found = services.musicbrainz.search('The "Quoted"', "back\\slash", 90)
    assert found["release_title"] == "Odd" and found["release_date"] == "2001"


def test_a_cover_that_fails_is_retried_without_searching_again(alice, services, clock, conn,
                                                               musicbrainz, coverart):
    coverart.failure = Reply({"error": "down"}, 503)
    entry = with_song(alice, "Radiohead", "Creep")
    one_worker_iteration(services)
    job = jobs.list_jobs(conn, kind="song_metadata")[0]
    assert job["status"] == "retrying" and "503" in job["last_error"]
    assert metadata_of(alice, entry)["cover_url"] is None  # the lookup is kept meanwhile
    coverart.failure = None
    drain(services, clock)
    assert metadata_of(alice, entry)["cover_url"] == f"/covers/{PABLO}"
    assert len(musicbrainz.requests) == 1


def test_an_outage_loses_nothing_and_a_sweep_alone_finds_the_work(alice, services, clock, conn,
                                                                  musicbrainz):
    musicbrainz.failure = Reply({"error": "rate limited"}, 503, headers={"Retry-After": "2"})
    entry = with_song(alice, "Radiohead", "Creep")
    one_worker_iteration(services)
    job = jobs.list_jobs(conn, kind="song_metadata")[0]
    assert job["status"] == "retrying" and job["attempts"] == 1
    conn.execute("DELETE FROM jobs")
    musicbrainz.failure = None
    drain(services, clock)
    assert metadata_of(alice, entry)["release"] == "Pablo Honey"


@pytest.mark.parametrize("reply", [
    Reply({"count": 1, "recordings": [{"id": "not-an-mbid", "score": 100}]}),
    Reply({"count": 1, "recordings": "nope"}),
    Reply({"count": 1, "recordings": [{"id": CREEP, "score": "high"}]}),
    Reply(raw=b"<html>busy</html>", content_type="text/html"),
    Reply({"error": "Invalid query"}, 400),
])
def test_an_answer_outside_the_documented_shape_is_a_failure(reply, musicbrainz, services):
    musicbrainz.failure = reply
    with pytest.raises(UpstreamError):
        services.musicbrainz.search("Radiohead", "Creep", 90)


@pytest.mark.parametrize("kind, data", [
    ("text/html", b"<html>not an image</html>"),
    ("image/png", b"GIF89a pretending"),
    ("image/jpeg", b"\x89PNG\r\n\x1a\n..."),
])
def test_only_images_are_accepted_as_covers(kind, data, coverart):
    coverart.covers[PABLO] = (kind, data)
    with pytest.raises(UpstreamError):
        CoverArt(coverart.url, "k-mood/test").front(PABLO)


def test_an_oversized_cover_is_refused(coverart):
    coverart.covers[PABLO] = ("image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * (3 * 1024 * 1024))
    with pytest.raises(UpstreamError, match="larger than"):
        CoverArt(coverart.url, "k-mood/test").front(PABLO)


def test_a_removed_song_is_not_looked_up(alice, services, clock, musicbrainz):
    entry = with_song(alice, "Radiohead", "Creep")
    assert alice.patch(f"/api/entries/{entry}", {"song": None}).status == 200
    drain(services, clock)
    assert musicbrainz.requests == []


def test_switched_off_songs_leave_no_exhausted_job(env, clock, make_user, musicbrainz):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.core.config import Config

    services = bootstrap(Config.from_env({**env, "KMOOD_ENRICH_SONGS": "0"}), clock=clock)
    conn = services.connect()
    clock.set(NOW)
    make_user("dora")
    user_id = conn.execute("SELECT id FROM users").fetchone()[0]
    conn.execute("INSERT INTO entries (user_id, occurred_at, utc_offset_s, local_date,"
                 " local_minute, mood, source, created_at, updated_at)"
                 " VALUES (?, ?, 0, '2025-04-10', 720, 3, 'api', 0, 0)",
                 (user_id, clock.now_ms()))
    conn.execute("INSERT INTO songs (entry_id, artist, title, source, created_at, lookup_key)"
                 " VALUES (last_insert_rowid(), 'A', 'T', 'manual', 0, '[\"a\",\"t\"]')")
    policy = jobs.Policy.from_config(services.config)
    sweeps.enqueue(conn, services.job_kinds, "song_metadata", 'song:["a","t"]',
                 {"lookup_key": '["a","t"]'}, clock.now_ms(), policy)
    drain(services, clock)
    statuses = [j["status"] for j in jobs.list_jobs(conn, kind="song_metadata")]
    assert statuses == ["done"] and musicbrainz.requests == []
    assert sweeps.sweep_all(conn, services.job_kinds, clock.now_ms(), 100,
                            policy)["song_metadata"] == 0
    conn.close()


def test_history_and_the_edit_page_show_the_release_its_year_and_the_cover(alice, services,
                                                                           clock):
    entry = with_song(alice, "Radiohead", "Creep")
    waiting = alice.post("/api/entries", {"mood": 2, "song": {
        "artist": "Nobody", "title": "Nothing", "album": "Some album", "source": "manual"}}
    ).json["id"]
    before = alice.get("/entries").text
    assert "Pablo Honey" not in before and "/covers/" not in before
    drain(services, clock)
    history = alice.get("/entries").text
    assert f'<img class="cover" src="/covers/{PABLO}" alt="Cover of Pablo Honey"' in history
    assert "Pablo Honey, 1993" in history and 'by <bdi dir="auto">Radiohead</bdi>' in history
    assert "Some album" in history  # not found: the album the user gave is shown instead
    edit = alice.get(f"/entries/{entry}/edit").text
    assert f'src="/covers/{PABLO}"' in edit and "Pablo Honey, 1993" in edit
    assert "/covers/" not in alice.get(f"/entries/{waiting}/edit").text


def test_music_stats_rank_artists_by_entries_with_their_mean_mood(alice, client_for):
    for artist, title, mood in (("Radiohead", "Creep", 2), ("RADIOHEAD", "Karma Police", 4),
                                ("radiohead", "Creep", 3), ("Björk", "Joga", 5)):
        with_song(alice, artist, title, mood)
    alice.post("/api/entries", {"mood": 1})
    with_song(client_for("bob"), "Björk", "Joga", 1)
    data = alice.get("/api/stats/music").json
    assert data == {"entries_with_song": 4, "artists": [
        {"artist": "RADIOHEAD", "average": 3.0, "count": 3},
        {"artist": "Björk", "average": 5.0, "count": 1}]}
    page = alice.get("/stats?range=all").text
    assert "Average mood by artist listened to" in page and "Björk" in page


def test_saving_a_song_enqueues_the_same_job_the_sweep_would(alice, services, clock, conn):
    with_song(alice, "Radiohead", "Creep")
    with_song(alice, "radiohead", "CREEP")
    queued = jobs.list_jobs(conn, kind="song_metadata")
    assert [(j["key"], j["status"]) for j in queued] == [('song:["radiohead","creep"]', "queued")]
    assert sweeps.sweep_all(conn, services.job_kinds, clock.now_ms(), 100,
                            jobs.Policy.from_config(services.config))["song_metadata"] == 0


def test_upstream_text_that_is_not_valid_unicode_is_stored_readably(alice, services, clock,
                                                                     conn, musicbrainz):
    musicbrainz.catalogue[("odd", "song")] = [
        recording(KARMA, "Song", "Odd", BARE, "Half \ud800 title\x07", "2001")]
    entry = with_song(alice, "Odd", "Song")
    drain(services, clock)
    assert metadata_of(alice, entry)["release"] == "Half \ufffd title "
    assert [tuple(r) for r in conn.execute(
        "SELECT kind, status FROM jobs WHERE kind <> 'insights'")] == [
        ("song_metadata", "done")]
