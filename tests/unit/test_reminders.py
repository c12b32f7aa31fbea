"""Reminders as state: the next occurrence computed in the reminder's zone (DST gaps and folds,
far-from-UTC zones, weekdays, never a time already passed), the API's checks, a write-only
token, isolation (issue #13, first slice)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from kmood_lib.reminders.schedule import next_occurrence, private_address

ALL = 0b1111111


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(timezone.utc)


def occurrence(minute: int, zone: str, now: str, weekdays: int = ALL, after=None):
    fire_ms, day = next_occurrence(minute, weekdays, ZoneInfo(zone), at(now), after)
    local = datetime.fromtimestamp(fire_ms / 1000, ZoneInfo(zone))
    return local.isoformat(), day


def test_a_time_later_today_fires_today_and_one_passed_fires_tomorrow():
    assert occurrence(20 * 60 + 30, "Europe/Berlin", "2026-12-03T10:00:00+01:00") == (
        "2026-12-03T20:30:00+01:00", "2026-12-03")
    assert occurrence(8 * 60, "Europe/Berlin", "2026-12-03T10:00:00+01:00") == (
        "2026-12-04T08:00:00+01:00", "2026-12-04")
    assert occurrence(10 * 60, "Europe/Berlin", "2026-12-03T10:00:00+01:00") == (
        "2026-12-04T10:00:00+01:00", "2026-12-04")  # exactly now has passed: tomorrow


def test_spring_forward_shifts_a_missing_time_by_the_gap_and_fall_back_fires_once():
    # Europe/Berlin: 2026-03-29 02:00 -> 03:00; 2026-10-25 03:00 -> 02:00.
    assert occurrence(2 * 60 + 30, "Europe/Berlin", "2026-03-29T00:10:00+01:00") == (
        "2026-03-29T03:30:00+02:00", "2026-03-29")
    assert occurrence(2 * 60 + 30, "Europe/Berlin", "2026-10-25T00:10:00+02:00") == (
        "2026-10-25T02:30:00+02:00", "2026-10-25")  # the first of the two 02:30s
    # Once that first 02:30 has passed, the next is the next day, not the second 02:30.
    assert occurrence(2 * 60 + 30, "Europe/Berlin", "2026-10-25T02:40:00+02:00") == (
        "2026-10-26T02:30:00+01:00", "2026-10-26")
    # America/New_York: 2026-03-08 02:00 -> 03:00; 2026-11-01 02:00 -> 01:00.
    assert occurrence(2 * 60 + 30, "America/New_York", "2026-03-08T00:00:00-05:00") == (
        "2026-03-08T03:30:00-04:00", "2026-03-08")
    assert occurrence(60 + 30, "America/New_York", "2026-11-01T00:00:00-04:00") == (
        "2026-11-01T01:30:00-04:00", "2026-11-01")
    assert occurrence(60 + 30, "America/New_York", "2026-11-01T01:45:00-04:00") == (
        "2026-11-02T01:30:00-05:00", "2026-11-02")


def test_zones_far_from_utc_get_their_own_local_date_and_weekday():
    # 2026-12-03 20:00 UTC is already Friday 4 December in Auckland (+13) and Kiritimati (+14).
    now = "2026-12-03T20:00:00+00:00"
    fridays = 1 << 4
    assert occurrence(21 * 60, "Pacific/Auckland", now, fridays) == (
        "2026-12-04T21:00:00+13:00", "2026-12-04")
    assert occurrence(9 * 60, "Pacific/Kiritimati", now, fridays) == (
        "2026-12-11T09:00:00+14:00", "2026-12-11")  # Friday 09:00 there has passed
    assert occurrence(21 * 60, "Pacific/Kiritimati", now, 1 << 3) == (  # Thursdays
        "2026-12-10T21:00:00+14:00", "2026-12-10")


def test_the_weekday_filter_is_the_local_weekday_and_after_skips_a_settled_day():
    weekend = (1 << 5) | (1 << 6)
    assert occurrence(9 * 60, "Europe/Berlin", "2026-12-03T07:00:00+01:00", weekend) == (
        "2026-12-05T09:00:00+01:00", "2026-12-05")
    assert occurrence(20 * 60, "Europe/Berlin", "2026-12-03T07:00:00+01:00",
                      after=date(2026, 12, 3)) == ("2026-12-04T20:00:00+01:00", "2026-12-04")


@pytest.mark.parametrize("host, private", [
    ("127.0.0.1", True), ("10.1.2.3", True), ("192.168.1.10", True), ("169.254.1.1", True),
    ("[::1]", True), ("[fe80::1]", True), ("localhost", True), ("ntfy.localhost", True),
    ("0.0.0.0", True), ("100.64.0.1", True), ("ntfy.sh", False), ("93.184.215.14", False),
    # IPv6 addresses that carry an IPv4 one are as private as what they carry
    ("[::127.0.0.1]", True), ("[::10.0.0.1]", True), ("[64:ff9b::7f00:1]", True),
    ("[64:ff9b::a00:1]", True), ("[64:ff9b:1::c0a8:101]", True), ("[::ffff:127.0.0.1]", True),
    ("[2002:7f00:1::1]", True), ("[2001:0:4136:e378:8000:63bf:80ff:fffe]", True),
    ("[64:ff9b::5db8:d70e]", False), ("[2606:4700:4700::1111]", False),
])
def test_private_and_local_addresses_are_recognised(host, private):
    assert private_address(host) is private


BODY = {"time": "20:30", "weekdays": [0, 2, 4], "channel": "ntfy",
        "url": "https://ntfy.sh/my-kmood-topic", "token": "tk_secret_123", "title": "Log it",
        "message": "How was your day?"}


def test_create_list_change_and_delete_with_a_write_only_token(client_for, clock, conn):
    clock.set(datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc))  # Thursday, 10:00 in Berlin
    ann = client_for("ann", timezone="Europe/Berlin")
    made = ann.post("/api/reminders", BODY)
    assert made.status == 201, made.text
    reminder = made.json
    assert reminder["token"] is None and reminder["has_token"] is True
    assert reminder["timezone"] == "Europe/Berlin"  # the user's, by default
    assert (reminder["weekdays"], reminder["skip_if_logged"], reminder["enabled"]) == (
        [0, 2, 4], True, True)
    assert (reminder["next_fire_at"], reminder["next_local_date"]) == (
        "2026-12-04T19:30:00Z", "2026-12-04")  # Friday: Thursday is not chosen
    listed = ann.get("/api/reminders").json
    assert [r["id"] for r in listed["reminders"]] == [reminder["id"]]
    assert "tk_secret_123" not in ann.get("/api/reminders").text
    assert "tk_secret_123" not in ann.get(f"/api/reminders/{reminder['id']}").text
    changed = ann.patch(f"/api/reminders/{reminder['id']}", {"time": "11:00", "weekdays": [3]})
    assert changed.status == 200 and changed.json["next_local_date"] == "2026-12-03"  # today
    assert changed.json["has_token"] is True  # absent: unchanged
    off = ann.patch(f"/api/reminders/{reminder['id']}", {"enabled": False, "token": None})
    assert (off.json["next_fire_at"], off.json["has_token"]) == (None, False)
    on = ann.patch(f"/api/reminders/{reminder['id']}", {"enabled": True})
    assert on.json["next_local_date"] == "2026-12-03"
    stored = conn.execute("SELECT token FROM reminders").fetchone()[0]
    assert stored is None
    assert ann.delete(f"/api/reminders/{reminder['id']}").status == 204
    assert ann.get("/api/reminders").json["reminders"] == []


@pytest.mark.parametrize("change, field", [
    ({"time": "24:00"}, "time"), ({"time": "8:30"}, "time"), ({"time": "٠٨:٣٠"}, "time"),
    ({"weekdays": []}, "weekdays"), ({"weekdays": [7]}, "weekdays"),
    ({"weekdays": [1, 1]}, "weekdays"), ({"weekdays": [True]}, "weekdays"),
    ({"timezone": "Mars/Olympus"}, "timezone"), ({"channel": "sms"}, "channel"),
    ({"url": "ftp://example.org/x"}, "url"), ({"url": "https://user:pw@ntfy.sh/t"}, "url"),
    ({"url": "https://ntfy.sh/"}, "url"), ({"url": "http://127.0.0.1:8080/topic"}, "url"),
    ({"url": "http://[::1]/topic"}, "url"), ({"url": "http://localhost/topic"}, "url"),
    ({"url": "https://ntfy.sh/t\u00e9"}, "url"), ({"token": "a\nb"}, "token"),
    ({"title": "x" * 101}, "title"), ({"enabled": "yes"}, "enabled"),
    ({"id": 5}, "id"), ({"has_token": True}, "has_token"), ({"colour": "red"}, "colour"),
])
def test_bad_reminders_are_422_naming_the_field_and_change_nothing(client_for, change, field):
    ann = client_for("ann")
    response = ann.post("/api/reminders", {**BODY, **change})
    assert response.status == 422 and field in response.json["error"]["fields"], response.json
    assert ann.get("/api/reminders").json["reminders"] == []


def test_private_urls_are_allowed_when_configured(env, wsgi, make_user, db_path, clock):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.core.config import Config
    from kmood_lib.web.app import make_wsgi
    from tests.conftest import PASSWORD
    from tests.wsgi import Client

    services = bootstrap(Config.from_env({**env, "KMOOD_ALLOW_PRIVATE_NOTIFY_URLS": "1"}),
                         clock=clock)
    make_user("lan")
    client = Client(make_wsgi(services))
    assert client.login("lan", PASSWORD).status == 201
    made = client.post("/api/reminders", {**BODY, "url": "http://192.168.1.5/kmood"})
    assert made.status == 201 and made.json["url"] == "http://192.168.1.5/kmood"


def test_another_users_reminder_is_404_everywhere(client_for):
    ann, bob = client_for("ann"), client_for("bob")
    reminder = ann.post("/api/reminders", BODY).json["id"]
    assert bob.get(f"/api/reminders/{reminder}").status == 404
    assert bob.patch(f"/api/reminders/{reminder}", {"time": "10:00"}).status == 404
    assert bob.delete(f"/api/reminders/{reminder}").status == 404
    assert bob.get("/api/reminders").json["reminders"] == []
    assert ann.get(f"/api/reminders/{reminder}").json["time"] == "20:30"


def test_the_token_is_in_no_export_and_no_log_line(client_for, caplog):
    import logging

    ann = client_for("ann")
    with caplog.at_level(logging.DEBUG):
        reminder = ann.post("/api/reminders", BODY).json
        ann.patch(f"/api/reminders/{reminder['id']}", {"token": "tk_other_456"})
        exported = ann.get("/api/export?format=json")
    assert exported.json["reminders"][0]["has_token"] is True
    for secret in ("tk_secret_123", "tk_other_456"):
        assert secret not in exported.text and secret not in caplog.text


# --- channels: the test send --------------------------------------------------------------

@pytest.fixture
def lan_env(env):
    """Channels on 127.0.0.1 (the fakes) need private destinations allowed."""
    return {**env, "KMOOD_ALLOW_PRIVATE_NOTIFY_URLS": "1",
            "KMOOD_PUBLIC_URL": "https://mood.example.org", "KMOOD_REMINDER_TEST_TIMEOUT_S": "0.5"}


@pytest.fixture
def lan_client(lan_env, clock, make_user):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.core.config import Config
    from kmood_lib.web.app import make_wsgi
    from tests.conftest import PASSWORD
    from tests.wsgi import Client

    services = bootstrap(Config.from_env(lan_env), clock=clock)
    make_user("lan")
    client = Client(make_wsgi(services))
    assert client.login("lan", PASSWORD).status == 201
    return client, services


@pytest.fixture
def channel():
    from tests.fakes import FakeUpstream, Reply

    with FakeUpstream() as fake:
        fake.route("*", lambda record: Reply({"id": "msg1", "event": "message"}))
        yield fake


@pytest.mark.parametrize("kind, path, expected_path", [
    ("ntfy", "/sub/path/kmood-topic", "/sub/path/"),  # ntfy under a sub-path
    ("gotify", "/", "/message"),
    ("webhook", "/hooks/abc", "/hooks/abc"),
])
def test_a_test_send_reaches_the_channel_with_its_body_and_headers_and_records_nothing(
        lan_client, channel, conn, kind, path, expected_path):
    client, services = lan_client
    made = client.post("/api/reminders", {"time": "20:30", "channel": kind,
                                          "url": channel.url + path, "token": "tk_send_789",
                                          "message": "Log your mood"})
    assert made.status == 201, made.text
    answer = client.post(f"/api/reminders/{made.json['id']}/test", {})
    assert answer.status == 200 and answer.json["ok"] is True, answer.json
    assert answer.json["status"] == 200 and '"msg1"' in answer.json["body"]
    (request,) = channel.requests
    assert request["method"] == "POST" and request["path"] == expected_path
    assert request["headers"]["User-Agent"] == services.config.user_agent
    body = request["json"]
    assert body["message"] == "Log your mood" and body["title"] == "k-mood"
    if kind == "ntfy":
        assert body["topic"] == "kmood-topic" and body["click"] == "https://mood.example.org/"
        assert request["headers"]["Authorization"] == "Bearer tk_send_789"
    elif kind == "gotify":
        assert request["headers"]["X-Gotify-Key"] == "tk_send_789" and body["priority"] == 5
    else:
        assert body["reminder_id"] == made.json["id"]
        assert body["local_date"] == made.json["next_local_date"]
    assert conn.execute("SELECT count(*) FROM reminder_deliveries").fetchone()[0] == 0
    assert "tk_send_789" not in answer.text


def test_a_failing_channel_is_reported_not_raised(lan_client, channel):
    from tests.fakes import Reply

    client, _ = lan_client
    channel.route("*", lambda record: Reply({"error": "unauthorized"}, 401))
    made = client.post("/api/reminders", {"time": "20:30", "channel": "webhook",
                                          "url": channel.url + "/hook"}).json
    answer = client.post(f"/api/reminders/{made['id']}/test", {}).json
    assert answer["ok"] is False and answer["status"] == 401 and "unauthorized" in answer["error"]
    channel.route("*", lambda record: Reply(behaviour="hang"))
    import time

    started = time.monotonic()
    hung = client.post(f"/api/reminders/{made['id']}/test", {}).json
    assert hung["ok"] is False and "deadline" in hung["error"]
    assert time.monotonic() - started < 5 * 0.5  # guard: 5x KMOOD_REMINDER_TEST_TIMEOUT_S


def test_a_name_that_resolves_to_a_private_address_is_refused_when_connecting(channel):
    from kmood_lib.upstream.http import UpstreamError
    from kmood_lib.upstream.notify import Notifier

    port = channel.url.rsplit(":", 1)[1]
    notifier = Notifier("k-mood/test", allow_private=False)
    with pytest.raises(UpstreamError, match="refused: localhost resolves to 127.0.0.1"):
        notifier.send("webhook", f"http://localhost:{port}/hook", None, None, None,
                      reminder_id=1, local_date=None, timeout_s=5)
    assert channel.requests == []  # nothing reached it
    allowed = Notifier("k-mood/test", allow_private=True)
    assert allowed.send("webhook", f"http://localhost:{port}/hook", None, None, None,
                        reminder_id=1, local_date=None, timeout_s=5).status == 200


def test_a_reminder_on_the_household_network_says_how_to_allow_it(client_for):
    """#23.8: refused until a variable is set and both processes restart — say so."""
    alice = client_for("alice")
    response = alice.post("/api/reminders", {"time": "20:00", "weekdays": [0],
                                             "timezone": "UTC", "channel": "webhook",
                                             "url": "http://192.168.1.20/hook"})
    assert response.status == 422
    message = response.json["error"]["fields"]["url"]
    assert "KMOOD_ALLOW_PRIVATE_NOTIFY_URLS=1 for both the server and the worker" in message
    assert "restart" in message
