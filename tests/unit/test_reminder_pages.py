"""Settings → Reminders with plain forms: create, edit (the token kept unless replaced or
removed), switch off and on, send a test, delete with confirmation (issue #13)."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from tests.fakes import FakeUpstream, Reply
from tests.helpers import base_env


@pytest.fixture
def channel():
    with FakeUpstream() as fake:
        fake.route("*", lambda record: Reply({"ok": True}))
        yield fake


@pytest.fixture
def env(db_path):
    return base_env(db_path, KMOOD_ALLOW_PRIVATE_NOTIFY_URLS="1")


@pytest.fixture
def ann(client_for, clock):
    clock.set(datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc))
    client = client_for("ann", timezone="Europe/Berlin")
    page = client.get("/settings/reminders").text
    client.form_token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    return client


def post(client, path, **fields):
    weekdays = fields.pop("weekday", None)
    body = {"csrf_token": client.form_token, **fields}
    if weekdays is not None:
        from urllib.parse import urlencode

        encoded = urlencode(list(body.items()) + [("weekday", d) for d in weekdays]).encode()
        return client.request("POST", path, body=encoded,
                              content_type="application/x-www-form-urlencoded")
    return client.request("POST", path, form=body)


FORM = {"time": "20:30", "timezone": "Europe/Berlin", "channel": "webhook",
        "token": "tk_page_secret", "title": "", "message": "Log it", "skip_if_logged": "1",
        "enabled": "1"}


def test_create_edit_switch_test_and_delete_with_plain_forms(ann, channel):
    made = post(ann, "/settings/reminders", url=channel.url + "/hook", weekday=["0", "4"],
                **FORM)
    assert made.status == 303 and made.headers["Location"] == "/settings/reminders?done=created"
    listing = ann.get(made.headers["Location"]).text
    assert "Created." in listing and "<strong>20:30</strong> Mon, Fri" in listing
    assert '<span translate="no">Webhook</span> to <span translate="no">127.0.0.1</span>' in listing
    assert "next: Fri 4 Dec, 20:30" in listing and "tk_page_secret" not in listing
    reminder = ann.get("/api/reminders").json["reminders"][0]
    assert reminder["weekdays"] == [0, 4] and reminder["has_token"] is True
    edit_url = f"/settings/reminders/{reminder['id']}"
    page = ann.get(edit_url).text
    assert "one is set; leave empty to keep it" in page and "tk_page_secret" not in page
    saved = post(ann, edit_url, **{**FORM, "token": "", "time": "21:15"},
                 url=channel.url + "/hook", weekday=["0", "1", "2", "3", "4", "5", "6"])
    assert saved.status == 303
    after = ann.get(f"/api/reminders/{reminder['id']}").json
    assert (after["time"], after["has_token"], after["weekdays"]) == ("21:15", True,
                                                                       [0, 1, 2, 3, 4, 5, 6])
    tested = post(ann, f"{edit_url}/test")
    assert tested.status == 303 and tested.headers["Location"] == f"{edit_url}?tested=ok-200"
    assert ('Test sent: the channel answered <span translate="no">HTTP 200</span>.'
            in ann.get(tested.headers["Location"]).text)
    assert channel.requests[-1]["headers"]["Authorization"] == "Bearer tk_page_secret"
    off = post(ann, f"{edit_url}/switch", enabled="0")
    assert off.headers["Location"] == "/settings/reminders?done=switched_off"
    assert ann.get(f"/api/reminders/{reminder['id']}").json["enabled"] is False
    assert "Delete the reminder" in ann.get(f"{edit_url}/delete").text
    gone = post(ann, f"{edit_url}/delete")
    assert gone.headers["Location"] == "/settings/reminders?done=removed"
    assert ann.get("/api/reminders").json["reminders"] == []


def test_a_bad_form_shows_its_errors_and_what_was_typed(ann):
    bad = post(ann, "/settings/reminders", url="ftp://nope", weekday=[], **{**FORM,
                                                                             "time": "25:00"})
    assert bad.status == 422
    assert "Time: must be HH:MM" in bad.text and "Days:" in bad.text and "Address:" in bad.text
    assert 'value="ftp://nope"' in bad.text
    assert ann.get("/api/reminders").json["reminders"] == []


def test_a_failing_test_send_says_so(ann, channel):
    channel.route("*", lambda record: Reply({"error": "no"}, 403))
    post(ann, "/settings/reminders", url=channel.url + "/hook", weekday=["0"], **FORM)
    reminder = ann.get("/api/reminders").json["reminders"][0]
    tested = post(ann, f"/settings/reminders/{reminder['id']}/test")
    assert tested.headers["Location"].endswith("?tested=failed-403")
    assert ('the channel answered <span translate="no">HTTP 403</span>'
            in ann.get(tested.headers["Location"]).text)


def test_another_users_reminder_pages_are_404(ann, client_for, channel):
    post(ann, "/settings/reminders", url=channel.url + "/hook", weekday=["0"], **FORM)
    reminder = ann.get("/api/reminders").json["reminders"][0]
    bob = client_for("bob")
    assert bob.get(f"/settings/reminders/{reminder['id']}").status == 404
    assert bob.get(f"/settings/reminders/{reminder['id']}/delete").status == 404


def test_the_list_names_where_each_reminder_goes():
    from kmood_lib.web.pages.reminders import destination

    assert destination({"channel": "ntfy", "url": "https://ntfy.sh/sub/my-topic/"}) == \
        "ntfy.sh/my-topic"
    assert destination({"channel": "gotify", "url": "https://push.example.org/"}) == \
        "push.example.org"


def test_last_deliveries_show_why_one_failed_escaped_and_nothing_for_one_sent(ann, conn,
                                                                            channel):
    made = ann.post("/api/reminders", {"time": "20:30", "channel": "webhook",
                                       "url": channel.url + "/hook"}).json
    conn.execute("INSERT INTO reminder_deliveries (reminder_id, local_date, status, attempts,"
                 " last_error, at) VALUES (?, '2026-12-01', 'failed', 3, ?, 1),"
                 " (?, '2026-12-02', 'sent', 1, 'an old error', 2)",
                 (made["id"], "HTTP 500: <b>down</b>", made["id"]))
    for path in ("/settings/reminders", f"/settings/reminders/{made['id']}"):
        page = ann.get(path).text
        listed = page[page.index("Last deliveries"):]
        items = listed[:listed.index("</ul>")].split("</li>")
        failed, sent = (next(i for i in items if day in i) for day in ("2026-12-01", "2026-12-02"))
        assert '<span class="muted" translate="no">HTTP 500: &lt;b&gt;down&lt;/b&gt;</span>' in failed
        assert "muted" not in sent and "an old error" not in page and "<b>down</b>" not in page
