"""Web Push reminders (issue #43), driven in process with a fake clock against a push service
on 127.0.0.1 that checks the VAPID JWT and decrypts each payload as the browser would."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from kmood_lib.queue import jobs
from tests.helpers import base_env, one_worker_iteration
from tests.push_service import SOME_KEYS, PushService

BERLIN_EVENING = datetime(2026, 12, 3, 19, 26, tzinfo=timezone.utc)  # 20:26 in Berlin


@pytest.fixture
def service(clock):
    with PushService(now=lambda: clock.now_ms() / 1000) as fake:
        yield fake


@pytest.fixture
def env(db_path):
    return base_env(db_path, KMOOD_ALLOW_PRIVATE_NOTIFY_URLS="1", KMOOD_SWEEP_INTERVAL_S="300",
                    KMOOD_REMINDER_GRACE_S="3600", KMOOD_JOB_BACKOFF_BASE_S="60",
                    KMOOD_JOB_BACKOFF_CAP_S="600", KMOOD_ENRICH_WEATHER="0",
                    KMOOD_ENRICH_PLACE="0", KMOOD_ENRICH_SONGS="0",
                    KMOOD_VAPID_SUBJECT="mailto:admin@example.org")


@pytest.fixture
def ann(client_for, clock):
    clock.set(BERLIN_EVENING)
    return client_for("ann", timezone="Europe/Berlin")


def step(services, clock, seconds: float = 0) -> None:
    clock.advance(seconds)
    one_worker_iteration(services)


def deliveries(conn) -> list[tuple]:
    return [tuple(r) for r in conn.execute(
        "SELECT local_date, status, last_error FROM reminder_deliveries ORDER BY id")]


def test_a_reminder_reaches_each_device_encrypted_and_signed(ann, service, services, clock,
                                                              conn):
    key = ann.get("/api/push/key").json["public_key"]
    phone, laptop = service.browser(), service.browser()
    for browser, label in ((phone, "Chrome on Android"), (laptop, "Firefox on Linux")):
        added = ann.post("/api/push/subscriptions", browser.subscription(label))
        assert added.status == 201, added.text
        assert added.json["push_service"] == "127.0.0.1" and "keys" not in added.json
    made = ann.post("/api/reminders", {"time": "20:30", "channel": "webpush",
                                       "message": "Wie war dein Tag?"})
    assert made.status == 201, made.text
    assert made.json["url"] == ""
    step(services, clock)  # queued for 20:30
    assert service.received == []
    step(services, clock, 4 * 60)
    assert service.problems == [] and service.keys_seen == {key}
    assert sorted(r["token"] for r in service.received) == sorted([phone.token, laptop.token])
    pushed = service.received[0]
    assert pushed["message"] == {"title": "k-mood", "body": "Wie war dein Tag?",
                                 "tag": f"kmood-reminder-{made.json['id']}",
                                 "url": "/?day=2026-12-03&at=20:30"}
    assert pushed["headers"]["topic"] == f"reminder-{made.json['id']}"
    assert pushed["headers"]["urgency"] == "normal" and int(pushed["headers"]["ttl"]) > 0
    assert deliveries(conn) == [("2026-12-03", "sent", None)]
    devices = ann.get("/api/push/subscriptions").json["subscriptions"]
    assert all(d["last_success_at"] for d in devices)


def test_a_device_its_push_service_forgot_is_removed_and_the_others_still_get_it(
        ann, service, services, clock, conn):
    gone, kept = service.browser(), service.browser()
    for browser in (gone, kept):
        assert ann.post("/api/push/subscriptions", browser.subscription()).status == 201
    service.answers[gone.token] = [(410, {})]
    ann.post("/api/reminders", {"time": "20:30", "channel": "webpush"})
    step(services, clock)
    step(services, clock, 4 * 60)
    assert [r["token"] for r in service.received] == [kept.token]
    assert len(ann.get("/api/push/subscriptions").json["subscriptions"]) == 1
    assert deliveries(conn) == [("2026-12-03", "sent", None)]


def test_a_busy_push_service_is_tried_again_after_its_retry_after_and_only_where_it_failed(
        ann, service, services, clock, conn):
    busy, fine = service.browser(), service.browser()
    for browser in (busy, fine):
        assert ann.post("/api/push/subscriptions", browser.subscription()).status == 201
    service.answers[busy.token] = [(429, {"Retry-After": "120"})]
    ann.post("/api/reminders", {"time": "20:30", "channel": "webpush"})
    step(services, clock)
    step(services, clock, 4 * 60)
    assert [r["token"] for r in service.received] == [fine.token]
    (job,) = jobs.list_jobs(conn, kind="reminder")
    assert job["run_after"] >= clock.now_ms() + 120_000  # not before its Retry-After
    assert deliveries(conn) == []
    step(services, clock, 60)
    assert len(service.received) == 1  # still waiting
    step(services, clock, 90)
    assert sorted(r["token"] for r in service.received) == sorted([fine.token, busy.token])
    assert deliveries(conn) == [("2026-12-03", "sent", None)]


def test_with_no_device_a_webpush_reminder_fails_at_once_and_says_why(ann, services, clock,
                                                                      conn):
    ann.post("/api/reminders", {"time": "20:30", "channel": "webpush"})
    step(services, clock)
    step(services, clock, 4 * 60)
    ((day, status, error),) = deliveries(conn)
    assert status == "failed" and "Notify this device" in error


def test_a_test_reaches_one_device_and_the_page_says_what_its_push_service_answered(
        ann, service, services):
    phone = service.browser()
    device = ann.post("/api/push/subscriptions", phone.subscription("Pixel")).json
    answer = ann.post(f"/api/push/subscriptions/{device['id']}/test")
    assert answer.json["ok"] and answer.json["status"] == 201
    assert service.received[-1]["message"]["tag"] == "kmood-test"
    page = ann.get("/settings/reminders").text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    tested = ann.post(f"/settings/reminders/devices/{device['id']}/test",
                      form={"csrf_token": csrf})
    assert tested.status == 303 and "tested=ok-201" in tested.headers["Location"]
    shown = ann.get(tested.headers["Location"].split("#")[0]).text
    assert "Test sent: the push service answered" in shown and "Pixel" in shown
    service.answers[phone.token] = [(410, {})]
    forgotten = ann.post(f"/api/push/subscriptions/{device['id']}/test").json
    assert not forgotten["ok"] and "no longer knows" in forgotten["error"]
    assert ann.get("/api/push/subscriptions").json["subscriptions"] == []


@pytest.mark.parametrize("change,field", [
    ({"endpoint": "ftp://push.example/x"}, "endpoint"),
    ({"endpoint": "https://user:pw@push.example/x"}, "endpoint"),
    ({"endpoint": "https://push.example/" + "x" * 2000}, "endpoint"),
    ({"keys": {"p256dh": "AAAA", "auth": "AAAAAAAAAAAAAAAAAAAAAA"}}, "keys.p256dh"),
    ({"keys": {"p256dh": None, "auth": 5}}, "keys.auth"),
    ({"label": "a\u202eb"}, "label"),
    ({"label": ["x"]}, "label"),
])
def test_a_subscription_that_is_not_one_is_refused_and_changes_nothing(ann, service, change,
                                                                       field):
    body = {**service.browser().subscription(), **change}
    refused = ann.post("/api/push/subscriptions", body)
    assert refused.status == 422 and field in refused.json["error"]["fields"], refused.text
    assert ann.get("/api/push/subscriptions").json["subscriptions"] == []


def test_push_endpoints_on_private_addresses_are_refused_without_the_override(
        client_for, clock, services, tmp_path):
    from kmood_lib.reminders import push

    for endpoint in ("https://127.0.0.1/push/x", "https://10.0.0.8/push", "http://push.example/x",
                     "https://localhost/p"):
        with pytest.raises(Exception) as refused:
            push.check_subscription({"endpoint": endpoint, "keys": SOME_KEYS}, allow_private=False)
        assert "endpoint" in refused.value.fields, endpoint


def test_the_vapid_key_is_made_once_and_shared_by_every_process(ann, db_path, clock):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.core.config import Config

    first = ann.get("/api/push/key").json["public_key"]
    other = bootstrap(Config.from_env(base_env(db_path)), clock=clock)  # the worker, say
    conn = other.connect()
    try:
        assert other.push_keys.get(conn, clock.now_ms()).public_key == first
    finally:
        conn.close()
        other.hasher.close()
    assert len(first) == 87  # 65 bytes, base64url: an uncompressed P-256 point


def test_a_key_file_is_the_key(db_path, tmp_path, clock):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.core.config import Config, ConfigError
    from kmood_lib.upstream import webpush

    pem = webpush.new_private_pem()
    (tmp_path / "vapid.pem").write_text(pem)
    services = bootstrap(Config.from_env(base_env(db_path, KMOOD_VAPID_PRIVATE_KEY_FILE=str(
        tmp_path / "vapid.pem"))), clock=clock)
    conn = services.connect()
    try:
        assert services.push_keys.get(conn, 0).public_key == webpush.Vapid(pem, "x").public_key
        assert conn.execute("SELECT count(*) FROM push_keys").fetchone()[0] == 0
    finally:
        conn.close()
        services.hasher.close()
    for name, value in (("KMOOD_VAPID_PRIVATE_KEY_FILE", str(tmp_path / "missing.pem")),
                        ("KMOOD_VAPID_SUBJECT", "admin@example.org")):
        with pytest.raises(ConfigError, match=name):
            Config.from_env(base_env(db_path, **{name: value}))


def test_a_reminders_notification_opens_the_log_page_for_its_day(ann):
    page = ann.get("/?day=2026-12-02&at=20:30").text
    assert 'name="date" value="2026-12-02"' in page and 'name="time" value="20:30"' in page
    assert "data-now" not in page
    for asked in ("/?day=2026-12-03&at=20:30", "/?day=2027-01-01", "/?day=x&at=99:99", "/",
                  "/?day=2026-W01-1"):
        assert "data-now" in ann.get(asked).text, asked  # today, ahead or nonsense: now


def test_a_push_service_that_refuses_for_good_is_not_asked_again_and_the_rest_still_get_it(
        ann, service, services, clock, conn):
    refusing, fine = service.browser(), service.browser()
    for browser in (refusing, fine):
        assert ann.post("/api/push/subscriptions", browser.subscription()).status == 201
    service.answers[refusing.token] = [(403, {})]
    ann.post("/api/reminders", {"time": "20:30", "channel": "webpush"})
    step(services, clock)
    step(services, clock, 4 * 60)
    assert [r["token"] for r in service.received] == [fine.token]
    assert deliveries(conn) == [("2026-12-03", "sent", None)]  # settled: no retry for a 403
    (noted,) = [d for d in ann.get("/api/push/subscriptions").json["subscriptions"]
                if d["last_error"]]
    assert "HTTP 403" in noted["last_error"]


def test_when_every_device_refuses_the_occurrence_fails_at_once_and_says_why(
        ann, service, services, clock, conn):
    refusing = service.browser()
    assert ann.post("/api/push/subscriptions", refusing.subscription()).status == 201
    service.answers[refusing.token] = [(400, {})]
    ann.post("/api/reminders", {"time": "20:30", "channel": "webpush"})
    step(services, clock)
    step(services, clock, 4 * 60)
    ((_, status, error),) = deliveries(conn)
    assert status == "failed" and "HTTP 400" in error
    assert jobs.list_jobs(conn, kind="reminder")[0]["attempts"] == 1


def test_keys_that_are_no_point_on_the_curve_are_refused(ann, service):
    body = service.browser().subscription()
    body["keys"]["p256dh"] = "BA" + "A" * 85  # 65 bytes, but no P-256 point
    assert ann.post("/api/push/subscriptions", body).status == 422
    body = {**service.browser().subscription(), "endpoint": "https://push.example:99999/x"}
    assert ann.post("/api/push/subscriptions", body).status == 422


def test_the_subject_is_one_push_services_take(db_path, clock):
    from kmood_lib.core.config import Config, ConfigError
    from kmood_lib.reminders import push

    for wrong in ("https://mood.example.org/", "https://mood.example.org:8443", "mailto:me@home",
                  "admin@example.org"):
        with pytest.raises(ConfigError, match="KMOOD_VAPID_SUBJECT"):
            Config.from_env(base_env(db_path, KMOOD_VAPID_SUBJECT=wrong))
    config = Config.from_env(base_env(db_path, KMOOD_PUBLIC_URL="https://mood.example.org:8443"
                                                                "/k-mood"))
    assert push.Keys(config).subject() == "https://mood.example.org"
    assert push.Keys(Config.from_env(base_env(db_path))).subject() == push.DEFAULT_SUBJECT


def test_rebuilding_the_reminders_table_keeps_its_rows_and_never_reuses_an_id(tmp_path):
    import sqlite3

    from kmood_lib.core.migrate import load_migrations, run

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.create_function("kmood_name_key", 1, lambda s: s.casefold() if s else s)
    migrations = load_migrations()
    run(conn, [m for m in migrations if m.version < 37], lambda: 0)
    conn.execute("INSERT INTO users (username, username_key, password_hash, created_at,"
                 " updated_at, timezone) VALUES ('ann', 'ann', 'x', 0, 0, 'UTC')")
    for _ in range(3):
        conn.execute("INSERT INTO reminders (user_id, local_minute, weekdays, timezone, channel,"
                     " url, created_at, updated_at) VALUES (1, 600, 127, 'UTC', 'webhook',"
                     " 'https://example.org/h', 0, 0)")
    conn.execute("INSERT INTO reminder_deliveries (reminder_id, local_date, status, at)"
                 " VALUES (2, '2026-12-01', 'sent', 0)")
    conn.execute("DELETE FROM reminders WHERE id = 3")
    run(conn, migrations, lambda: 0)
    assert [r[0] for r in conn.execute("SELECT id FROM reminders")] == [1, 2]
    assert [r[0] for r in conn.execute("SELECT reminder_id FROM reminder_deliveries")] == [2]
    made = conn.execute("INSERT INTO reminders (user_id, local_minute, weekdays, timezone,"
                        " channel, url, created_at, updated_at) VALUES (1, 600, 127, 'UTC',"
                        " 'webpush', '', 0, 0) RETURNING id").fetchone()[0]
    assert made == 4
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("DELETE FROM reminders WHERE id = 2")  # its deliveries still follow it
    assert conn.execute("SELECT count(*) FROM reminder_deliveries").fetchone()[0] == 0
    conn.close()
