"""Reminders: a local time on chosen weekdays in an IANA zone, and the schedule kept as state.

Each reminder stores its next occurrence — `next_fire_at` (UTC ms) and the local date it
belongs to — computed here with zoneinfo whenever the reminder is saved or an occurrence is
settled. A day's fire time is the wall time in the reminder's zone with fold=0: on the
spring-forward day a time that does not exist fires shifted forward by the gap (02:30 ->
03:30 in Europe/Berlin); on the fall-back day a time in the repeated hour fires once, at its
first occurrence. A reminder saved after today's time first fires tomorrow.

The token is write-only: no response, export or log line carries it.
"""

from __future__ import annotations

import ipaddress
import sqlite3
import urllib.parse
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from kmood_lib.accounts import users
from kmood_lib.core.clock import ms_to_iso
from kmood_lib.core.errors import NotFound
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.validation import Fields
from kmood_lib.upstream.http import is_public

CHANNELS = ("ntfy", "gotify", "webhook", "webpush")  # webpush: the person's own devices
WRITABLE = {"time", "weekdays", "timezone", "channel", "url", "token", "title", "message",
            "skip_if_logged", "enabled"}
READ_ONLY = {"id", "has_token", "next_fire_at", "next_local_date", "created_at", "updated_at"}
MAX_URL, MAX_TOKEN, MAX_TITLE, MAX_MESSAGE = 2000, 500, 100, 500
ALL_DAYS = (0, 1, 2, 3, 4, 5, 6)


# --- the schedule -------------------------------------------------------------------------

def fire_time(day: date, minute: int, tz: ZoneInfo) -> datetime:
    """When `day`'s occurrence fires, in UTC: the wall time with fold=0 (see module doc)."""
    wall = datetime.combine(day, time(minute // 60, minute % 60), tzinfo=tz)  # fold=0
    return wall.astimezone(timezone.utc)


def next_occurrence(minute: int, weekdays: int, tz: ZoneInfo, now: datetime,
                    after: date | None = None) -> tuple[int, str]:
    """(fire_at UTC ms, local date) of the first occurrence on a chosen local weekday whose
    fire time is after `now`, on a local date after `after` when given."""
    day = now.astimezone(tz).date()
    if after is not None and after >= day:
        day = after + timedelta(days=1)
    for _ in range(15):  # a week and a day cover every mask, with a spare for a DST day
        if weekdays >> day.weekday() & 1:
            fires = fire_time(day, minute, tz)
            if fires > now:
                return int(fires.timestamp() * 1000), day.isoformat()
        day += timedelta(days=1)
    raise AssertionError("a weekday mask with no day in it")  # the CHECK makes it impossible


# --- input --------------------------------------------------------------------------------

def private_address(host: str) -> bool:
    """True for loopback, link-local, private and other non-public literal addresses, and for
    'localhost' names; a host name is vetted on the address connected to, at send time."""
    name = host.strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return not is_public(address)


def check_url(f: Fields, value, channel: str | None, allow_private: bool) -> str | None:
    if not isinstance(value, str) or not value.strip():
        f.fail("url", Phrase("required: the address to send to"))
        return None
    url = value.strip()
    parts = urllib.parse.urlsplit(url)
    if len(url) > MAX_URL or not url.isascii() or not url.isprintable():
        f.fail("url", Phrase("must be a printable ASCII URL of at most {n} characters",
                             n=MAX_URL))
    elif parts.scheme not in ("http", "https") or not parts.hostname:
        f.fail("url", Phrase("must be an http:// or https:// URL with a host"))
    elif parts.username or parts.password:
        f.fail("url", Phrase("must not carry a user name or password: use the token"))
    elif not allow_private and private_address(parts.hostname):
        f.fail("url", Phrase("points at a private or local address (a server on your own"
                             " network); to allow that, set {setting} for both the server and"
                             " the worker and restart them ({doc})",
                             setting="KMOOD_ALLOW_PRIVATE_NOTIFY_URLS=1",
                             doc="docs/configuration.md"))
    elif channel == "ntfy" and not parts.path.strip("/"):
        f.fail("url", Phrase("must be the topic URL your ntfy app shows, such as {example}",
                             example="https://ntfy.sh/my-topic"))
    else:
        return url
    return None


def parse_reminder(body: dict, *, current: dict | None, default_timezone: str,
                   allow_private: bool) -> dict:
    """Check a POST (current None) or PATCH body; returns the stored columns that change.
    Raises ValidationError naming every bad field."""
    f = Fields()
    f.reject_fields(body, WRITABLE, READ_ONLY)
    creating = current is None
    out = {**_when(f, body, creating, default_timezone),
           **_where(f, body, current, allow_private)}
    for name, limit, is_name in (("token", MAX_TOKEN, True), ("title", MAX_TITLE, True),
                                 ("message", MAX_MESSAGE, False)):
        if name in body:
            value = f.text(body, name, limit, nullable=True, is_name=is_name)
            out[name] = value or None
    for name in ("skip_if_logged", "enabled"):
        if name in body:
            if not isinstance(body[name], bool):
                f.fail(name, Phrase("must be true or false"))
            else:
                out[name] = int(body[name])
        elif creating:
            out[name] = 1
    f.raise_if_any()
    return out


def _when(f: Fields, body: dict, creating: bool, default_timezone: str) -> dict:
    """The time, weekdays and timezone a body sets (all of them when creating)."""
    out: dict = {}
    if "time" in body or creating:
        value = body.get("time")
        hours, sep, minutes = value.partition(":") if isinstance(value, str) else ("", "", "")
        if not (sep and len(hours) == 2 and len(minutes) == 2 and (hours + minutes).isascii()
                and (hours + minutes).isdigit() and int(hours) < 24 and int(minutes) < 60):
            f.fail("time", Phrase("must be HH:MM on a 24-hour clock, such as 20:30"))
        else:
            out["local_minute"] = int(hours) * 60 + int(minutes)
    if "weekdays" in body or creating:
        days = body.get("weekdays", list(ALL_DAYS))
        if not isinstance(days, list) or not days or not all(
                isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= 6 for d in days) \
                or len(set(days)) != len(days):
            f.fail("weekdays", Phrase("must be a non-empty list of distinct days 0-6 (Monday ="
                                      " 0)"))
        else:
            out["weekdays"] = sum(1 << d for d in days)
    if "timezone" in body or creating:
        zone = body.get("timezone")
        try:
            if zone is not None and not isinstance(zone, str):
                f.fail("timezone", Phrase("must be a string"))
            else:
                out["timezone"] = users.validate_timezone(zone or default_timezone)
        except users.AccountError as exc:
            f.fail("timezone", exc.message)
    return out


def _where(f: Fields, body: dict, current: dict | None, allow_private: bool) -> dict:
    """The channel and the address a body sets (both when creating; the address again when
    the channel changes)."""
    out: dict = {}
    creating = current is None
    channel = body.get("channel") if "channel" in body or creating else current["channel"]
    if "channel" in body or creating:
        if channel not in CHANNELS:
            f.fail("channel", Phrase("must be one of {channels}", channels=", ".join(CHANNELS)))
            channel = None
        else:
            out["channel"] = channel
    if channel == "webpush":  # to the person's devices (push.py): no address of its own
        if body.get("url", "") != "":
            f.fail("url", Phrase("must be left out for webpush: it goes to your devices"))
        out["url"] = ""
    elif "url" in body or creating or "channel" in body:
        url = check_url(f, body.get("url", None if creating else current["url"]), channel,
                        allow_private)
        if url is not None:
            out["url"] = url
    return out


# --- storage ------------------------------------------------------------------------------

_SELECT = ("SELECT id, user_id, local_minute, weekdays, timezone, channel, url,"
           " token IS NOT NULL AS has_token, title, message, skip_if_logged, enabled,"
           " next_fire_at, next_local_date, created_at, updated_at FROM reminders")


def reminder_json(row) -> dict:
    """SPEC §6; `token` is always null (write-only), `has_token` says whether one is set."""
    minute = row["local_minute"]
    return {"id": row["id"], "time": f"{minute // 60:02d}:{minute % 60:02d}",
            "weekdays": [d for d in ALL_DAYS if row["weekdays"] >> d & 1],
            "timezone": row["timezone"], "channel": row["channel"], "url": row["url"],
            "token": None, "has_token": bool(row["has_token"]), "title": row["title"],
            "message": row["message"], "skip_if_logged": bool(row["skip_if_logged"]),
            "enabled": bool(row["enabled"]),
            "next_fire_at": ms_to_iso(row["next_fire_at"]) if row["next_fire_at"] else None,
            "next_local_date": row["next_local_date"],
            "created_at": ms_to_iso(row["created_at"]), "updated_at": ms_to_iso(row["updated_at"])}


def list_reminders(conn: sqlite3.Connection, user_id: int) -> list[dict]:
    rows = conn.execute(_SELECT + " WHERE user_id = ? ORDER BY local_minute, id", (user_id,))
    return [reminder_json(r) for r in rows]


def get_reminder(conn: sqlite3.Connection, user_id: int, reminder_id: int) -> dict:
    row = conn.execute(_SELECT + " WHERE id = ? AND user_id = ?", (reminder_id, user_id)
                       ).fetchone()
    if row is None:
        raise NotFound("reminder")
    return reminder_json(row)


def token_of(conn: sqlite3.Connection, user_id: int, reminder_id: int) -> str | None:
    """The write-only token, for the code that sends (never for an answer)."""
    row = conn.execute("SELECT token FROM reminders WHERE id = ? AND user_id = ?",
                       (reminder_id, user_id)).fetchone()
    return None if row is None else row[0]


def recent_deliveries(conn: sqlite3.Connection, user_id: int, reminder_id: int | None = None,
                      limit: int = 10) -> list[dict]:
    """The latest settled occurrences, newest first, for the settings pages."""
    rows = conn.execute(
        "SELECT d.reminder_id, d.local_date, d.status, d.attempts, d.last_error, d.at,"
        " r.local_minute FROM reminder_deliveries d JOIN reminders r ON r.id = d.reminder_id"
        " WHERE r.user_id = ? AND (? IS NULL OR r.id = ?) ORDER BY d.at DESC, d.id DESC LIMIT ?",
        (user_id, reminder_id, reminder_id, limit)).fetchall()
    return [{"reminder_id": r["reminder_id"], "local_date": r["local_date"],
             "time": f"{r['local_minute'] // 60:02d}:{r['local_minute'] % 60:02d}",
             "status": r["status"], "attempts": r["attempts"], "last_error": r["last_error"],
             "at": ms_to_iso(r["at"])} for r in rows]


def _schedule(values: dict, now: datetime) -> tuple[int | None, str | None]:
    if not values["enabled"]:
        return None, None
    return next_occurrence(values["local_minute"], values["weekdays"],
                           ZoneInfo(values["timezone"]), now)


_COLUMNS = ("local_minute", "weekdays", "timezone", "channel", "url", "token", "title",
            "message", "skip_if_logged", "enabled")


def create_reminder(conn: sqlite3.Connection, user_id: int, values: dict, now_ms: int) -> dict:
    """Insert a checked reminder with its first occurrence (never today if its time has
    passed: saving does not send a surprise message)."""
    values = {"token": None, "title": None, "message": None, **values}
    fire_at, local_date = _schedule(values, _utc(now_ms))
    row = conn.execute(
        "INSERT INTO reminders (user_id, " + ", ".join(_COLUMNS) + ", next_fire_at,"
        " next_local_date, created_at, updated_at) VALUES (?" + ", ?" * (len(_COLUMNS) + 4)
        + ") RETURNING id", (user_id, *(values[c] for c in _COLUMNS), fire_at, local_date,
                             now_ms, now_ms)).fetchall()
    return get_reminder(conn, user_id, row[0][0])


def update_reminder(conn: sqlite3.Connection, user_id: int, reminder_id: int, changes: dict,
                    now_ms: int) -> dict:
    """Apply checked changes and schedule the next occurrence afresh (inside the caller's
    BEGIN IMMEDIATE: it reads the row, then writes it)."""
    row = conn.execute("SELECT * FROM reminders WHERE id = ? AND user_id = ?",
                       (reminder_id, user_id)).fetchone()
    if row is None:
        raise NotFound("reminder")
    values = {c: row[c] for c in _COLUMNS} | changes
    fire_at, local_date = _schedule(values, _utc(now_ms))
    delivered = conn.execute("SELECT 1 FROM reminder_deliveries WHERE reminder_id = ? AND"
                             " local_date = ?", (reminder_id, local_date)).fetchone()
    if delivered is not None:  # that day is settled already: the one after it
        fire_at, local_date = next_occurrence(values["local_minute"], values["weekdays"],
                                              ZoneInfo(values["timezone"]), _utc(now_ms),
                                              after=date.fromisoformat(local_date))
    assignments = ", ".join(f"{c} = ?" for c in _COLUMNS)  # columns from a fixed tuple
    conn.execute(f"UPDATE reminders SET {assignments}, next_fire_at = ?, next_local_date = ?,"
                 " updated_at = ? WHERE id = ? AND user_id = ?",
                 (*(values[c] for c in _COLUMNS), fire_at, local_date, now_ms, reminder_id,
                  user_id))
    return get_reminder(conn, user_id, reminder_id)


def delete_reminder(conn: sqlite3.Connection, user_id: int, reminder_id: int) -> None:
    if conn.execute("DELETE FROM reminders WHERE id = ? AND user_id = ?",
                    (reminder_id, user_id)).rowcount == 0:
        raise NotFound("reminder")


def _utc(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, timezone.utc)
