"""Back to where you were, without JavaScript (issue #38.3): an edit or delete form opened from
History (filters, page), a day or the log page carries a checked `back` field, and its 303
goes back there, at the entry or its neighbour; anything else in `back` is ignored. And the
day view, History's month jump and its folded filter summary (#38.4)."""

from __future__ import annotations

import html
import re
import urllib.parse

import pytest

from kmood_lib.web.back import MAX_BACK, checked_back
from tests.unit.test_journal_pages import csrf_of, post_form

MARCH = "/entries?from=2025-03-01&to=2025-03-31"


@pytest.fixture
def alice(client_for):
    client = client_for("alice", timezone="Europe/Berlin")
    ids = []
    for day in range(1, 32):  # a March with two entries a day, and a few around it
        for hour in (9, 20):
            ids.append(client.post("/api/entries", {
                "mood": 1 + (day + hour) % 5, "note": f"march {day} at {hour}",
                "occurred_at": f"2025-03-{day:02d}T{hour:02d}:00:00"}).json["id"])
    for when in ("2025-02-10T12:00:00", "2025-04-20T12:00:00", "2024-03-03T12:00:00"):
        client.post("/api/entries", {"mood": 3, "occurred_at": when})
    client.ids = ids
    return client


def link(page: str, text: str) -> str:
    """The href of the first link whose text starts with `text`, unescaped."""
    return html.unescape(re.search(r'<a [^>]*href="([^"]+)"[^>]*>' + text, page).group(1))


def back_field(page: str) -> str:
    return html.unescape(re.search(r'name="back" value="([^"]*)"', page).group(1))


def test_saving_from_a_filtered_page_of_history_goes_back_to_that_page_at_the_entry(alice):
    first = alice.get(MARCH + "&mood=3&mood=4&mood=5").text
    second_page = link(first, "Older entries")
    assert "cursor=" in second_page
    listed = alice.get(second_page + "&done=saved").text  # a notice is not part of the page
    entry_id = int(re.search(r'id="entry-(\d+)"', listed).group(1))
    edit = alice.get(link(listed, "Edit"))
    assert edit.status == 200 and back_field(edit.text) == second_page
    fields = [("mood", "2"), ("note", "changed"), ("date", "2025-03-05"), ("time", "09:00"),
              ("back", back_field(edit.text))]
    saved = post_form(alice, f"/entries/{entry_id}/edit", fields, csrf_of(edit.text))
    assert saved.status == 303
    assert saved.headers["Location"] == f"{second_page}&done=saved#entry-{entry_id}"
    assert alice.get(f"/api/entries/{entry_id}").json["note"] == "changed"


def test_a_refused_edit_keeps_where_it_goes_back_to(alice):
    edit = alice.get(f"/entries/{alice.ids[4]}/edit?back=" + urllib.parse.quote(MARCH))
    fields = [("mood", "9"), ("date", "2025-03-03"), ("back", back_field(edit.text))]
    refused = post_form(alice, f"/entries/{alice.ids[4]}/edit", fields, csrf_of(edit.text))
    assert refused.status == 422 and back_field(refused.text) == MARCH


def test_deleting_goes_back_to_the_list_at_the_entry_that_stood_beside_it(alice):
    day = alice.get("/days/2025-03-14").text
    evening, morning = re.findall(r'id="entry-(\d+)"', day)
    confirm = alice.get(link(day, "Delete"))
    assert back_field(confirm.text) == "/days/2025-03-14"
    assert f'href="/days/2025-03-14#entry-{evening}">Keep it' in confirm.text
    gone = post_form(alice, f"/entries/{evening}/delete", {"back": "/days/2025-03-14"},
                     csrf_of(confirm.text))
    assert gone.headers["Location"] == f"/days/2025-03-14?done=deleted#entry-{morning}"
    last = post_form(alice, f"/entries/{morning}/delete", {"back": "/days/2025-03-14"},
                     csrf_of(confirm.text))
    assert last.headers["Location"] == "/days/2025-03-14?done=deleted"  # nothing beside it
    # In filtered History the neighbour is the list's: the next older good or rad entry.
    listed = alice.get(MARCH + "&mood=5").text
    shown = [int(i) for i in re.findall(r'id="entry-(\d+)"', listed)]
    gone = post_form(alice, f"/entries/{shown[0]}/delete", {"back": MARCH + "&mood=5"},
                     csrf_of(confirm.text))
    assert gone.headers["Location"] == f"{MARCH}&mood=5&done=deleted#entry-{shown[1]}"


HOSTILE_BACKS = [
    "https://evil.example/entries", "//evil.example/entries", "/\\evil.example", "\\\\evil",
    "javascript:alert(1)", "JavaScript:alert(1)//", "data:text/html,hi", " /entries",
    "/entries\r\nSet-Cookie: session=stolen", "/entries\nLocation: https://evil.example",
    "/entries%0d%0aSet-Cookie:x=y", "/settings/tokens", "/entries/../settings", "/entries/1/edit",
    "/days/2025-02-30", "/days/2025-03-14/../../settings", "/login?next=https://evil.example",
    "/entries?q=%ff", "/entries?q=é", "/entries?" + "q=a&" * 2000, "/" + "a" * (MAX_BACK + 1), "/entrées",
    "/entries\x00", "/entries\t", "", "   ",
]


@pytest.mark.parametrize("raw", HOSTILE_BACKS)
def test_a_back_that_is_not_a_list_of_entries_here_is_never_followed(raw):
    assert checked_back(raw) is None


@pytest.mark.parametrize("raw,rebuilt", [
    ("/", "/"), ("/entries", "/entries"), ("/days/2025-03-14", "/days/2025-03-14"),
    (MARCH + "&done=saved&n=3&other=1#entry-4", MARCH),
    ("/entries?mood=4&mood=5&q=caf%C3%A9+au+lait", "/entries?mood=4&mood=5&q=caf%C3%A9+au+lait"),
    ("/entries?q=%0d%0aSet-Cookie:x", "/entries?q=%0D%0ASet-Cookie%3Ax"),  # encoded, harmless
    ("/days/2025-03-14?cursor=abc&from=2020-01-01", "/days/2025-03-14?cursor=abc"),
])
def test_a_back_to_a_list_of_entries_is_rebuilt_with_only_what_that_list_reads(raw, rebuilt):
    assert checked_back(raw) == rebuilt


@pytest.mark.parametrize("raw", HOSTILE_BACKS[:8] + ["/entries\r\nX: y", "/" + "a" * 100_000])
def test_a_posted_hostile_back_is_ignored_and_the_form_still_works(alice, raw):
    edit = alice.get(f"/entries/{alice.ids[0]}/edit?back=" + urllib.parse.quote(raw))
    assert edit.status == 200 and back_field(edit.text) == ""
    fields = [("mood", "3"), ("date", "2025-03-01"), ("time", "09:00"), ("back", raw)]
    saved = post_form(alice, f"/entries/{alice.ids[0]}/edit", fields, csrf_of(edit.text))
    assert saved.status == 303
    assert saved.headers["Location"] == f"/entries?done=saved#entry-{alice.ids[0]}"
    confirm = alice.get(f"/entries/{alice.ids[1]}/delete?back=" + urllib.parse.quote(raw))
    assert confirm.status == 200 and back_field(confirm.text) == ""
    gone = post_form(alice, f"/entries/{alice.ids[1]}/delete", {"back": raw},
                     csrf_of(confirm.text))
    assert gone.status == 303
    assert gone.headers["Location"] == f"/entries?done=deleted#entry-{alice.ids[0]}"


def test_a_day_shows_its_entries_its_count_and_the_days_with_entries_beside_it(alice):
    page = alice.get("/days/2025-03-01").text
    assert "<h1>Sat 1 Mar 2025</h1>" in page and "2 entries" in page
    assert page.index("march 1 at 20") < page.index("march 1 at 9")  # newest first
    assert 'href="/days/2025-02-10" rel="prev"' in page and '"weekday">Mon </span>10 Feb<' in page
    assert 'href="/days/2025-03-02" rel="next"' in page
    assert 'href="/entries?from=2025-03-01&amp;to=2025-03-31">March 2025' in page
    assert f'href="/entries/{alice.ids[0]}/edit?back=%2Fdays%2F2025-03-01"' in page
    last = alice.get("/days/2025-04-20").text
    assert 'rel="next"' not in last and 'href="/days/2025-03-31" rel="prev"' in last
    empty = alice.get("/days/2025-01-01")
    assert empty.status == 200 and "Nothing logged on this day." in empty.text
    assert 'href="/days/2024-03-03" rel="prev"' in empty.text
    for bad in ("/days/2025-02-30", "/days/2025-3-01", "/days/0000-01-01"):
        assert alice.get(bad).status == 404, bad
    assert alice.get("/days/2025-03-01?cursor=not-one").status == 400


def test_history_jumps_to_any_month_and_says_in_one_line_what_is_filtered(alice):
    page = alice.get("/entries").text
    months = page[page.index('class="card months"'):page.index("</details>", page.index(
        'class="card months"'))]
    assert re.findall(r"<h2 class=\"month-year\">(\d{4})", months) == ["2025", "2024"]
    assert ('<a href="/entries?from=2025-03-01&amp;to=2025-03-31"><span aria-hidden="true">Mar'
            '</span> <span class="count" aria-hidden="true">62</span><span class="skip">March'
            ' 2025: 62 entries</span></a>') in months
    assert ('<span aria-hidden="true">Feb</span> <span class="count" aria-hidden="true">1</span>'
            '<span class="skip">February 2025: 1 entry</span>') in months
    assert '<details class="card filter-panel">' in page  # folded, filtered or not
    assert 'Search and filter <span class="muted"></span>' in page  # nothing active
    filtered = alice.get(MARCH + "&mood=5&mood=4&q=walk").text
    assert '<details class="card filter-panel">' in filtered
    assert ('Search and filter <span class="muted">· March 2025 · <span dir="auto">rad, good'
            '</span> · <span dir="auto">“walk”</span>') in filtered
    assert 'to=2025-03-31" aria-current="page"><span aria-hidden="true">Mar<' in filtered
    odd = alice.get("/entries?from=2025-03-02&to=2025-03-02").text
    assert "· 2 Mar 2025</span>" in odd
    assert '<details class="card filter-panel" open>' in alice.get("/entries?from=x").text
