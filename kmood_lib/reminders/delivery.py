"""The `reminder` job kind: sending each occurrence once, on time, from state.

1. The sweeper finds enabled reminders whose `next_fire_at` falls before now + the sweep
   interval and that have no delivery for that local date, and queues one job each, due at
   `next_fire_at` (the worker wakes at the earliest run_after). Saving a reminder queues the
   same job at once (the prompt path), keyed `reminder:<id>:<local date>` by both.
2. The handler re-checks the reminder, sends through its channel (or to the person's
   devices by Web Push, push.py) unless skip-if-logged finds
   an entry that local day, and in the transaction that completes the job records the
   delivery and moves `next_fire_at` on. The unique (reminder, local date) row makes a second
   recorded delivery impossible; a crash between sending and recording can at worst send one
   duplicate.
3. Nothing is sent late: past KMOOD_REMINDER_GRACE_S an occurrence is recorded as `missed`
   (or `failed` when sending kept failing), by the handler or by the worker's missed step.

What is sent is the title and message the person wrote, as written; where they wrote none,
k-mood's own words in the person's language (SPEC §13).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from kmood_lib.accounts import users
from kmood_lib.core.db import transaction
from kmood_lib.core.i18n import N_
from kmood_lib.queue import jobs, sweeps
from kmood_lib.reminders import push
from kmood_lib.reminders import schedule as reminders
from kmood_lib.reminders.schedule import fire_time, next_occurrence
from kmood_lib.upstream.http import UpstreamError

log = logging.getLogger(__name__)

KIND = "reminder"
SEND_TIMEOUT_S = 20
DEFAULT_TITLE = "k-mood"  # a name: the same in every language
DEFAULT_MESSAGE = N_("How are you feeling? Take a moment to log your mood.")
# Why an occurrence was not sent, as its delivery records it (English, the message id: the
# reminders page says it in the person's language).
NOT_REACHED = N_("the worker did not get to it within the grace window")
WORKER_DOWN = N_("nothing was sent within the grace window (was the worker down?)")

# Due occurrences not yet delivered. Parameters: now (ms), the lookahead (ms), then the
# reminder id where `{one}` narrows it.
_DUE = (
    "SELECT 'reminder:' || r.id || ':' || r.next_local_date AS key,"
    " json_object('reminder_id', r.id, 'local_date', r.next_local_date) AS payload,"
    " r.next_fire_at AS run_after FROM reminders r"
    " WHERE r.enabled = 1 AND r.next_fire_at IS NOT NULL AND r.next_fire_at <= ? + ?{one}"
    " AND NOT EXISTS (SELECT 1 FROM reminder_deliveries d WHERE d.reminder_id = r.id"
    "  AND d.local_date = r.next_local_date)"
)


def reminder_kind(config) -> sweeps.JobKind:
    lookahead_ms = int(config.sweep_interval_s * 1000)
    return sweeps.JobKind(KIND, _DUE.format(one=""), handle_reminder,
                          sweep_params=lambda now_ms: (now_ms, lookahead_ms), timed=True)


def prompt_reminder(conn, services, reminder_id: int, now_ms: int) -> None:
    """After a reminder is saved: queue its occurrence now when it is due within the sweep's
    lookahead (the sweep would find the same job, by the same key)."""
    lookahead_ms = int(services.config.sweep_interval_s * 1000)
    policy = jobs.Policy.from_config(services.config)
    with transaction(conn):
        for row in conn.execute(_DUE.format(one=" AND r.id = ?"),
                                (now_ms, lookahead_ms, reminder_id)).fetchall():
            sweeps.enqueue(conn, services.job_kinds, KIND, row["key"], json.loads(row["payload"]),
                           now_ms, policy, run_after_ms=row["run_after"])
    services.relay.wake()  # the worker's next wake-up may now be sooner


def prompt_saved(services, conn, reminder_id: int) -> None:
    """prompt_reminder for a reminder the user just saved: the save stands whatever happens
    here, and the sweep finds the occurrence if queueing it now fails."""
    try:
        prompt_reminder(conn, services, reminder_id, services.clock.now_ms())
    except sqlite3.Error as exc:
        log.warning("reminder %d saved; queueing it now failed (%s): the sweep will",
                    reminder_id, exc)


def reminder_text(conn, services, reminder) -> tuple[str, str]:
    """(title, message) a reminder sends: the person's own, else k-mood's in their language —
    their setting, else KMOOD_DEFAULT_LANGUAGE (no browser is asking)."""
    if reminder["title"] and reminder["message"]:
        return reminder["title"], reminder["message"]
    person = users.get_user(conn, reminder["user_id"])
    words = services.languages.choose(person.language if person else None, None,
                                      services.config.default_language)
    return (reminder["title"] or DEFAULT_TITLE,
            reminder["message"] or words.gettext(DEFAULT_MESSAGE))


def logged_on(conn, user_id: int, day: str, tz: ZoneInfo) -> bool:
    """Whether the user has an entry on that local day in the reminder's zone."""
    start = fire_time(date.fromisoformat(day), 0, tz)
    end = fire_time(date.fromisoformat(day) + timedelta(days=1), 0, tz)
    return conn.execute("SELECT 1 FROM entries WHERE user_id = ? AND occurred_at >= ?"
                        " AND occurred_at < ? LIMIT 1",
                        (user_id, int(start.timestamp() * 1000), int(end.timestamp() * 1000))
                        ).fetchone() is not None


def settle(conn, reminder, day: str, status: str, attempts: int, error: str | None,
           now_ms: int) -> None:
    """Record the day's delivery and move the reminder on to its next occurrence."""
    conn.execute("INSERT OR IGNORE INTO reminder_deliveries (reminder_id, local_date, status,"
                 " attempts, last_error, at) VALUES (?, ?, ?, ?, ?, ?)",
                 (reminder["id"], day, status, attempts, error, now_ms))
    fire_at, next_day = next_occurrence(
        reminder["local_minute"], reminder["weekdays"], ZoneInfo(reminder["timezone"]),
        datetime.fromtimestamp(now_ms / 1000, timezone.utc), after=date.fromisoformat(day))
    conn.execute("UPDATE reminders SET next_fire_at = ?, next_local_date = ? WHERE id = ?"
                 " AND next_local_date = ?", (fire_at, next_day, reminder["id"], day))
    log.info("reminder %d for %s: %s%s", reminder["id"], day, status,
             f" ({error})" if error else "")


def handle_reminder(ctx) -> None:
    services, conn = ctx.services, ctx.conn
    reminder_id, day = int(ctx.payload["reminder_id"]), str(ctx.payload["local_date"])
    reminder = conn.execute("SELECT * FROM reminders WHERE id = ?", (reminder_id,)).fetchone()
    now_ms = services.clock.now_ms()
    current = (reminder is not None and reminder["enabled"]
               and reminder["next_local_date"] == day and conn.execute(
                   "SELECT 1 FROM reminder_deliveries WHERE reminder_id = ? AND local_date = ?",
                   (reminder_id, day)).fetchone() is None)
    if not current:  # deleted, disabled, moved or delivered meanwhile: the sweep knows better
        with ctx.completing():
            return
    if now_ms < reminder["next_fire_at"]:
        raise jobs.Defer("not yet time", reminder["next_fire_at"])
    grace_ms = int(services.config.reminder_grace_s * 1000)
    attempts = ctx.job.attempts
    if now_ms > reminder["next_fire_at"] + grace_ms:
        previous = conn.execute("SELECT last_error FROM jobs WHERE id = ?", (ctx.job.id,)
                                ).fetchone()[0]
        with ctx.completing() as conn:
            settle(conn, reminder, day, "failed" if attempts > 1 else "missed", attempts,
                   previous if attempts > 1 else NOT_REACHED, now_ms)
        return
    tz = ZoneInfo(reminder["timezone"])
    if reminder["skip_if_logged"] and logged_on(conn, reminder["user_id"], day, tz):
        with ctx.completing() as conn:
            settle(conn, reminder, day, "skipped", attempts, None, now_ms)
        return
    title, message = reminder_text(conn, services, reminder)
    try:
        if reminder["channel"] == "webpush":
            push.deliver(services, conn, reminder, day, title, message, ctx.extend_lease)
        else:
            services.notifier.send(reminder["channel"], reminder["url"], reminder["token"],
                                   title, message, reminder_id=reminder_id, local_date=day,
                                   timeout_s=SEND_TIMEOUT_S)
    except UpstreamError as exc:
        if attempts >= ctx.job.max_attempts or isinstance(exc, push.NoDevice):
            with ctx.completing() as conn:
                settle(conn, reminder, day, "failed", attempts, str(exc)[:500],
                       services.clock.now_ms())
            return
        raise  # the queue retries with backoff, until the grace window ends
    with ctx.completing() as conn:
        settle(conn, reminder, day, "sent", attempts, None, services.clock.now_ms())


def record_missed(services, conn, now_ms: int) -> bool:
    """The worker's missed step: occurrences older than the grace window with no delivery
    (the worker was down) are recorded as missed and moved on; nothing is sent late."""
    grace_ms = int(services.config.reminder_grace_s * 1000)
    overdue = conn.execute("SELECT id FROM reminders WHERE enabled = 1 AND next_fire_at < ?",
                           (now_ms - grace_ms,)).fetchall()
    for (reminder_id,) in overdue:
        with transaction(conn):  # read, then write: under BEGIN IMMEDIATE
            reminder = conn.execute("SELECT * FROM reminders WHERE id = ? AND enabled = 1"
                                    " AND next_fire_at < ?",
                                    (reminder_id, now_ms - grace_ms)).fetchone()
            if reminder is not None:
                settle(conn, reminder, reminder["next_local_date"], "missed", 0, WORKER_DOWN,
                       now_ms)
    return False


def send_test(conn, services, user_id: int, reminder_id: int) -> dict:
    """One message now through the reminder's channel, for the user to see it works: the
    upstream's answer, and no delivery recorded. NotFound for someone else's reminder."""
    reminder = reminders.get_reminder(conn, user_id, reminder_id)
    title, message = reminder_text(conn, services, {**reminder, "user_id": user_id})
    if reminder["channel"] == "webpush":
        return push_test(conn, services, user_id, title, message)
    try:
        sent = services.notifier.send(
            reminder["channel"], reminder["url"], reminders.token_of(conn, user_id, reminder_id),
            title, message, reminder_id=reminder_id,
            local_date=reminder["next_local_date"],
            timeout_s=services.config.reminder_test_timeout_s)
    except UpstreamError as exc:
        return {"ok": False, "status": exc.status, "body": "", "error": str(exc)[:300]}
    return {"ok": True, "status": sent.status, "body": sent.excerpt, "error": None}


def push_test(conn, services, user_id: int, title: str, message: str) -> dict:
    """A webpush reminder's test: to each of the person's devices, the first failure said
    (else the first answer); no device at all is a failure that says how to add one."""
    answers = [push.send_test(services, conn, user_id, device["id"], title, message)
               for device in push.list_devices(conn, user_id)]
    if not answers:
        return {"ok": False, "status": None, "body": "",
                "error": "no device has notifications on: Notify this device first"}
    return next((a for a in answers if not a["ok"]), answers[0])


def push_device_test(conn, services, user_id: int, device_id: int) -> dict:
    """A test notification to one device, in the person's words of a reminder."""
    title, message = reminder_text(conn, services, {"title": None, "message": None,
                                                    "user_id": user_id})
    return push.send_test(services, conn, user_id, device_id, title, message)
