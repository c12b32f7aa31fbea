"""Stats charts a person can read (#39): the axis starts where the history does, no "-0.0",
averages with their mood's label, and Stats and Insights open on the same range."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from kmood_lib.web import charts
from kmood_lib.web.template_helpers import decimal


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
                                    {"label": "Tue", "value": 3.5, "count": 5}], 3.0, "t", "d")
    assert ">0.0</text>" in diffs and ">+0.5</text>" in diffs
    assert not re.search(r"[-+]0\.0+(?!\d)", diffs)
    assert "Mon: 2.99, -0.01 from your average" in diffs


def test_an_activity_with_no_difference_reads_zero_without_a_sign_or_an_arrow(alice):
    for day, acts in (("2026-11-02", ["tea"]), ("2026-11-03", [])):
        alice.post("/api/entries", {"mood": 3, "occurred_at": f"{day}T09:00:00",
                                    "activities": acts})
    row = re.search(r'<th scope="row">tea.*?</tr>', alice.get("/stats?range=90").text,
                    re.S).group(0)
    assert re.findall(r'<td class="num ?([a-z]*)">([^<]*)</td>', row) == [("", "0.00")]
