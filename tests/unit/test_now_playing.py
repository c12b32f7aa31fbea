"""Now-playing against fake ListenBrainz and Last.fm servers: one total deadline, always."""

import threading
import time

import pytest

from kmood_lib.journal.nowplaying import now_playing
from kmood_lib.upstream.lastfm import LastFm
from kmood_lib.upstream.listenbrainz import ListenBrainz
from tests.fakes import FakeUpstream, Reply

UA = "k-mood/test (+https://example.invalid)"
DEADLINE_MS = 500
LB_PLAYING = {"payload": {"count": 1, "playing_now": True, "listens": [{"track_metadata": {
    "artist_name": "Radiohead", "track_name": "Reckoner", "release_name": "In Rainbows"}}]}}
LB_NOTHING = {"payload": {"count": 0, "playing_now": True, "listens": []}}
FM_PLAYING = {"recenttracks": {"track": [
    {"@attr": {"nowplaying": "true"}, "artist": {"#text": "Björk"}, "name": "Jóga",
     "album": {"#text": "Homogenic"}},
    {"artist": {"#text": "Old"}, "name": "Song", "album": {"#text": ""}}]}}
FM_NOT_NOW = {"recenttracks": {"track": [
    {"artist": {"#text": "Old"}, "name": "Song", "album": {"#text": ""}}]}}


def ask(lb_url=None, fm_url=None, lb_user="alice", fm_user="alice", key="k"):
    """Run now_playing on a thread, guarded against hangs at 5x+ the deadline."""
    lb = ListenBrainz(lb_url or "http://127.0.0.1:9", UA)
    fm = LastFm(fm_url or "http://127.0.0.1:9", key, UA)
    result = {}
    started = time.monotonic()
    thread = threading.Thread(target=lambda: result.update(
        now_playing(lb, fm, lb_user if lb_url else None, fm_user if fm_url else None,
                    DEADLINE_MS)))
    thread.start()
    thread.join(DEADLINE_MS / 1000 * 10)
    assert not thread.is_alive(), "now_playing hung past 10x its deadline"
    return result, time.monotonic() - started


def test_listenbrainz_playing():
    with FakeUpstream() as lb:
        lb.route("/1/user/alice/playing-now", Reply(LB_PLAYING))
        result, _ = ask(lb_url=lb.url)
    assert result == {"song": {"artist": "Radiohead", "title": "Reckoner", "album": "In Rainbows",
                               "source": "listenbrainz"},
                      "source": "listenbrainz", "upstream_error": None}
    assert lb.requests[0]["headers"]["User-Agent"] == UA


def test_a_suggestion_holds_no_character_a_song_s_names_may_not():
    """An upstream's track name with a RIGHT-TO-LEFT OVERRIDE or a zero-width space is
    suggested without them: the suggestion is posted back as the entry's song, whose names
    refuse them (#36 6d)."""
    hidden = {"payload": {"count": 1, "playing_now": True, "listens": [{"track_metadata": {
        "artist_name": "\u202eRadio\u200bhead", "track_name": "Reck\u2066oner\u2069",
        "release_name": "In\u2028Rainbows\ufeff"}}]}}
    with FakeUpstream() as lb:
        lb.route("/1/user/alice/playing-now", Reply(hidden))
        result, _ = ask(lb_url=lb.url)
    assert result["song"] == {"artist": "Radiohead", "title": "Reckoner", "album": "In Rainbows",
                              "source": "listenbrainz"}


def test_listenbrainz_nothing_playing_and_unknown_user():
    with FakeUpstream() as lb:
        lb.route("/1/user/alice/playing-now", Reply(LB_NOTHING))
        lb.route("/1/user/ghost/playing-now", Reply({"code": 404, "error": "no user"}, 404))
        nothing, _ = ask(lb_url=lb.url)
        unknown, _ = ask(lb_url=lb.url, lb_user="ghost")
    assert nothing == {"song": None, "source": None, "upstream_error": None}
    assert unknown["song"] is None and "no user 'ghost'" in unknown["upstream_error"]


def test_lastfm_only_a_track_marked_nowplaying_counts():
    with FakeUpstream() as fm:
        fm.route("/2.0/", lambda req: Reply(FM_PLAYING if req["query"]["user"] == "alice"
                                            else FM_NOT_NOW))
        playing, _ = ask(fm_url=fm.url)
        not_now, _ = ask(fm_url=fm.url, fm_user="bob")
    assert playing["song"] == {"artist": "Björk", "title": "Jóga", "album": "Homogenic",
                               "source": "lastfm"}
    assert fm.requests[0]["query"] == {"method": "user.getrecenttracks", "user": "alice",
                                       "api_key": "k", "format": "json", "limit": "1"}
    assert not_now == {"song": None, "source": None, "upstream_error": None}


def test_lastfm_is_not_asked_without_an_api_key():
    with FakeUpstream() as fm:
        fm.route("/2.0/", Reply(FM_PLAYING))
        result, _ = ask(fm_url=fm.url, key="")
    assert result["song"] is None and fm.requests == []


@pytest.mark.parametrize("reply,expected", [
    (Reply({"error": "down"}, 503), "HTTP 503"),
    (Reply(raw=b"<html>oops</html>"), "not JSON"),
    (Reply({"unexpected": True}), "unexpected shape"),
])
def test_upstream_failures_become_an_error_message(reply, expected):
    with FakeUpstream() as lb:
        lb.route("/1/user/alice/playing-now", reply)
        result, _ = ask(lb_url=lb.url)
    assert result["song"] is None and expected in result["upstream_error"]


@pytest.mark.parametrize("behaviour", ["hang", "trickle"])
def test_a_silent_or_trickling_server_cannot_hold_the_request_past_the_deadline(behaviour):
    with FakeUpstream() as lb, FakeUpstream() as fm:
        lb.route("/1/user/alice/playing-now", Reply(LB_PLAYING, behaviour=behaviour))
        fm.route("/2.0/", Reply(FM_PLAYING, behaviour=behaviour))
        result, elapsed = ask(lb_url=lb.url, fm_url=fm.url)
    assert result["song"] is None and "deadline" in result["upstream_error"]
    # One deadline for everything asked, plus a small margin for thread hand-offs.
    assert elapsed < DEADLINE_MS / 1000 + 0.4, elapsed


def test_the_other_upstream_still_answers_when_one_hangs():
    with FakeUpstream() as lb, FakeUpstream() as fm:
        lb.route("/1/user/alice/playing-now", Reply(behaviour="hang"))
        fm.route("/2.0/", Reply(FM_PLAYING))
        result, _ = ask(lb_url=lb.url, fm_url=fm.url)
    assert result["source"] == "lastfm"


def test_now_playing_route_uses_the_users_settings(config, clock, make_user):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi
    from tests.conftest import PASSWORD
    from tests.wsgi import Client

    with FakeUpstream() as lb:
        lb.route("/1/user/alice_lb/playing-now", Reply(LB_PLAYING))
        services = bootstrap(config.with_overrides(listenbrainz_url=lb.url), clock=clock)
        make_user("alice")
        client = Client(make_wsgi(services))
        client.login("alice", PASSWORD)
        assert client.get("/api/now-playing").json["song"] is None
        client.patch("/api/me", {"listenbrainz_user": "alice_lb"})
        response = client.get("/api/now-playing").json
    assert response["song"]["title"] == "Reckoner"
    assert lb.requests[-1]["headers"]["User-Agent"] == services.config.user_agent
