"""The stats page's charts, drawn once per user, range, journal version, day and mood labels
(issue #27): a repeat visit is served from memory, any change to what they show draws them
again, and nobody is ever shown another person's."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from kmood_lib.journal.versions import ENTRY_BYTES, VersionedCache
from tests.helpers import multipart


@pytest.fixture
def alice(client_for, clock):
    clock.set(datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc))
    client = client_for("alice", timezone="Europe/Berlin")
    for day, mood in (("2026-11-30", 5), ("2026-12-01", 4), ("2026-12-02", 2)):
        assert client.post("/api/entries", {"mood": mood, "occurred_at": f"{day}T09:00:00",
                                            "activities": ["walk"]}).status == 201
    return client


def words(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)  # the person's labels are marked dir="auto"


def described(page: str) -> dict[str, str]:
    """Each chart's title -> its description in words (what a screen reader says)."""
    return {words(title): words(desc) for title, desc in re.findall(
        r'<title id="c[0-9a-f]+t">(.*?)</title><desc id="c[0-9a-f]+d">(.*?)</desc>', page)}


def distribution(page: str) -> str:
    return described(page)["How often each mood was logged"]


def test_a_repeat_visit_is_served_from_the_cache(alice, services):
    first = alice.get("/stats?range=30").text
    assert distribution(first) == "Entries per mood: rad 1, good 1, meh 0, bad 1, awful 0."
    assert services.stats_cache.computed == 1
    assert alice.get("/stats?range=30").text == first
    assert alice.get("/stats?range=30&activities_page=1").text == first
    assert (services.stats_cache.computed, services.stats_cache.found) == (1, 2)
    alice.get("/stats?range=90")  # another range is another drawing
    assert services.stats_cache.computed == 2


def _new_entry(client, services):
    assert client.post("/api/entries", {"mood": 1, "occurred_at": "2026-12-03T08:00:00"}
                       ).status == 201


def _edit(client, services):
    entry = client.get("/api/entries?limit=1").json["entries"][0]
    assert client.patch(f"/api/entries/{entry['id']}", {"mood": 1}).status == 200


def _delete(client, services):
    entry = client.get("/api/entries?limit=1").json["entries"][0]
    assert client.delete(f"/api/entries/{entry['id']}").status == 204


def _import(client, services):
    csv = (b"full_date,date,weekday,time,mood,activities,note_title,note\n"
           b"2026-11-20,,,09:00,awful,walk,,\n")
    body, content_type = multipart({}, {"file": csv})
    assert client.request("POST", "/api/import/daylio", body=body,
                          content_type=content_type).status == 200


def _rename_a_mood(client, services):
    assert client.patch("/api/moods/5", {"label": "splendid"}).status == 200


@pytest.mark.parametrize("change, now_shown", [
    (_new_entry, "Entries per mood: rad 1, good 1, meh 0, bad 1, awful 1."),
    (_edit, "Entries per mood: rad 1, good 1, meh 0, bad 0, awful 1."),
    (_delete, "Entries per mood: rad 1, good 1, meh 0, bad 0, awful 0."),
    (_import, "Entries per mood: rad 1, good 1, meh 0, bad 1, awful 1."),
    (_rename_a_mood, "Entries per mood: splendid 1, good 1, meh 0, bad 1, awful 0."),
], ids=["new entry", "edit", "delete", "import", "mood label renamed"])
def test_a_change_to_what_the_charts_show_draws_them_again(alice, services, change, now_shown):
    before = alice.get("/stats?range=30").text
    change(alice, services)
    after = alice.get("/stats?range=30").text
    assert distribution(after) == now_shown
    assert services.stats_cache.computed == 2
    if change is _rename_a_mood:  # the mood axis of the chart over time is labelled too
        assert ">splendid</text>" in after and ">splendid</text>" not in before


def test_another_language_draws_the_charts_again_in_its_words(alice, services):
    """The charts' words are the page's language: a German page never shows the English
    drawing kept for the same journal (nor the English one the German)."""
    weekdays = re.compile(r'<text x="[\d.]+" y="224" text-anchor="middle">([^<]*)</text>')
    english = alice.get("/stats?range=30").text
    assert alice.patch("/api/me", {"language": "de"}).status == 200
    german = alice.get("/stats?range=30").text
    assert weekdays.findall(english)[:7] == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    assert weekdays.findall(german)[:7] == ["Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"]
    assert services.stats_cache.computed == 2
    assert alice.patch("/api/me", {"language": "en"}).status == 200
    assert alice.get("/stats?range=30").text == english and services.stats_cache.computed == 2


def test_a_new_day_draws_the_charts_again(alice, services, clock):
    """Today moves the ranges and the streaks, without any write to the journal."""
    assert "Current streak 3 days, longest 3" in alice.get("/stats?range=30").text
    clock.set(clock.now() + timedelta(days=2))
    assert "Current streak 0 days, longest 3" in alice.get("/stats?range=30").text
    assert services.stats_cache.computed == 2


def test_another_user_never_sees_the_charts_cached_for_the_first(alice, client_for, conn,
                                                                services):
    bob = client_for("bob", timezone="Europe/Berlin")
    assert bob.post("/api/entries", {"mood": 3, "occurred_at": "2026-12-02T10:00:00"}
                    ).status == 201
    alice_page = alice.get("/stats?range=30").text
    # the same range, day, mood labels and journal version number: only the user differs
    conn.execute("UPDATE journal_versions SET version = (SELECT j.version FROM journal_versions"
                 " j JOIN users u ON u.id = j.user_id WHERE u.username = 'alice') WHERE user_id ="
                 " (SELECT id FROM users WHERE username = 'bob')")
    bob_page = bob.get("/stats?range=30").text
    assert distribution(bob_page) == "Entries per mood: rad 0, good 0, meh 1, bad 0, awful 0."
    assert distribution(alice_page) != distribution(bob_page)
    assert services.stats_cache.computed == 2


def test_the_cache_keeps_only_the_most_recently_used_answers():
    # three answers fit: each is counted 100 bytes of key, 100 of chart and the bookkeeping
    cache, drawn = VersionedCache(3 * (200 + ENTRY_BYTES), size_of=lambda _: 100), []

    def draw(key):
        drawn.append(key)
        return f"chart {key}"

    for key in ("a", "b", "c", "d"):
        assert cache.get_or_compute((key,), lambda key=key: draw(key)) == f"chart {key}"
    assert len(cache) == 3 and cache.computed == 4
    assert cache.get_or_compute(("b",), lambda: draw("b")) == "chart b"  # kept, and now fresh
    assert cache.computed == 4 and cache.found == 1
    cache.get_or_compute(("e",), lambda: draw("e"))  # pushes out "c", the least recently used
    cache.get_or_compute(("a",), lambda: draw("a"))  # "a" went first: drawn again
    assert drawn == ["a", "b", "c", "d", "e", "a"] and len(cache) == 3
    cache.get_or_compute(("b",), lambda: draw("b"))
    assert drawn[-1] == "a" and cache.found == 2
