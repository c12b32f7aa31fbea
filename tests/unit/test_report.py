"""The report and its shared links (issue #42): what the report shows, and that a link shows
that report and nothing else, to whoever holds it, until it expires or is revoked."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from kmood_lib.journal import sharing
from kmood_lib.web.http import logged_path
from tests.conftest import PASSWORD
from tests.helpers import base_env
from tests.images import phone_jpeg, upload
from tests.wsgi import Client

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def alice(client_for, clock):
    clock.set(NOW)
    client = client_for("alice", timezone="Europe/Berlin")
    day = NOW.date() - timedelta(days=80)
    for i in range(40):  # 40 days, walks on the better ones
        walk = i % 2 == 0
        client.post("/api/entries", {
            "mood": 4 if walk else 2, "occurred_at": f"{day + timedelta(days=i)}T09:00:00",
            "activities": ["walk"] if walk else ["chores"], "note": f"note of day {i}"})
    old = client.post("/api/entries", {"mood": 1, "occurred_at": "2026-01-05T09:00:00",
                                       "note": "from January, outside every report here"})
    client.old_entry = old.json["id"]
    return client


def make_link(client: Client, name: str = "Dr. M.", expires: str = "30", **contents) -> str:
    form = {"csrf_token": client.csrf, "name": name, "expires": expires,
            "from": "2026-09-14", "to": "2026-12-03", "entries": "1", "photos": "0", **contents}
    made = client.post("/report/share", form=form)
    assert made.status == 201, made.text
    return re.search(r'id="shared-link" href="http://[^/]+/shared/([^"]+)"', made.text).group(1)


def test_the_report_shows_the_days_figures_and_the_entries_when_ticked(alice):
    page = alice.get("/report?range=90").text
    assert "Mood report" in page and "5 Sep 2026 – 3 Dec 2026" in page
    assert "40</span> of 90 days logged" in page
    assert "note of day 3" not in page  # the entries only when ticked
    assert "<th scope=\"row\" dir=\"auto\">walk</th>" in page  # 20 days each way: compared
    page = alice.get("/report?range=90&entries=1").text
    assert "note of day 3" in page and "note of day 39" in page
    assert "from January" not in page
    assert page.index("note of day 3<") < page.index("note of day 39<")  # oldest first
    assert alice.get("/report?from=2026-12-04&to=2026-12-01").status == 422
    assert alice.get("/report?range=7").status == 422


def test_a_shared_link_shows_that_report_to_anyone_and_is_stored_only_as_a_hash(alice, wsgi,
                                                                               db_path):
    link = make_link(alice)
    link_id, secret = link.split(".")
    stranger = Client(wsgi, remote_addr="198.51.100.7")
    shown = stranger.get(f"/shared/{link}")
    assert shown.status == 200
    assert "note of day 3" in shown.text and "from January" not in shown.text
    assert shown.headers["X-Robots-Tag"].startswith("noindex")
    assert shown.headers["Referrer-Policy"] == "no-referrer"
    assert shown.headers["Cache-Control"] == "no-store"
    assert 'name="robots" content="noindex' in shown.text
    assert 'class="tabs"' not in shown.text and "csrf_token" not in shown.text
    assert not [c for c in shown.set_cookies]
    raw = sqlite3.connect(db_path)
    stored = raw.execute("SELECT id, secret_hash, opened_count FROM shared_reports").fetchone()
    raw.close()
    assert stored == (int(link_id), hashlib.sha256(secret.encode()).hexdigest(), 1)
    assert secret not in "\n".join(sqlite3.connect(db_path).iterdump())


def test_every_other_way_in_with_a_link_is_refused(alice, wsgi, clock):
    first = make_link(alice, "first")
    second = make_link(alice, "second", entries="0")
    stranger = Client(wsgi, remote_addr="198.51.100.8")
    first_id, first_secret = first.split(".")
    second_id, second_secret = second.split(".")
    assert stranger.get(f"/shared/{first_id}.{second_secret}").status == 404  # another's id
    wrong = first_secret[:-1] + ("A" if first_secret[-1] != "A" else "B")
    assert stranger.get(f"/shared/{first_id}.{wrong}").status == 404  # one character off
    assert stranger.get(f"/shared/{first_id}.{first_secret[:-2]}").status == 404  # too short
    # the range and what it includes are the link's, whatever the URL says
    shown = stranger.get(f"/shared/{second}?from=2026-01-01&to=2026-12-31&entries=1&photos=1")
    assert shown.status == 200 and "note of day" not in shown.text and "January" not in shown.text
    # nothing else opens with it: not the owner's pages, not the API, not her entries
    for path in ("/", "/entries", f"/entries/{alice.old_entry}/edit", "/api/entries",
                 f"/api/entries/{alice.old_entry}", "/report", "/settings/sharing"):
        for asked in (f"{path}?link={first}", path):
            answer = stranger.get(asked, headers={"Referer": f"http://x/shared/{first}",
                                                   "Authorization": f"Bearer {first}"})
            assert answer.status in (401, 303), (asked, answer.status)
    assert stranger.get(f"/shared/{first}/../entries").status == 404
    # revoked: unknown at once
    alice.post(f"/settings/sharing/{second_id}/revoke", form={"csrf_token": alice.csrf})
    assert stranger.get(f"/shared/{second}").status == 404
    # expired: gone (410), and listed as expired to its owner
    clock.advance(31 * 86_400)
    gone = stranger.get(f"/shared/{first}")
    assert gone.status == 410 and "expired" in gone.text
    alice.login("alice", PASSWORD)  # (her session ended meanwhile)
    listed = alice.get("/settings/sharing").text
    assert "expired 2 Jan 2027 · not opened yet" in listed  # (a 410 is no opening)


def test_photos_show_only_when_included_and_only_from_the_reports_days(alice, wsgi):
    inside = alice.post("/api/entries", {"mood": 3, "occurred_at": "2026-11-30T10:00:00"}
                        ).json["id"]
    for entry in (inside, alice.old_entry):
        added = upload(alice, entry, phone_jpeg())
        assert added.status == 201, added.text
    photo_in, photo_out = [alice.get(f"/api/entries/{e}").json["photos"][0]["id"]
                           for e in (inside, alice.old_entry)]
    with_photos = make_link(alice, photos="1")
    without = make_link(alice, "no photos")
    stranger = Client(wsgi, remote_addr="198.51.100.9")
    page = stranger.get(f"/shared/{with_photos}").text
    assert f'src="/shared/{with_photos}/photos/{photo_in}"' in page
    got = stranger.get(f"/shared/{with_photos}/photos/{photo_in}")
    assert got.status == 200 and got.headers["Content-Type"].startswith("image/")
    assert "no-store" not in got.headers["Cache-Control"]  # revalidated (private, no-cache)
    assert stranger.get(f"/shared/{with_photos}/photos/{photo_out}").status == 404
    assert stranger.get(f"/shared/{without}/photos/{photo_in}").status == 404
    assert stranger.get(f"/photos/{photo_in}/thumb").status in (401, 303)


@pytest.fixture
def env(db_path):
    return {**base_env(db_path), "KMOOD_SHARED_REPORT_RATE": "8"}


def test_openings_are_limited_per_link_and_per_address(alice, wsgi, clock):
    busy, other = make_link(alice, "busy"), make_link(alice, "other")
    here, there, elsewhere = (Client(wsgi, remote_addr=f"203.0.113.{n}") for n in (1, 2, 3))
    for _ in range(8):
        assert here.get(f"/shared/{busy}").status == 200
    refused = here.get(f"/shared/{busy}")
    assert refused.status == 429 and int(refused.headers["Retry-After"]) >= 1
    assert there.get(f"/shared/{busy}").status == 429  # the link's share is spent
    assert here.get(f"/shared/{other}").status == 429  # and so is the address's
    guessed = here.get(f"/shared/{busy.split('.')[0]}.{'x' * 43}")
    assert guessed.status == 429  # guessing is slowed down as much as opening
    assert elsewhere.get(f"/shared/{other}").status == 200
    clock.advance(60)
    assert here.get(f"/shared/{busy}").status == 200


def test_nobody_without_the_secret_can_use_up_a_links_share(alice, wsgi):
    link = make_link(alice)
    link_id, secret = link.split(".")
    for n in range(20):  # guesses from many addresses: each pays, the link does not
        guess = Client(wsgi, remote_addr=f"192.0.2.{n}").get(f"/shared/{link_id}.{'x' * 43}")
        assert guess.status == 404
    assert Client(wsgi, remote_addr="192.0.2.99").get(f"/shared/{link}").status == 200
    # one link, one way to write it: no fresh share for /shared/01.<secret>
    assert Client(wsgi).get(f"/shared/0{link}").status == 404


def test_the_addresses_of_one_ipv6_host_share_one_limit(alice, wsgi):
    link = make_link(alice)
    for n in range(8):
        assert Client(wsgi, remote_addr=f"2001:db8:1:2::{n + 1:x}").get(
            f"/shared/{link}").status == 200
    assert Client(wsgi, remote_addr="2001:db8:1:2:ffff::9").get(f"/shared/{link}"
                                                                ).status == 429


def test_only_a_report_shown_counts_as_an_opening_and_logs_never_hold_the_secret(alice, wsgi):
    link = make_link(alice)
    assert Client(wsgi).request("HEAD", f"/shared/{link}").status == 200
    assert "not opened yet" in alice.get("/settings/sharing").text
    assert logged_path(f"/shared/{link}/photos/3") == f"/shared/{link.split('.')[0]}.…/photos/3"


def test_the_widest_days_make_a_report_and_a_refused_link_shows_it_again(alice):
    page = alice.get("/report?from=1900-01-01&to=2200-12-31&entries=1")
    assert page.status == 200 and "from January" in page.text
    refused = alice.post("/report/share", form={
        "csrf_token": alice.csrf, "name": "", "expires": "7", "from": "1900-01-01",
        "to": "2200-12-31", "entries": "0", "photos": "0"})
    assert refused.status == 422 and "name must be" in refused.text


def test_a_link_needs_a_name_and_a_known_expiry_and_the_form_says_so(alice):
    form = {"csrf_token": alice.csrf, "from": "2026-09-14", "to": "2026-12-03",
            "entries": "1", "photos": "1"}
    for wrong, said in (({"name": "", "expires": "30"}, "Shared with: name must be 1-100"),
                        ({"name": "Dr. M.", "expires": "91"}, "Open for: must be 1 to 90 days"),
                        ({"name": "Dr. M.", "expires": "x"}, "Open for: must be 1 to 90 days"),
                        ({"name": "a\u202eb", "expires": "7"}, "Shared with: name"),
                        ({"name": "Dr. M.", "expires": "7", "to": "2026-09-01"},
                         "To: must not be before from")):
        refused = alice.post("/report/share", form={**form, **wrong})
        assert refused.status == 422 and said in refused.text, (wrong, refused.status)
        if "to" not in wrong:
            assert 'value="2026-09-14"' in refused.text  # the report it was about, again
    assert alice.get("/settings/sharing").text.count('action="/settings/sharing/') == 0


def test_a_link_is_its_owners_alone_to_revoke_and_opens_are_counted(alice, client_for, wsgi):
    link = make_link(alice)
    link_id = link.split(".")[0]
    bob = client_for("bob")
    assert bob.post(f"/settings/sharing/{link_id}/revoke",
                    form={"csrf_token": bob.csrf}).status == 404
    assert "Dr. M." not in bob.get("/settings/sharing").text
    assert "note of day" not in bob.get("/report?range=all&entries=1").text  # his own: empty
    Client(wsgi).get(f"/shared/{link}")
    Client(wsgi).get(f"/shared/{link}")
    assert "opened 2 times, last 3 Dec 2026" in alice.get("/settings/sharing").text


def test_a_shared_report_keeps_the_language_it_was_made_in(alice, wsgi):
    assert alice.patch("/api/me", {"language": "de"}).status == 200
    link = make_link(alice)
    shown = Client(wsgi).get(f"/shared/{link}", headers={"Accept-Language": "fr"})
    assert 'lang="de"' in shown.text and "Stimmungsbericht" in shown.text


def test_the_printed_pages_say_the_period_and_the_page_in_css_that_cannot_break_out(alice, wsgi):
    css = alice.get("/report/page.css?from=2026-09-14&to=2026-12-03")
    assert css.headers["Content-Type"].startswith("text/css")
    assert '@top-left { content: "Mood report\\2c  14 Sep 2026 \\2013  3 Dec 2026"; }' in css.text
    assert 'counter(page) " of " counter(pages)' in css.text
    assert alice.get("/report/page.css?from=x&to=2026-12-03").status == 422
    page = sharing.Contents.checked("2026-09-14", "2026-12-03")
    assert page.days == 81
