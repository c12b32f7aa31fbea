"""Web Push devices (SPEC §16): each browser a person turned notifications on in, and sending
a reminder to all of them.

1. The installation's VAPID key is KMOOD_VAPID_PRIVATE_KEY_FILE's, else one made once and
   kept in `push_keys` (the first process to need it makes it; INSERT OR IGNORE, then read).
2. A subscription is the push service's endpoint (an https URL on a public address, held to
   the webhooks' guard) and the browser's keys; one endpoint is one device, whoever
   subscribed it last.
3. An occurrence goes to each device it has not reached yet (`push_sends`): a retry after a
   429 or 5xx sends only to the devices still waiting. A device whose push service answers
   404 or 410 is forgotten.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import urllib.parse

from kmood_lib.core.clock import ms_to_iso
from kmood_lib.core.errors import NotFound, ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import problem as text_problem
from kmood_lib.reminders.schedule import private_address
from kmood_lib.upstream import webpush
from kmood_lib.upstream.http import UpstreamError

log = logging.getLogger(__name__)

MAX_ENDPOINT, MAX_LABEL, MAX_DEVICES = 2000, 100, 20
SEND_TIMEOUT_S = 20
DEFAULT_SUBJECT = "mailto:webpush@localhost"


class Keys:
    """The installation's VAPID key, read (or made) once per process."""

    def __init__(self, config):
        self.config = config
        self.lock = threading.Lock()
        self.vapid: webpush.Vapid | None = None

    def subject(self) -> str:
        """KMOOD_VAPID_SUBJECT, else KMOOD_PUBLIC_URL's https origin (a host name with a dot,
        no port: what push services take), else a placeholder Apple's service refuses."""
        c = self.config
        if c.vapid_subject:
            return c.vapid_subject
        parts = urllib.parse.urlsplit(c.public_url)
        if parts.scheme == "https" and parts.hostname and "." in parts.hostname:
            return f"https://{parts.hostname}"
        log.warning("web push: no KMOOD_VAPID_SUBJECT, and KMOOD_PUBLIC_URL is not an https"
                    " host name: pushes say %s, which Apple's push service refuses",
                    DEFAULT_SUBJECT)
        return DEFAULT_SUBJECT

    def get(self, conn: sqlite3.Connection, now_ms: int) -> webpush.Vapid:
        with self.lock:
            if self.vapid is None:
                self.vapid = webpush.Vapid(self._pem(conn, now_ms), self.subject())
            return self.vapid

    def _pem(self, conn: sqlite3.Connection, now_ms: int) -> str:
        if self.config.vapid_private_key_file:
            with open(self.config.vapid_private_key_file, encoding="ascii") as file:
                return file.read()
        row = conn.execute("SELECT private_pem FROM push_keys WHERE id = 1").fetchone()
        if row is None:
            conn.execute("INSERT OR IGNORE INTO push_keys (id, private_pem, created_at)"
                         " VALUES (1, ?, ?)", (webpush.new_private_pem(), now_ms))
            row = conn.execute("SELECT private_pem FROM push_keys WHERE id = 1").fetchone()
            log.info("web push: made this installation's VAPID key")
        return row[0]


# --- subscriptions --------------------------------------------------------------------------

def check_subscription(body: object, allow_private: bool) -> dict:
    """A browser's PushSubscription as JSON ({endpoint, keys: {p256dh, auth}}) and a label;
    ValidationError naming every field that is wrong."""
    errors: dict[str, str] = {}
    body = body if isinstance(body, dict) else {}
    keys = body.get("keys") if isinstance(body.get("keys"), dict) else {}
    endpoint = body.get("endpoint")
    if not isinstance(endpoint, str) or not endpoint.isascii() or not endpoint.isprintable() \
            or len(endpoint) > MAX_ENDPOINT:
        errors["endpoint"] = Phrase("must be a push service's URL of at most {n} characters",
                                    n=MAX_ENDPOINT)
    else:
        parts = urllib.parse.urlsplit(endpoint)
        secure = parts.scheme == "https" or (allow_private and parts.scheme == "http")
        try:
            parts.port  # noqa: B018 -- raises for a port that is not one
        except ValueError:
            secure = False
        if not (secure and parts.hostname) or parts.username or parts.password:
            errors["endpoint"] = Phrase("must be an https:// URL of a push service")
        elif not allow_private and private_address(parts.hostname):
            errors["endpoint"] = Phrase("points at a private or local address")
    for name, size in (("p256dh", 65), ("auth", 16)):
        try:
            raw = webpush.b64url_bytes(keys.get(name))
        except ValueError:
            raw = b""
        if len(raw) != size or (name == "p256dh" and not webpush.is_public_key(raw)):
            errors[f"keys.{name}"] = Phrase("must be the browser's key, base64url")
    label = body.get("label", "")
    if not isinstance(label, str) or len(label.strip()) > MAX_LABEL or (
            label and text_problem(label, name=True)):
        errors["label"] = Phrase("must be 0-{max} characters", max=MAX_LABEL)
    if errors:
        raise ValidationError(errors)
    return {"endpoint": endpoint, "p256dh": keys["p256dh"], "auth": keys["auth"],
            "label": label.strip() or "A browser"}


def subscription_json(row) -> dict:
    """What the person sees of a device: never its keys, and of its endpoint only the host."""
    return {"id": row["id"], "label": row["label"],
            "push_service": urllib.parse.urlsplit(row["endpoint"]).hostname,
            "created_at": ms_to_iso(row["created_at"]),
            "last_success_at": ms_to_iso(row["last_success_at"]),
            "last_failure_at": ms_to_iso(row["last_failure_at"]),
            "last_error": row["last_error"]}


def subscribe(conn: sqlite3.Connection, user_id: int, checked: dict, now_ms: int) -> dict:
    """Keep the device (the same endpoint again: its keys and label renewed, and it is this
    person's now). One statement; at most MAX_DEVICES each."""
    row = conn.execute(
        "INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, label, created_at)"
        " SELECT :user, :endpoint, :p256dh, :auth, :label, :now WHERE (SELECT count(*) FROM"
        " push_subscriptions WHERE user_id = :user AND endpoint != :endpoint) < :most"
        " ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id,"
        " p256dh = excluded.p256dh, auth = excluded.auth, label = excluded.label,"
        " last_error = NULL RETURNING *",
        {**checked, "user": user_id, "now": now_ms, "most": MAX_DEVICES}).fetchone()
    if row is None:
        raise ValidationError({"endpoint": Phrase(
            "you have {n} devices with notifications on already: remove one first",
            n=MAX_DEVICES)})
    return subscription_json(row)


def list_devices(conn: sqlite3.Connection, user_id: int) -> list[dict]:
    return [subscription_json(r) for r in conn.execute(
        "SELECT * FROM push_subscriptions WHERE user_id = ? ORDER BY id", (user_id,))]


def remove_device(conn: sqlite3.Connection, user_id: int, device_id: int) -> None:
    if not conn.execute("DELETE FROM push_subscriptions WHERE id = ? AND user_id = ?",
                        (device_id, user_id)).rowcount:
        raise NotFound("device")


# --- sending --------------------------------------------------------------------------------

class NoDevice(UpstreamError):
    """Nothing to send to: retrying will not help."""


def message(reminder_id: int, day: str, minute: int, title: str, body: str) -> dict:
    """What the service worker shows: the reminder's words, one tag per reminder (a later
    one replaces it), and the log page for the day it was for."""
    return {"title": title, "body": body, "tag": f"kmood-reminder-{reminder_id}",
            "url": f"/?day={day}&at={minute // 60:02d}:{minute % 60:02d}"}


def _send(services, conn, vapid: webpush.Vapid, device, payload: dict, topic: str,
          timeout_s: float) -> webpush.Pushed:
    """One device: its success or failure noted on it; forgotten on 404/410 (PushGone)."""
    now_ms = services.clock.now_ms()
    try:
        sent = webpush.push(vapid, device["endpoint"], device["p256dh"], device["auth"],
                            payload, topic=topic, user_agent=services.config.user_agent,
                            timeout_s=timeout_s, now_s=now_ms / 1000,
                            public_only=not services.config.allow_private_notify_urls)
    except webpush.PushGone:
        conn.execute("DELETE FROM push_subscriptions WHERE id = ?", (device["id"],))
        log.info("web push: device %d forgotten (its push service no longer knows it)",
                 device["id"])
        raise
    except UpstreamError as exc:
        conn.execute("UPDATE push_subscriptions SET last_failure_at = ?, last_error = ?"
                     " WHERE id = ?", (now_ms, str(exc)[:300], device["id"]))
        raise
    conn.execute("UPDATE push_subscriptions SET last_success_at = ?, last_error = NULL"
                 " WHERE id = ?", (now_ms, device["id"]))
    return sent


def deliver(services, conn, reminder, day: str, title: str, body: str,
            keep_claim=lambda: None) -> None:
    """The occurrence to every device of the person it has not reached yet (`keep_claim`
    between devices: the job's lease is extended while it works). Raises UpstreamError to
    be retried (the first failure; the longest Retry-After) while a device waits for a push
    service that may answer later; NoDevice when no device was reached and none waits."""
    devices = conn.execute(
        "SELECT * FROM push_subscriptions s WHERE user_id = ? AND NOT EXISTS (SELECT 1 FROM"
        " push_sends p WHERE p.subscription_id = s.id AND p.reminder_id = ? AND"
        " p.local_date = ?) ORDER BY id", (reminder["user_id"], reminder["id"], day)).fetchall()
    reached = conn.execute("SELECT count(*) FROM push_sends WHERE reminder_id = ? AND"
                           " local_date = ?", (reminder["id"], day)).fetchone()[0]
    if not devices and not reached:
        raise NoDevice("no device has notifications on for k-mood (Settings → Reminders →"
                       " Notify this device)")
    vapid = services.push_keys.get(conn, services.clock.now_ms())
    payload = message(reminder["id"], day, reminder["local_minute"], title, body)
    failed: list[UpstreamError] = []
    refused: list[UpstreamError] = []
    for device in devices:
        keep_claim()
        try:
            _send(services, conn, vapid, device, payload, f"reminder-{reminder['id']}",
                  SEND_TIMEOUT_S)
        except webpush.PushGone:
            continue
        except webpush.PushRefused as exc:  # for good: noted on the device, not retried
            refused.append(exc)
            continue
        except UpstreamError as exc:
            failed.append(exc)
            continue
        conn.execute("INSERT OR IGNORE INTO push_sends (subscription_id, reminder_id,"
                     " local_date, at) VALUES (?, ?, ?, ?)",
                     (device["id"], reminder["id"], day, services.clock.now_ms()))
        reached += 1
    if failed:
        waits = [e.retry_after_s for e in failed if e.retry_after_s]
        raise UpstreamError(f"{len(failed)} of {len(devices)} device(s) not reached yet:"
                            f" {failed[0]}", failed[0].status, max(waits) if waits else None)
    if not reached and refused:
        raise NoDevice(f"no device could be reached: {refused[0]}")
    if not reached:
        raise NoDevice("every device's push service had forgotten it: turn notifications on"
                       " again (Settings → Reminders → Notify this device)")


def send_test(services, conn, user_id: int, device_id: int, title: str, body: str) -> dict:
    """One message now to one device, for the person to see it works: the push service's
    answer ({ok, status, body, error}); a forgotten device says so and is gone."""
    device = conn.execute("SELECT * FROM push_subscriptions WHERE id = ? AND user_id = ?",
                          (device_id, user_id)).fetchone()
    if device is None:
        raise NotFound("device")
    vapid = services.push_keys.get(conn, services.clock.now_ms())
    payload = {"title": title, "body": body, "tag": "kmood-test", "url": "/"}
    try:
        sent = _send(services, conn, vapid, device, payload, "test",
                     services.config.reminder_test_timeout_s)
    except UpstreamError as exc:
        return {"ok": False, "status": exc.status, "body": "", "error": str(exc)[:300]}
    return {"ok": True, "status": sent.status, "body": sent.excerpt, "error": None}
