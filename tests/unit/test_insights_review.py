"""Review of Insights (#25): each test shows one problem found in review (they fail on the
reviewed commit)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from kmood_lib.journal import insights
from kmood_lib.journal.insights import Journal, Thresholds, Trait
from tests.insight_data import Plan, index_notes, plant
from tests.unit.test_insights import FOREVER, TODAY, alice, uid  # noqa: F401 - fixtures


def _entry(conn, uid: int, day: date, mood: int) -> int:
    at_ms = int(datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc).timestamp()
                * 1000)
    return conn.execute(
        "INSERT INTO entries (user_id, occurred_at, utc_offset_s, local_date, local_minute,"
        " mood, source, created_at, updated_at) VALUES (?, ?, 0, ?, 720, ?, 'test', 0, 0)"
        " RETURNING id", (uid, at_ms, day.isoformat(), mood)).fetchone()[0]


# 1 --------------------------------------------------------------------------------------

def test_a_journal_spanning_more_than_65535_days_is_answered_not_a_500(alice, conn, uid):
    """Entries are allowed from 1900 to 2200; 30 days in 1900 and one in 2200 make the
    range's span ~110 000 days, and resampling.bootstrap raises ValueError -> 500."""
    known = conn.execute("SELECT coalesce(max(id), 0) FROM entries").fetchone()[0]
    for i in range(30):
        _entry(conn, uid, date(1900, 1, 1) + timedelta(days=i), 1 + i % 5)
    _entry(conn, uid, date(2200, 1, 1), 3)
    index_notes(conn, known)
    conn.commit()
    answer = alice.get("/api/insights?from=1900-01-01&to=2200-12-31")
    assert answer.status == 200, answer.status


# 2 --------------------------------------------------------------------------------------

def test_the_page_never_says_certain(alice, conn, uid):
    """SPEC §11: never "certain". With enough days and nothing found, the page says
    "...with enough certainty" (templates/insights.tpl)."""
    plant(conn, uid, seed=7, plan=Plan(days=60, noise=2, running_share=0.5, weather=False))
    conn.execute("UPDATE entries SET mood = 3")  # nothing can stand out
    conn.commit()
    page = alice.get("/insights").text
    assert "Nothing stands out clearly yet" in page
    assert "certain" not in page.lower()


# 3 --------------------------------------------------------------------------------------

def test_renaming_a_mood_label_shows_in_on_this_day_at_once(alice, conn, uid):
    """The cached answer holds whole entries (on_this_day) with their mood label, but
    mood_labels has no journal-version trigger: the old label is served after a rename."""
    assert alice.post("/api/entries", {"mood": 4, "occurred_at": "2025-12-04T10:00:00Z"}
                      ).status == 201
    first = alice.get("/api/insights").json["on_this_day"][0]["entry"]
    assert first["mood_label"] == "good"
    assert alice.patch("/api/moods/4", {"label": "great"}).status == 200
    assert alice.get("/api/entries").json["entries"][0]["mood_label"] == "great"  # the truth
    again = alice.get("/api/insights").json["on_this_day"][0]["entry"]
    assert again["mood_label"] == "great"


def test_song_metadata_found_by_the_worker_shows_in_on_this_day_at_once(alice, conn, uid):
    """Worker enrichment writes song_lookups (and covers), which the entry JSON in
    on_this_day reads, but raises no journal version: the cached page keeps "song": null
    metadata until some other write."""
    assert alice.post("/api/entries", {"mood": 4, "occurred_at": "2025-12-04T10:00:00Z",
                                       "song": {"artist": "Artist", "title": "Title"}}
                      ).status == 201
    first = alice.get("/api/insights").json["on_this_day"][0]["entry"]
    assert first["song"]["metadata"] is None, first["song"]
    # what enrich/song_metadata.py writes when MusicBrainz finds the recording
    conn.execute("INSERT INTO song_lookups (lookup_key, found, recording_mbid, release_mbid,"
                 " release_title, fetched_at) SELECT lookup_key, 1, 'rec-1', 'rel-1',"
                 " 'Album', 0 FROM songs")
    conn.commit()
    fresh = insights.insights(conn, uid, "2025-12-04", "2026-12-04", TODAY)
    assert fresh["on_this_day"][0]["entry"]["song"]["metadata"] is not None  # the truth
    again = alice.get("/api/insights").json["on_this_day"][0]["entry"]
    assert again["song"]["metadata"] is not None, again["song"]


# 4 --------------------------------------------------------------------------------------

def test_large_finite_metric_values_do_not_crash_the_slope(alice, conn, uid):
    """Metric values are any finite number (validation.number); Theil–Sen's group means use
    statistics.fmean, whose fsum overflows on a few values near 1e308 -> OverflowError -> 500.
    """
    plant(conn, uid, seed=3, plan=Plan(days=400, noise=0, weather=False, sleep=True))
    conn.execute("UPDATE entry_metrics SET value = value * 1.5e307")  # sleep <= 11 h: finite
    conn.commit()
    answer = alice.get("/api/insights")
    assert answer.status == 200, answer.status


# 5 --------------------------------------------------------------------------------------

def test_unnamed_places_are_not_lumped_together_as_a_place_called_question_mark(conn, uid):
    """_read_places labels every place without a locality or display name "?" and merges
    them: different unnamed cells become one "place" compared (and shown) as "?"."""
    plant(conn, uid, seed=2, plan=Plan(days=60, noise=0, weather=False))
    conn.execute("INSERT INTO places (cell, unavailable, fetched_at) VALUES ('c1', 0, 0),"
                 " ('c2', 0, 0), ('c3', 0, 0)")
    conn.execute("INSERT INTO places (cell, locality, country_code, unavailable, fetched_at)"
                 " VALUES ('c4', 'Berlin', 'DE', 0, 0)")
    ids = [r[0] for r in conn.execute("SELECT id FROM entries WHERE user_id = ? ORDER BY id",
                                      (uid,))]
    conn.executemany("INSERT INTO entry_places (entry_id, cell) VALUES (?, ?)",
                     [(entry, f"c{1 + i % 4}") for i, entry in enumerate(ids)])
    conn.commit()
    found = insights.insights(conn, uid, *FOREVER, TODAY)
    names = {r["name"] for r in found["not_enough"] + found["comparisons"]
             if r["kind"] == "place"}
    assert "?" not in names, names


# 6 --------------------------------------------------------------------------------------

def test_since_you_started_placebo_cuts_do_not_reuse_the_real_windows():
    """_since's docstring: placebo cuts whose windows do not overlap the real one. The
    filter is abs(at - cut) >= window, but two windows of 2*window days overlap unless
    abs(at - cut) >= 2*window: the cut at cut+window uses the real 'after' days as its
    'before' and so counts the real change against itself. Here the only change in 300
    days is the one after the start, yet p is 2/23 instead of the least possible."""
    moods = {p: (5.0 if 150 <= p < 220 else 3.0) for p in range(300)}
    journal = Journal(dates={p: date(2026, 1, 1) + timedelta(days=p) for p in moods},
                      position={}, span=300, moods=moods, known={"all": set(moods)})
    trait = Trait("activity", "yoga", {150, 160, 170}, "all", started=150)
    asked = insights._since(journal, trait, Thresholds())
    assert asked is not None and asked.answer.effect == pytest.approx(2.0)
    # every placebo cut sharing no day with the real windows changes nothing at all
    assert asked.answer.p <= 1 / 21, asked.answer


# 7 --------------------------------------------------------------------------------------

def test_the_resampling_work_follows_the_logged_days_not_the_calendar_span(conn, uid):
    """60 logged days, 30 in 1900 and 30 in 2064: laid out on ~60 positions, not the
    ~60 000 calendar days between them (measured 13.7 s for one cold /api/insights before)."""
    for i in range(30):
        _entry(conn, uid, date(1900, 1, 1) + timedelta(days=i), 1 + i % 5)
        _entry(conn, uid, date(2064, 1, 1) + timedelta(days=i), 1 + (i * 3) % 5)
    conn.commit()
    journal = insights.read_journal(conn, uid, "1900-01-01", "2100-01-01")
    assert journal.span <= 10 * 60, f"{journal.span} positions for 60 logged days"
    assert len(journal.moods) == 60
