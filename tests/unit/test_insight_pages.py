"""Year in pixels and stats pages, drawn on the server (issue #10)."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from kmood_lib.web import charts


@pytest.fixture
def alice(client_for, clock):
    clock.set(datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc))
    return client_for("alice", timezone="Europe/Berlin")


def cell(page: str, day: str) -> str:
    match = re.search(r'<td class="([^"]+)"><a href="/days/' + day, page)
    return match.group(1) if match else ""


def test_a_back_dated_entry_shows_in_its_day_with_a_link_to_that_day(alice):
    alice.post("/api/entries", {"mood": 5, "occurred_at": "2026-11-14T20:00:00", "note": "rad"})
    alice.post("/api/entries", {"mood": 2, "occurred_at": "2026-11-14T08:00:00", "note": "bad"})
    page = alice.get("/calendar").text
    assert cell(page, "2026-11-14") == "logged lv4"  # average 3.5 rounds to 4
    assert 'href="/days/2026-11-14"' in page
    assert "1 day logged" in page
    day = alice.get("/days/2026-11-14").text
    assert "rad" in day and "bad" in day


def test_empty_future_and_impossible_days_look_different(alice):
    page = alice.get("/calendar?year=2026").text
    rows = re.findall(r"<tr><th scope=\"row\">(\d+)</th>(.*?)</tr>", page, re.S)
    cells = {int(day): re.findall(r'<td class="([^"]+)"', body) for day, body in rows}
    assert cells[30][1] == "blank"  # February 30th does not exist
    assert cells[2][11] == "none" and cells[4][11] == "future"  # today is 3 December
    assert 'href="/calendar?year=2025"' in page
    assert 'href="/calendar?year=2027"' not in page  # never a year still to come (#23.3)
    assert alice.get("/calendar?year=1899").status == 404
    assert alice.get("/calendar?year=%C2%B2").status == 404


def test_the_stats_page_draws_accessible_charts(alice):
    for day, mood, acts in (("2026-11-02", 4, ["walk"]), ("2026-11-03", 2, []),
                            ("2026-11-20", 5, ["walk"]), ("2026-12-01", 3, [])):
        alice.post("/api/entries", {"mood": mood, "occurred_at": f"{day}T09:00:00",
                                    "activities": acts})
    page = alice.get("/stats?range=90").text
    assert page.count("<svg class=\"chart\"") == 4
    assert page.count("<title id=") == 4 and page.count("<desc id=") == 4
    assert 'Best week starting 16 Nov 2026 (5.00 · <bdi dir="auto">rad</bdi>)' in page  # #39
    # walk (2 days) is shown, marked as having few days, not left out (#39)
    assert ('<th scope="row"><span dir="auto">walk</span> <span class="tag muted">few days'
            '</span></th>') in page
    for key in ("30", "365", "all"):
        assert alice.get(f"/stats?range={key}").status == 200
    assert alice.get("/stats?range=nonsense").status == 200


def test_stats_with_no_entries_say_so(alice):
    assert "No entries yet. Log a few and come back." in alice.get("/stats").text


def test_imported_history_opens_where_its_entries_are(alice):
    """A 2023 export imported in December 2026 (#23.3): Year opens on 2023, Stats on all
    time, and an empty year or range says where the last entry is."""
    for day, mood in (("2023-03-02", 4), ("2023-09-14", 2)):
        assert alice.post("/api/entries", {"mood": mood, "occurred_at": f"{day}T09:00:00"}
                          ).status == 201
    year = alice.get("/calendar").text
    assert "<h1>2023</h1>" in year and "2 days logged" in year
    assert 'href="/calendar?year=2024"' in year  # forward to today, never past it
    assert "Nothing logged in 2026. Your last entry is from September 2023" in alice.get(
        "/calendar?year=2026").text
    stats_page = alice.get("/stats").text
    assert 'href="/stats?range=all" aria-current="page"' in stats_page
    assert "All time: <strong>2</strong> entries" in stats_page
    empty = alice.get("/stats?range=30").text
    assert "Your last entry is from 14 September 2023" in empty
    assert '<a href="/stats?range=all">see all time</a>' in empty


def test_hostile_names_are_escaped_in_charts_and_tables(alice):
    alice.patch("/api/moods/5", {"label": "<b>x</b>"})
    alice.post("/api/entries", {"mood": 5, "activities": ['"><svg onload=alert(1)>']})
    for path in ("/stats", "/calendar"):
        text = alice.get(path).text
        assert "<b>x</b>" not in text and "<svg onload" not in text, path


def test_a_week_without_entries_breaks_the_line_instead_of_joining_it():
    from datetime import date

    weeks = [{"start": "2026-11-02", "average": 4.0, "count": 1},
             {"start": "2026-11-09", "average": 3.0, "count": 1},
             {"start": "2026-11-23", "average": 5.0, "count": 1}]
    svg = charts.mood_over_time(weeks, [], date(2026, 11, 1), date(2026, 11, 30),
                                {i: str(i) for i in range(1, 6)})
    assert svg.count('class="line week"') == 2


def test_long_mood_labels_are_squeezed_onto_the_axis_never_cut():
    from datetime import date

    labels = {1: "awful", 2: "not great at all", 3: "meh", 4: "wonderful", 5: "rad"}
    svg = charts.mood_over_time([{"start": "2026-11-02", "average": 4.0, "count": 1}], [],
                                date(2026, 11, 1), date(2026, 11, 30), labels)
    squeezed = re.findall(r'<text [^>]*textLength="\d+" lengthAdjust="spacingAndGlyphs">'
                          r'([^<]*)</text>', svg)
    assert squeezed == ["not great at all", "wonderful"]
    assert ">awful</text>" in svg and ">rad</text>" in svg


def test_the_activity_table_leads_with_the_activities_that_have_evidence_and_pages(alice):
    """#23.4, #39: the insights' evidence rule orders the table: activities logged on at
    least 14 days and missing on as many come first, the biggest difference either way first;
    the rest after them, marked "few days" (a big difference on 6 days no longer leads); 20
    rows a page."""
    for i in range(30):
        acts = [f"often {k:02d}" for k in range(24) if (i + k) % 2 == 0] + (
            ["sad thing"] if i < 6 else []) + (["once"] if i == 0 else [])
        alice.post("/api/entries", {"mood": 1 if i < 6 else 4,
                                    "occurred_at": f"2026-11-{1 + i % 28:02d}T{8 + i // 28:02d}:00:00",
                                    "activities": acts})
    api = alice.get("/api/stats/activities?from=2026-09-01").json
    assert api["needed_days"] == 14
    by_name = {r["activity"]: r for r in api["activities"]}
    assert by_name["sad thing"]["days_with"] == 6 and not by_name["sad thing"]["enough"]
    assert by_name["often 00"]["enough"] and by_name["often 00"]["days_with"] >= 14
    assert [r["enough"] for r in api["activities"]] == sorted(
        (r["enough"] for r in api["activities"]), reverse=True)
    page = alice.get("/stats?range=90").text
    table = page.split('id="activities"')[1]
    rows = re.findall(r'<th scope="row"><span dir="auto">([^<]+?)</span>'
                      r'(?: <span class="tag muted">(few days)</span>)?</th>', table)
    assert len(rows) == 20 and all(name.startswith("often") and not few for name, few in rows)
    assert "Page 1 of 2" in page and "activities_page=2#activities" in page
    second = alice.get("/stats?range=90&activities_page=2").text.split('id="activities"')[1]
    rest = re.findall(r'<th scope="row"><span dir="auto">([^<]+?)</span>'
                      r'(?: <span class="tag muted">(few days)</span>)?</th>', second)
    assert [name for name, few in rest if few] == ["sad thing", "once"]
    assert len(rest) == 6 and not {n for n, _ in rest} & {n for n, _ in rows}
    assert alice.get("/stats?range=90&activities_page=99").status == 200


def test_weekday_and_hour_charts_show_differences_from_the_persons_mean(alice):
    """#23.4: seven bars of 2.2-2.3 from zero looked identical; now each weekday is drawn
    against the person's own average, with its entry count, and thin ones are left empty."""
    for day, mood, n in (("2026-11-02", 5, 4), ("2026-11-03", 1, 4), ("2026-11-04", 3, 1)):
        for i in range(n):  # 2 Nov 2026 is a Monday
            alice.post("/api/entries", {"mood": mood, "occurred_at": f"{day}T{9 + i:02d}:00:00"})
    page = alice.get("/stats?range=90").text
    assert "Mood by weekday, against your average" in page
    assert "Mon +2.00 (4 entries), Tue -2.00 (4 entries)." in page  # the mean is 3.00
    assert "Wed: too few entries (1)" in page
    assert '<text class="value"' in page and ">+2.0</text>" in page and ">-2.0</text>" in page
    assert "weekly average" in page and "monthly average" in page  # the visible key


def test_an_average_mood_wears_the_label_and_face_of_its_nearest_level(alice):
    """#38.9: "average mood 2.25" alone says little; beside it, the face and the person's own
    label of the level nearest it — in the summary, the weekday key and the activity table."""
    assert alice.request("PATCH", "/api/moods/2", json_body={"label": "low"}).status == 200
    for i, mood in enumerate([2, 2, 2, 3] * 3):
        alice.post("/api/entries", {"mood": mood, "activities": ["rain"] if mood == 2 else [],
                                    "occurred_at": f"2026-11-{10 + i:02d}T09:00:00"})
    page = alice.get("/stats?range=90").text
    summary = re.search(r"average mood <strong>(.*?)</strong>", page).group(1)
    assert summary.startswith('<span class="average">2.25 <span class="badge lv2">')
    assert summary.endswith(' <span dir="auto">low</span></span></span>')  # the person's words
    assert '<svg class="face"' in summary
    assert "better than your average (<span class=\"average\">2.2 <span class=\"badge lv2\">" \
        in page
    row = re.search(r'<th scope="row"><span dir="auto">rain</span>'
                    r'(?: <span class="tag muted">few days</span>)?</th>'
                    r'(.*?)</tr>', page, re.S).group(1)
    with_, without = re.findall(r'<td class="num">(.*?)</td>', row)[:2]
    assert with_.startswith('<span class="average">2.00 <svg class="face"')
    assert '<span class="skip"> (<span dir="auto">low</span>)</span>' in with_
    assert without.startswith('<span class="average">3.00 <svg class="face"')
    assert '<span class="skip"> (<span dir="auto">meh</span>)</span>' in without
    year = alice.get("/calendar?year=2026").text
    assert 'average mood <span class="average">2.2 <span class="badge lv2">' in year
    assert re.search(r'<div class="table-wrap card" role="region" aria-labelledby="impact-caption"'
                     r' tabindex="0">', page)  # its own tab stop where it scrolls (axe)


def test_the_level_nearest_an_average_rounds_half_up_and_stays_a_level():
    from kmood_lib.web.template_helpers import mood_level

    assert [mood_level(v) for v in (1.0, 1.49, 1.5, 2.25, 2.5, 3.5, 4.49, 5.0, 0.2, 7)] == [
        1, 1, 2, 2, 3, 4, 4, 5, 1, 5]
