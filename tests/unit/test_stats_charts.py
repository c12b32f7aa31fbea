"""Stats charts a person can read (#39): the axis starts where the history does, no "-0.0",
averages with their mood's label, and Stats and Insights open on the same range."""

from __future__ import annotations

import re
from datetime import date, datetime, timezone

import pytest

from kmood_lib.journal.stats import continuous_from
from kmood_lib.web import charts
from kmood_lib.web.stats_charts import left_off_note
from kmood_lib.web.template_helpers import decimal
from tests.insight_data import Plan, plant


@pytest.fixture
def alice(client_for, clock):
    clock.set(datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc))
    return client_for("alice", timezone="Europe/Berlin")


def log(client, day: str, mood: int, hour: int = 9) -> None:
    assert client.post("/api/entries", {"mood": mood, "occurred_at": f"{day}T{hour:02d}:00:00"}
                       ).status == 201


def test_a_value_that_rounds_to_zero_prints_as_zero_never_minus_zero():
    assert [decimal(v, 1) for v in (-0.04, -0.0, 0.04, 0.0, -0.05, 2.25)] == [
        "0.0", "0.0", "0.0", "0.0", "-0.1", "2.2"]
    assert [decimal(v, 2, sign=True) for v in (-0.004, 0.004, -0.03, 0.5)] == [
        "0.00", "0.00", "-0.03", "+0.50"]
    assert decimal(-0.4, 0) == "0" and decimal(7, 0) == "7"


def test_weekday_bars_never_show_minus_zero(alice):
    """A weekday 0.03 below the mean was labelled "-0.0" above its (invisible) bar."""
    for day in ("2026-11-02", "2026-11-09", "2026-11-16"):  # Mondays: 3, 3, 3
        log(alice, day, 3)
    for i in range(25):  # Tuesdays and Wednesdays: 25 entries of 3 and one of 4
        log(alice, f"2026-11-{3 + 7 * (i % 4):02d}", 3, hour=8 + i // 4)
    log(alice, "2026-11-04", 4)
    page = alice.get("/stats?range=90").text
    weekday = page.split("<h2>By weekday</h2>")[1].split("</section>")[0]
    labels = re.findall(r'<text class="value"[^>]*>([^<]*)</text>', weekday)
    assert labels and "-0.0" not in labels and "+0.0" not in labels, labels
    assert "0.0" in labels  # Monday: 3.00 against 3.03; Tuesday: 3.00 too
    assert "Mon -0.03 (3 entries)" in weekday and "-0.00" not in weekday
    assert not re.search(r"[-+]0\.0+(?!\d)", weekday), weekday


def test_every_chart_label_goes_through_the_one_number_format():
    items = [{"label": "a", "value": -0.001}, {"label": "b", "value": 1.0}]
    assert ">0.00</text>" in charts.bars(items, "t", "d", digits=2)
    assert "-0.00" not in charts.bars(items, "t", "d", digits=2)
    diffs = charts.difference_bars([{"label": "Mon", "value": 2.99, "count": 5},
                                    {"label": "Tue", "value": 3.5, "count": 5}], 3.0, "t", "d",
                                   labels={1: "awful", 2: "bad", 3: "meh", 4: "good", 5: "rad"})
    assert ">0.0</text>" in diffs and ">+0.5</text>" in diffs
    assert not re.search(r"[-+]0\.0+(?!\d)", diffs)
    assert 'Mon: 2.99 · <bdi dir="auto">meh</bdi>, -0.01 from your average' in diffs


def test_an_activity_with_no_difference_reads_zero_without_a_sign_or_an_arrow(alice):
    for day, acts in (("2026-11-02", ["tea"]), ("2026-11-03", [])):
        alice.post("/api/entries", {"mood": 3, "occurred_at": f"{day}T09:00:00",
                                    "activities": acts})
    row = re.search(r'<th scope="row"><span dir="auto">tea</span>.*?</tr>',
                    alice.get("/stats?range=90").text,
                    re.S).group(0)
    assert re.findall(r'<td class="num ?([a-z]*)">([^<]*)</td>', row) == [("", "0.00")]


def uid_of(conn, name: str) -> int:
    return conn.execute("SELECT id FROM users WHERE username = ?", (name,)).fetchone()[0]


def test_the_history_is_continuous_after_the_last_long_gap_with_few_days_before_it():
    daily = list(range(1000, 1100))
    assert continuous_from([1, 2, 3] + daily) == 3  # 3 of 103 days, then 997 days of nothing
    assert continuous_from([1, 300, 600] + daily) == 3  # the last such gap, not the first
    assert continuous_from(list(range(1, 21)) + daily) == 0  # 20 of 120 days: too many to leave
    assert continuous_from([1000 - 91] + daily) == 1 and continuous_from([1000 - 90] + daily) == 0
    assert continuous_from(daily) == continuous_from([]) == continuous_from([5]) == 0
    assert continuous_from([1, 1000]) == 0  # two days: neither is a small share


def test_the_note_says_what_is_left_off_in_words():
    assert left_off_note(5, date(2015, 3, 2), date(2015, 6, 1), date(2023, 4, 5)) == (
        "5 earlier entries from March 2015 to June 2015, before a gap of 8 years, are not drawn.")
    assert left_off_note(1, date(2022, 1, 9), date(2022, 1, 9), date(2022, 5, 20)) == (
        "1 earlier entry from January 2022, before a gap of 4 months, is not drawn.")


def test_all_time_starts_where_an_imported_history_becomes_continuous(alice, conn):
    """A Daylio import: 5 entries from 2015 and eight months from 2023 drew the eight months in
    the axis's last 5 %; now the axis starts in April 2023 and a note (in the chart's
    description too) says what is not drawn."""
    plant(conn, uid_of(conn, "alice"), seed=3, plan=Plan(days=240, noise=0, weather=False),
          last=date(2023, 11, 30))  # 5 April to 30 November 2023, one entry a day
    for day in ("2015-03-02", "2015-03-20", "2015-04-11", "2015-05-05", "2015-06-01"):
        log(alice, day, 4)
    page = alice.get("/stats").text
    assert 'href="/stats?range=all" aria-current="page"' in page
    assert "All time: <strong>245</strong> entries" in page  # the figures keep every entry
    chart = re.search(r"<h2>Mood over time</h2>(.*?)</div>", page, re.S).group(1)
    note = ("5 earlier entries from March 2015 to June 2015, before a gap of 8 years, are not"
            " drawn.")
    assert f'<p class="chart-note">{note}</p>' in chart
    desc = re.sub(r"<[^>]+>", "", re.search(r"<desc [^>]*>(.*?)</desc>", chart).group(1))
    assert desc.startswith("35 weeks with entries between 5 Apr 2023 and 30 Nov 2023.")
    assert desc.endswith(f" {note}")
    assert "2015" not in chart.replace(note, "")  # neither a dot nor a tick from 2015
    ticks = re.findall(r'<text x="[\d.]+" y="218" text-anchor="middle">([^<]*)</text>', chart)
    assert ticks == ["May 2023", "Jul", "Sep", "Nov"]  # the first says the year
    dots = [float(x) for x in re.findall(r'<circle class="dot" cx="([\d.]+)"', chart)]
    assert len(dots) == 35 and dots[0] <= charts.LEFT + 1 and dots[-1] >= charts.WIDTH - 20


def test_a_history_without_a_long_gap_is_drawn_from_its_first_day(alice):
    for day in ("2026-06-01", "2026-08-25", "2026-11-01", "2026-11-02"):
        log(alice, day, 3)
    page = alice.get("/stats?range=all").text
    assert 'class="chart-note"' not in page
    assert "4 weeks with entries between 1 Jun 2026 and 2 Nov 2026." in page


def ranges_on(page: str) -> tuple[list[str], str]:
    """The range names a page lists, in order, and the one it is on."""
    nav = re.search(r'<nav class="ranges"[^>]*>(.*?)</nav>', page, re.S).group(1)
    links = re.findall(r'aria-current="(page|false)">([^<]+)</a>', nav)
    return [name for _, name in links], next(name for on, name in links if on == "page")


def test_stats_and_insights_list_their_ranges_shortest_first_and_open_on_the_same_one(
        alice, client_for):
    """Insights opened on all time and listed it first while Stats opened on 90 days (#39):
    both now open on opening_range's choice, the last 90 days, or all time once the last
    entry is older than that."""
    log(alice, "2026-11-20", 4)
    stats_names, stats_on = ranges_on(alice.get("/stats").text)
    insight_names, insights_on = ranges_on(alice.get("/insights").text)
    assert stats_names == ["Last 30 days", "Last 90 days", "Last year", "All time"]
    assert insight_names == ["Last 90 days", "Last year", "All time"]
    assert stats_on == insights_on == "Last 90 days"
    bob = client_for("bob", timezone="Europe/Berlin")
    log(bob, "2026-09-04", 4)  # 90 days before today, 3 December
    assert ranges_on(bob.get("/stats").text)[1] == ranges_on(
        bob.get("/insights").text)[1] == "All time"
    assert ranges_on(bob.get("/insights?range=nonsense").text)[1] == "All time"
    assert ranges_on(alice.get("/insights?range=nonsense").text)[1] == "Last 90 days"


def test_the_way_from_stats_to_insights_and_back_keeps_the_range(alice):
    log(alice, "2026-11-20", 4)
    assert 'href="/insights?range=365"' in alice.get("/stats?range=365").text
    assert 'href="/insights?range=all"' in alice.get("/stats?range=all").text
    assert 'href="/insights">' in alice.get("/stats?range=30").text  # Insights has no 30 days
    assert 'href="/stats?range=365">‹ Stats</a>' in alice.get("/insights?range=365").text


def test_every_average_mood_in_the_stats_charts_says_its_mood_label(alice, conn):
    """#39: "2.25" alone says little. In every chart's words (titles and descriptions) an
    average mood has its nearest label beside it; in the drawings, the weekday line's mean
    has its label under it, mood bars stand against the labelled mood axis in their level's
    colour, and places and artists have the label after the value."""
    alice.request("PATCH", "/api/moods/3", json_body={"label": "so-so"})
    plant(conn, uid_of(conn, "alice"), seed=5,
          plan=Plan(days=80, noise=0, places=3, artists=2, entries_per_day=(1, 2)))
    page = alice.get("/stats?range=90").text
    said = [re.sub(r"<[^>]+>", "", words)  # the person's labels are marked dir="auto"
            for _, words in re.findall(r"<(title|desc)[^>]*>(.*?)</\1>", page, re.S)]
    bare = [s for s in said for n in re.findall(r"(?<![\d.+\-−])[1-5]\.\d+(?!\d)(?! · )", s)]
    assert said and bare == [], bare
    assert re.search(r'your average of \d\.\d\d · <bdi dir="auto">(bad|so-so|good)</bdi>', page)
    weekday = page.split("<h2>By weekday</h2>")[1].split("</section>")[0]
    mean = re.search(r'text-anchor="end">(\d\.\d)</text><text [^>]*text-anchor="end"'
                     r'(?: textLength="\d+" lengthAdjust="spacingAndGlyphs")?>([^<]+)</text>',
                     weekday)
    level_of = {"awful": 1, "bad": 2, "so-so": 3, "good": 4, "rad": 5}
    assert mean and abs(level_of[mean.group(2)] - float(mean.group(1))) <= 0.55, weekday
    for section in ("By temperature", "By conditions"):
        chart = page.split(f"<h3>{section}</h3>")[1].split("</section>")[0]
        assert ">awful</text>" in chart and ">rad</text>" in chart, section  # the mood axis
        bars = re.findall(r'<rect class="bar lv(\d)"[^>]*><title>[^:]+: (\d\.\d) · '
                          r'<bdi dir="auto">([^<]+)</bdi>', chart)
        assert len(bars) >= 3, section
        for level, value, label in bars:  # the colour and the label: the level nearest it
            assert abs(int(level) - float(value)) <= 0.55 and level_of[label] == int(level)
    for section in ("Places", "Music"):
        chart = page.split(f"<h2>{section}</h2>")[1].split("</section>")[0]
        rows = re.findall(r'<text class="value"[^>]*>(\d\.\d)</text><text [^>]*>([^<]+)</text>'
                          r'<text [^>]*>\((\d+)\)</text>', chart)
        assert rows, section
        assert all(abs(level_of[label] - float(v)) <= 0.55 for v, label, _ in rows), rows


def test_a_time_axis_label_by_the_right_edge_ends_at_its_tick_instead_of_being_cut_off():
    weeks = [{"start": "2026-11-02", "average": 3.0, "count": 2},
             {"start": "2026-11-30", "average": 4.0, "count": 3}]
    svg = charts.mood_over_time(weeks, [], date(2026, 11, 7), date(2026, 12, 6), {})
    axis_y = charts.HEIGHT - 12
    ticks = re.findall(rf'<text x="([0-9.]+)" y="{axis_y}" text-anchor="(\w+)">([^<]+)</text>',
                       svg)
    assert [(anchor, label) for _, anchor, label in ticks] == [("middle", "7 Nov"),
                                                               ("end", "6 Dec")]
    assert float(ticks[-1][0]) <= charts.WIDTH - charts.RIGHT  # ends inside the drawing
