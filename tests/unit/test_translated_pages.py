"""Every page, notice and refusal goes through the catalogues (SPEC §13): rendered in the
pseudo-language en-XA, where every translated word comes out accented, no page shows a plain
word outside what the person wrote (tests/plain_words.py). The browser walk holds the same for
what the scripts write (tests/browser/test_languages.py)."""

from __future__ import annotations

import re

import pytest

from kmood_lib.web.rendering import NOTICES
from tests.plain_words import plain_words
from tests.unit.test_daylio_csv import NEWEST, csv_bytes
from tests.unit.test_import_pages import csrf_of, upload
from tests.unit.test_journal_pages import post_form

PSEUDO = "en_XA"


@pytest.fixture
def env(env):
    return {**env, "KMOOD_PSEUDO_LANGUAGES": "1"}


@pytest.fixture
def journal(client_for):
    """An admin with a little of everything each page shows, in en-XA, and the pages to open."""
    ann = client_for("ann", admin=True)
    bob = client_for("bob").get("/api/me").json
    assert ann.patch("/api/me", {"language": PSEUDO}).status == 200
    for name, group in (("walk", "Health"), ("reading", "Hobbies"), ("work", None)):
        ann.post("/api/activities", {"name": name, **({"group": group} if group else {})})
    metric = ann.post("/api/metrics", {"name": "sleep"}).json
    entries = [ann.post("/api/entries", {
        "mood": 1 + day % 5, "activities": ["walk", "reading"][: 1 + day % 2],
        "note": f"day {day}", "occurred_at": f"2026-11-{10 + day:02d}T20:00:00Z",
        "metrics": {"sleep": 7}}).json for day in range(12)]
    assert all("id" in entry for entry in entries), entries[0]
    goal = ann.post("/api/goals", {"name": "Walk", "activity": "walk", "target": 3,
                                   "period": "week"}).json
    template = ann.post("/api/templates", {"name": "evening", "note_title": "Evening",
                                           "note": "What went well?"}).json
    reminder = ann.post("/api/reminders", {"time": "21:00", "channel": "webhook",
                                           "url": "https://example.org/hook"}).json
    ann.post("/api/tokens", {"name": "phone"})
    start = ann.get("/settings/import")
    ann.csrf, csrf = None, csrf_of(start.text)
    sent = upload(ann, "/settings/import", {"csrf_token": csrf, "mood_map": ""},
                  {"file": csv_bytes(NEWEST, "2024-01-02,,,18:00,Sad,walk,,,rainy")})
    activity = ann.get("/api/activities").json["activities"][0]
    entry = entries[0]["id"]
    ann.pages = [
        "/", "/entries", "/entries?q=day", f"/days/{entries[0]['occurred_at'][:10]}",
        f"/entries/{entry}/edit", f"/entries/{entry}/delete", "/calendar", "/stats",
        "/insights", "/goals", f"/goals/{goal['id']}", f"/goals/{goal['id']}/delete",
        "/settings", "/settings/moods", "/settings/tokens", "/settings/activities",
        f"/settings/activities/{activity['id']}", f"/settings/activities/{activity['id']}/delete",
        f"/settings/activities/delete?ids={activity['id']}", "/settings/metrics",
        f"/settings/metrics/{metric['id']}/delete", "/settings/templates",
        f"/settings/templates/{template['id']}/delete", "/settings/import",
        sent.headers["Location"], "/settings/reminders", f"/settings/reminders/{reminder['id']}",
        f"/settings/reminders/{reminder['id']}/delete", "/settings/users",
        f"/settings/users/{bob['id']}/delete", "/admin/jobs", "/offline", "/logout"]
    made = ann.post("/report/share", form={
        "csrf_token": csrf, "name": "Dr. M.", "expires": "7", "from": "2026-11-01",
        "to": "2026-11-30", "entries": "1", "photos": "0"})
    assert made.status == 201, made.text
    shared = re.search(r'id="shared-link" href="[^"]*(/shared/[^"]+)"', made.text).group(1)
    ann.pages += ["/report?range=all&entries=1", "/settings/sharing", shared]  # (its language)
    ann.csrf_field = csrf
    return ann


def test_every_page_is_in_the_persons_language(journal):
    plain = {}
    for path in journal.pages:
        answer = journal.get(path)
        assert answer.status == 200, path
        assert '<html lang="en-XA"' in answer.text, path
        if found := plain_words(answer.text):
            plain[path] = found
    assert plain == {}


def test_every_notice_is_in_the_persons_language(journal):
    plain = {done: found for done in NOTICES
             if (found := plain_words(journal.get(f"/settings?done={done}").text))}
    assert plain == {}


def test_a_refused_form_says_why_in_the_persons_language(journal):
    refused = post_form(journal, "/entries", {"mood": "", "note": "x"}, journal.csrf_field)
    assert refused.status == 422
    assert plain_words(refused.text) == []


@pytest.mark.parametrize("path", ["/login", "/setup"])
def test_the_pages_before_sign_in_follow_the_browser(wsgi, make_user, path):
    from tests.wsgi import Client

    if path == "/login":
        make_user("root", admin=True)
    answer = Client(wsgi).get(path, headers={"Accept-Language": "en-XA"})
    assert answer.status == 200 and plain_words(answer.text) == []
