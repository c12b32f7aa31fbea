"""The log and edit form for one thumb (issue #38): the date as one line that opens, editing
shows the entry's own activities with the most used and folds the rest, the new-activities box
after the note; all of it in the page as served, so it works without JavaScript."""

from __future__ import annotations

import re

import pytest

from tests.unit.test_journal_pages import csrf_of, post_form


def shown_and_folded(page: str) -> tuple[list[str], list[str]]:
    """The activities offered before the fold and inside it, as (name, ticked) in page order."""
    form = page[page.index('id="entry-form"'):page.index("</form>")]
    before, _, folded = form.partition('<details class="more-activities"')
    chip = re.compile(r'<input type="checkbox" name="activity" value="([^"]+)"[^>]*?( checked)?>')
    return ([(name, bool(on)) for name, on in chip.findall(before)],
            [(name, bool(on)) for name, on in chip.findall(folded)])


@pytest.fixture
def many(client_for):
    """30 activities; "used 00" .. "used 13" logged 14 .. 1 times, the rest never."""
    client = client_for("mia")
    for i in range(30):
        assert client.post("/api/activities", {"name": f"used {i:02d}" if i < 14
                                               else f"rare {i:02d}"}).status == 201
    for i in range(14):
        for _ in range(14 - i):
            client.post("/api/entries", {"mood": 3, "activities": [f"used {i:02d}"],
                                         "occurred_at": "2026-10-01T09:00:00Z"})
    return client


def test_a_new_entry_offers_the_twelve_most_used_and_folds_the_rest(many):
    page = many.get("/").text
    shown, folded = shown_and_folded(page)
    assert shown == [(f"used {i:02d}", False) for i in range(12)]
    assert len(folded) == 18 and not any(on for _, on in folded)
    assert re.search(r'<details class="more-activities" data-remember="more">', page)  # closed
    # New ones are typed after the note: out of the thumb's way, never out of reach.
    assert page.index('name="note"') < page.index('name="new_activities"') < page.index(
        "save-bar")


def test_with_few_activities_the_new_box_follows_them(client_for):
    few = client_for("fey")
    few.post("/api/activities", {"name": "walk"})
    page = few.get("/").text
    assert page.index('value="walk"') < page.index('name="new_activities"') < page.index(
        'name="note"')


def test_an_edited_entry_shows_its_own_activities_first_and_fills_up_with_the_most_used(many):
    own = ["rare 20", "rare 29", "used 13"]
    entry = many.post("/api/entries", {"mood": 4, "activities": own}).json
    shown, folded = shown_and_folded(many.get(f"/entries/{entry['id']}/edit").text)
    assert shown == [(name, True) for name in own] + [(f"used {i:02d}", False) for i in range(9)]
    assert len(folded) == 18 and not any(on for _, on in folded)


def test_an_entry_with_more_activities_than_the_usual_twelve_shows_them_all(many):
    own = [f"rare {i:02d}" for i in range(14, 28)]
    entry = many.post("/api/entries", {"mood": 4, "activities": own}).json
    shown, folded = shown_and_folded(many.get(f"/entries/{entry['id']}/edit").text)
    assert shown == [(name, True) for name in own]
    assert len(folded) == 16


def test_a_form_shown_again_keeps_what_was_ticked_in_sight(many):
    page = many.get("/").text
    refused = post_form(many, "/entries", [("activity", "rare 25"), ("date", "2026-11-30")],
                        csrf_of(page))  # no mood
    assert refused.status == 422
    shown, _ = shown_and_folded(refused.text)
    assert shown[0] == ("rare 25", True) and len(shown) == 12


def when_line(page: str) -> str:
    return re.search(r'<span id="when-text">([^<]*)</span>', page).group(1)


def test_the_date_line_says_now_on_a_new_entry_and_the_day_it_holds_elsewhere(client_for):
    """The clock of these tests stands at 30 Nov 2026, 12:00 UTC; Bea lives in Berlin."""
    bea = client_for("bea", timezone="Europe/Berlin")
    page = bea.get("/").text
    assert when_line(page) == "Now"
    assert re.search(r'<details class="when" id="when">\s*<summary>', page)  # closed
    assert 'name="date" value="2026-11-30" required' in page  # inside it, for a no-JS post
    for occurred, shown in (("2026-11-29T21:15:00+01:00", "Yesterday, 21:15"),
                            ("2026-11-30T08:05:00+01:00", "Today, 08:05"),
                            ("2026-03-01T09:00:00+01:00", "Sun 1 Mar 2026, 09:00")):
        entry = bea.post("/api/entries", {"mood": 3, "occurred_at": occurred}).json
        assert when_line(bea.get(f"/entries/{entry['id']}/edit").text) == shown
    refused = post_form(bea, "/entries", [("mood", "3"), ("date", "2026-02-30"),
                                          ("time", "10:00")], csrf_of(page))
    assert refused.status == 422
    assert when_line(refused.text) == "2026-02-30, 10:00"  # what was typed, shown open
    assert '<details class="when" id="when" open>' in refused.text


def test_a_template_is_one_control_beside_the_note(client_for):
    ann = client_for("ann")
    for i in range(9):
        ann.post("/api/templates", {"name": f"Template {i}", "note": f"words {i}"})
    page = ann.get("/").text
    picker = page[page.index('<details class="use-template">'):]
    picker = picker[:picker.index("</details>")]
    assert "<summary>Use a template</summary>" in picker
    assert len(re.findall(r'<a class="chip-link" href="/\?template=\d+"', picker)) == 9
    assert page.index('<label for="note">Note</label>') < page.index("use-template") < (
        page.index('<textarea id="note" name="note"'))
