"""Reminder delivery driven in process with a fake clock: the sweep queues an occurrence due at
its time, the handler sends it once and moves on, skip-if-logged, missed and failed past the
grace window — never sent late (issue #13)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from kmood_lib.queue import jobs
from tests.fakes import FakeUpstream, Reply
from tests.helpers import base_env, one_worker_iteration

BERLIN_MORNING = datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc)  # Thursday, 10:00 in Berlin


@pytest.fixture
def channel():
    with FakeUpstream() as fake:
        fake.failure = None
        fake.route("*", lambda record: fake.failure or Reply({"id": "ok"}))
        yield fake


@pytest.fixture
def env(db_path, channel):
    return base_env(db_path, KMOOD_ALLOW_PRIVATE_NOTIFY_URLS="1", KMOOD_SWEEP_INTERVAL_S="300",
                    KMOOD_REMINDER_GRACE_S="3600", KMOOD_JOB_BACKOFF_BASE_S="60",
                    KMOOD_JOB_BACKOFF_CAP_S="600", KMOOD_ENRICH_WEATHER="0",
                    KMOOD_ENRICH_PLACE="0", KMOOD_ENRICH_SONGS="0")


@pytest.fixture
def ann(client_for, clock):
    clock.set(BERLIN_MORNING)
    return client_for("ann", timezone="Europe/Berlin")


def remind(client, channel, time="20:30", **extra) -> dict:
    made = client.post("/api/reminders", {"time": time, "channel": "webhook",
                                          "url": channel.url + "/hook", **extra})
    assert made.status == 201, made.text
    return made.json


def step(services, clock, seconds: float = 0) -> None:
    """Let time pass, then one worker iteration (sweep, due jobs, maintenance)."""
    clock.advance(seconds)
    one_worker_iteration(services)


def deliveries(conn) -> list[tuple]:
    return [tuple(r) for r in conn.execute(
        "SELECT reminder_id, local_date, status FROM reminder_deliveries ORDER BY id")]


def test_an_occurrence_is_sent_once_at_its_time_and_the_reminder_moves_on(ann, services,
                                                                          clock, conn, channel):
    reminder = remind(ann, channel)
    step(services, clock)  # 10:00: not within the sweep's lookahead yet
    assert jobs.list_jobs(conn, kind="reminder") == []
    clock.set(datetime(2026, 12, 3, 19, 26, tzinfo=timezone.utc))  # 20:26 in Berlin
    step(services, clock)
    (job,) = jobs.list_jobs(conn, kind="reminder")
    assert job["key"] == f"reminder:{reminder['id']}:2026-12-03"
    assert job["run_after"] == int(datetime(2026, 12, 3, 19, 30, tzinfo=timezone.utc
                                            ).timestamp() * 1000)
    assert channel.requests == []  # queued for 20:30, not sent early
    step(services, clock, 4 * 60)  # 20:30
    assert len(channel.requests) == 1
    assert channel.requests[0]["json"]["local_date"] == "2026-12-03"
    assert deliveries(conn) == [(reminder["id"], "2026-12-03", "sent")]
    assert ann.get(f"/api/reminders/{reminder['id']}").json["next_local_date"] == "2026-12-04"
    for _ in range(3):  # more sweeps and iterations that day: nothing more is sent
        step(services, clock, 60)
    assert len(channel.requests) == 1
    conn.execute("DELETE FROM jobs")  # even with the queue lost, the state says it was sent
    step(services, clock, 60)
    assert len(channel.requests) == 1


def test_saving_a_reminder_due_soon_queues_it_at_once(ann, services, clock, conn, channel):
    clock.set(datetime(2026, 12, 3, 19, 28, tzinfo=timezone.utc))  # 20:28 in Berlin
    reminder = remind(ann, channel)  # 20:30: inside the lookahead
    (job,) = jobs.list_jobs(conn, kind="reminder")
    assert job["key"] == f"reminder:{reminder['id']}:2026-12-03"
    step(services, clock, 120)
    assert deliveries(conn) == [(reminder["id"], "2026-12-03", "sent")]


def test_skip_if_logged_sends_nothing_when_the_user_logged_that_local_day(ann, services, clock,
                                                                         conn, channel):
    reminder = remind(ann, channel)
    other = remind(ann, channel, skip_if_logged=False)
    ann.post("/api/entries", {"mood": 4, "occurred_at": "2026-12-03T08:15:00+01:00"})
    clock.set(datetime(2026, 12, 3, 19, 30, tzinfo=timezone.utc))
    step(services, clock)
    step(services, clock, 1)
    assert sorted(deliveries(conn)) == [(reminder["id"], "2026-12-03", "skipped"),
                                        (other["id"], "2026-12-03", "sent")]
    assert len(channel.requests) == 1


def test_an_entry_on_another_local_day_does_not_count_as_logged(ann, services, clock, conn,
                                                                channel):
    reminder = remind(ann, channel, time="00:30")  # fires 00:30 on Friday 4 December
    ann.post("/api/entries", {"mood": 3, "occurred_at": "2026-12-03T23:50:00+01:00"})
    clock.set(datetime(2026, 12, 3, 23, 30, tzinfo=timezone.utc))
    step(services, clock)
    assert deliveries(conn) == [(reminder["id"], "2026-12-04", "sent")]


def test_a_worker_down_past_the_grace_window_records_missed_and_sends_nothing(
        ann, services, clock, conn, channel):
    reminder = remind(ann, channel)
    clock.set(datetime(2026, 12, 3, 21, 0, tzinfo=timezone.utc))  # 22:00: 90 min late
    step(services, clock)
    assert deliveries(conn) == [(reminder["id"], "2026-12-03", "missed")]
    assert channel.requests == []
    assert ann.get(f"/api/reminders/{reminder['id']}").json["next_local_date"] == "2026-12-04"


def test_a_failing_channel_retries_then_sends_exactly_once(ann, services, clock, conn, channel):
    reminder = remind(ann, channel)
    channel.failure = Reply({"error": "down"}, 503)
    clock.set(datetime(2026, 12, 3, 19, 30, tzinfo=timezone.utc))
    step(services, clock)
    (job,) = jobs.list_jobs(conn, kind="reminder")
    assert job["status"] == "retrying" and "503" in job["last_error"]
    assert deliveries(conn) == []
    channel.failure = None
    step(services, clock, 120)  # past the first backoff (at most 60 s)
    assert deliveries(conn) == [(reminder["id"], "2026-12-03", "sent")]
    assert [r["json"]["local_date"] for r in channel.requests if r["path"] == "/hook"] == [
        "2026-12-03"] * 2  # one failed try, one success
    step(services, clock, 600)
    assert deliveries(conn) == [(reminder["id"], "2026-12-03", "sent")]


def test_failing_past_the_grace_window_records_failed_and_never_sends_late(
        ann, services, clock, conn, channel):
    reminder = remind(ann, channel)
    channel.failure = Reply({"error": "down"}, 503)
    clock.set(datetime(2026, 12, 3, 19, 30, tzinfo=timezone.utc))
    step(services, clock)
    tries = len(channel.requests)
    channel.failure = None  # it recovers, but only after the grace window
    step(services, clock, 3700)
    assert deliveries(conn) == [(reminder["id"], "2026-12-03", "failed")]
    assert len(channel.requests) == tries  # nothing sent late
    failed = conn.execute("SELECT last_error FROM reminder_deliveries").fetchone()[0]
    assert "503" in failed


def test_a_disabled_reminder_never_fires_and_a_moved_one_fires_at_its_new_time(
        ann, services, clock, conn, channel):
    off = remind(ann, channel, enabled=False)
    moved = remind(ann, channel, time="20:00")
    ann.patch(f"/api/reminders/{moved['id']}", {"time": "21:00"})
    clock.set(datetime(2026, 12, 3, 19, 0, tzinfo=timezone.utc))  # 20:00 in Berlin
    step(services, clock)
    step(services, clock, 3600)  # 21:00
    assert deliveries(conn) == [(moved["id"], "2026-12-03", "sent")]
    assert off["next_fire_at"] is None


def test_the_weekday_filter_skips_days_not_chosen(ann, services, clock, conn, channel):
    reminder = remind(ann, channel, time="09:00", weekdays=[5])  # Saturdays
    clock.set(datetime(2026, 12, 5, 8, 0, tzinfo=timezone.utc))  # Saturday 09:00 in Berlin
    step(services, clock)
    assert deliveries(conn) == [(reminder["id"], "2026-12-05", "sent")]
    assert ann.get(f"/api/reminders/{reminder['id']}").json["next_local_date"] == "2026-12-12"


@pytest.mark.parametrize("zone, time, now, fires_on", [
    ("Europe/Berlin", "02:30", datetime(2026, 3, 29, 1, 0, tzinfo=timezone.utc), "2026-03-29"),
    ("America/New_York", "01:30", datetime(2026, 11, 1, 5, 0, tzinfo=timezone.utc),
     "2026-11-01"),
    ("Pacific/Kiritimati", "08:00", datetime(2026, 12, 3, 17, 0, tzinfo=timezone.utc),
     "2026-12-04"),
])
def test_dst_days_and_far_zones_fire_once_on_their_local_date(ann, services, clock, conn,
                                                             channel, zone, time, now,
                                                             fires_on):
    clock.set(now - timedelta(hours=6))  # the reminder is saved some hours before
    reminder = remind(ann, channel, time=time, timezone=zone)
    assert reminder["next_local_date"] == fires_on
    clock.set(datetime.fromisoformat(reminder["next_fire_at"].replace("Z", "+00:00")))
    step(services, clock)
    for _ in range(4):  # the rest of that local day, the repeated hour included
        step(services, clock, 30 * 60)
    sent = [d for d in deliveries(conn) if d[1] == fires_on]
    assert sent == [(reminder["id"], fires_on, "sent")]
    assert len([r for r in channel.requests if r["json"]["local_date"] == fires_on]) == 1


def test_the_token_never_reaches_the_jobs_table_or_the_log(ann, services, clock, conn, channel,
                                                          caplog):
    import logging

    reminder = remind(ann, channel, token="tk_job_secret")
    channel.failure = Reply({"error": "down"}, 503)
    clock.set(datetime(2026, 12, 3, 19, 30, tzinfo=timezone.utc))
    with caplog.at_level(logging.DEBUG):
        step(services, clock)
        channel.failure = None
        step(services, clock, 120)
    assert deliveries(conn) == [(reminder["id"], "2026-12-03", "sent")]
    assert channel.requests[-1]["headers"]["Authorization"] == "Bearer tk_job_secret"
    for row in conn.execute("SELECT * FROM jobs").fetchall():
        assert "tk_job_secret" not in " ".join(str(v) for v in tuple(row))
    assert conn.execute("SELECT count(*) FROM reminder_deliveries WHERE last_error LIKE"
                        " '%tk_job_secret%'").fetchone()[0] == 0
    assert "tk_job_secret" not in caplog.text


GERMAN = ('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n'
          '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
          'msgid "How are you feeling? Take a moment to log your mood."\n'
          'msgstr "Wie geht es dir? Nimm dir einen Moment für deine Stimmung."\n')


@pytest.fixture
def german(services, tmp_path):
    """A German catalogue that has the reminder's words (the real one has them once translated),
    and German as the server's default language."""
    from kmood_lib.core.i18n import Languages

    catalogue = tmp_path / "locale" / "de" / "LC_MESSAGES" / "messages.po"
    catalogue.parent.mkdir(parents=True)
    catalogue.write_text(GERMAN, encoding="utf-8")
    services.languages = Languages(tmp_path / "locale")
    services.config = services.config.with_overrides(default_language="de")
    return "Wie geht es dir? Nimm dir einen Moment für deine Stimmung."


def test_a_reminder_without_words_of_its_own_is_sent_in_its_persons_language(
        german, services, clock, conn, channel, client_for):
    """Ann chose English, Bea German; Cem chose none: the server's default (German). What a
    person wrote is sent as written; the webhook's keys stay English."""
    clock.set(BERLIN_MORNING)
    people = {name: client_for(name, timezone="Europe/Berlin") for name in ("ann", "bea", "cem")}
    assert people["ann"].patch("/api/me", {"language": "en"}).status == 200
    assert people["bea"].patch("/api/me", {"language": "de"}).status == 200
    made = {name: remind(client, channel)["id"] for name, client in people.items()}
    own = remind(people["bea"], channel, title="Abend", message="Wie war dein Tag?")["id"]
    clock.set(datetime(2026, 12, 3, 19, 30, tzinfo=timezone.utc))
    step(services, clock)
    sent = {r["json"]["reminder_id"]: r["json"] for r in channel.requests}
    english = "How are you feeling? Take a moment to log your mood."
    assert {name: sent[made[name]]["message"] for name in made} == {
        "ann": english, "bea": german, "cem": german}
    assert sent[made["bea"]]["title"] == "k-mood"
    assert (sent[own]["title"], sent[own]["message"]) == ("Abend", "Wie war dein Tag?")
    assert set(sent[own]) == {"title", "message", "reminder_id", "local_date"}
