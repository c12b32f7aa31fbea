"""Settings → Reminders: list, create, edit, switch on and off, delete, send a test, and see
the last deliveries — plain forms over the same domain functions as `/api/reminders`."""

from __future__ import annotations

import functools
import urllib.parse
from datetime import datetime
from zoneinfo import ZoneInfo

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.core.i18n import Translator
from kmood_lib.core.timezones import canonical_zones
from kmood_lib.reminders import delivery, push, schedule
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import Params, query_params
from kmood_lib.web.rendering import form_fields, page, redirect, settings_page, words
from kmood_lib.web.routing import Routes

routes = Routes()

# The channels by their own names (never translated).
CHANNEL_NAMES = {"ntfy": "ntfy", "gotify": "Gotify", "webhook": "Webhook",
                 "webpush": "Web Push"}


def weekdays(i18n: Translator) -> list[str]:
    """Monday to Sunday, short, in the person's language."""
    return [i18n.weekday_name(day, "abbreviated") for day in range(7)]


def reminder_body(fields: Params, creating: bool) -> dict:
    """The form's fields as the API's body: an empty token on an edit keeps the one set."""
    body = {"time": fields.get("time", ""), "channel": fields.get("channel", ""),
            "url": "" if fields.get("channel") == "webpush" else fields.get("url", ""),
            "timezone": fields.get("timezone") or None,
            "weekdays": [int(d) for d in fields.getall("weekday")
                         if d.isascii() and d.isdigit() and len(d) == 1],
            "title": fields.get("title") or None, "message": fields.get("message") or None,
            "skip_if_logged": fields.get("skip_if_logged") == "1",
            "enabled": fields.get("enabled") == "1"}
    if fields.get("token") or creating:
        body["token"] = fields.get("token") or None
    if fields.get("remove_token") == "1":
        body["token"] = None
    return body


def destination(reminder: dict) -> str:
    """Where it goes, short enough for a list: the host, and the ntfy topic."""
    if reminder["channel"] == "webpush":
        return ""
    parts = urllib.parse.urlsplit(reminder["url"])
    topic = parts.path.rstrip("/").rsplit("/", 1)[-1] if reminder["channel"] == "ntfy" else ""
    return f"{parts.hostname}{'/' + topic if topic else ''}"


def local_next(i18n: Translator, reminder: dict) -> str | None:
    """'Fri, Dec 4, 20:30' ('Fr., 4. Dez., 20:30') in the reminder's own zone."""
    if not reminder["next_fire_at"]:
        return None
    moment = datetime.fromisoformat(reminder["next_fire_at"].replace("Z", "+00:00")).astimezone(
        ZoneInfo(reminder["timezone"]))
    day = i18n.day(moment.date(), "MMMEd")
    return i18n.gettext("{day}, {time}", day=day, time=f"{moment:%H:%M}")


def save(services, conn, auth: Auth, reminder_id: int | None) -> int:
    """The posted reminder form checked as the API checks it, saved, and queued if due soon."""
    current = None if reminder_id is None else schedule.get_reminder(conn, auth.user.id,
                                                                     reminder_id)
    fields = form_fields(bottle.request, services.config)
    values = schedule.parse_reminder(
        reminder_body(fields, reminder_id is None), current=current,
        default_timezone=auth.user.timezone,
        allow_private=services.config.allow_private_notify_urls)
    with transaction(conn):
        if reminder_id is None:
            reminder_id = schedule.create_reminder(conn, auth.user.id, values,
                                                   services.clock.now_ms())["id"]
        else:
            schedule.update_reminder(conn, auth.user.id, reminder_id, values,
                                     services.clock.now_ms())
    delivery.prompt_saved(services, conn, reminder_id)
    return reminder_id


def list_page(conn, auth: Auth, fields=None, errors=None, status=200):
    mine = schedule.list_reminders(conn, auth.user.id)
    i18n = words(auth)
    params = query_params(bottle.request)
    return settings_page("reminders", auth, status, reminders=mine, zones=canonical_zones(),
                         devices=push.list_devices(conn, auth.user.id), scripts=("push.js",),
                         device_tested=(params.get("device"), params.get("tested")),
                         deliveries=schedule.recent_deliveries(conn, auth.user.id),
                         fields=fields or {}, errors=errors or {}, weekdays=weekdays(i18n),
                         local_next=functools.partial(local_next, i18n), destination=destination,
                         channel_names=CHANNEL_NAMES, default_zone=auth.user.timezone, i18n=i18n)


def edit_page(conn, auth: Auth, reminder_id: int, fields=None, errors=None, status=200):
    reminder = schedule.get_reminder(conn, auth.user.id, reminder_id)
    i18n = words(auth)
    return settings_page("reminder_edit", auth, status, section="reminders",
                         reminder=reminder, zones=canonical_zones(), weekdays=weekdays(i18n),
                         deliveries=schedule.recent_deliveries(conn, auth.user.id, reminder_id),
                         fields=fields or {}, errors=errors or {},
                         local_next=functools.partial(local_next, i18n),
                         channel_names=CHANNEL_NAMES, i18n=i18n,
                         tested=query_params(bottle.request).get("tested"))


@routes.get("/settings/reminders")
def reminder_list(conn, auth: Auth):
    return list_page(conn, auth)


@routes.post("/settings/reminders", form=list_page)
def reminder_create(services, conn, auth: Auth):
    save(services, conn, auth, None)
    return redirect("/settings/reminders", "created")


@routes.get("/settings/reminders/<reminder_id:id>")
def reminder_edit(conn, auth: Auth, reminder_id: int):
    return edit_page(conn, auth, reminder_id)


@routes.post("/settings/reminders/<reminder_id:id>", form=edit_page)
def reminder_update(services, conn, auth: Auth, reminder_id: int):
    save(services, conn, auth, reminder_id)
    return redirect(f"/settings/reminders/{reminder_id}", "saved")


@routes.post("/settings/reminders/<reminder_id:id>/switch", form=list_page)
def reminder_switch(services, conn, auth: Auth, reminder_id: int):
    schedule.get_reminder(conn, auth.user.id, reminder_id)  # 404 first for someone else's
    turn_on = form_fields(bottle.request, services.config).get("enabled") == "1"
    with transaction(conn):
        schedule.update_reminder(conn, auth.user.id, reminder_id, {"enabled": int(turn_on)},
                                 services.clock.now_ms())
    delivery.prompt_saved(services, conn, reminder_id)
    return redirect("/settings/reminders", "switched_on" if turn_on else "switched_off")


def tested(answer: dict) -> str:
    """A test's outcome for the page it redirects to: ok-201, failed-500, failed (no answer)."""
    return (f"ok-{answer['status']}" if answer["ok"] else
            f"failed-{answer['status']}" if answer["status"] else "failed")


@routes.post("/settings/reminders/<reminder_id:id>/test", form=edit_page)
def reminder_test(services, conn, auth: Auth, reminder_id: int):
    answer = delivery.send_test(conn, services, auth.user.id, reminder_id)
    return redirect(f"/settings/reminders/{reminder_id}?tested={tested(answer)}")


@routes.get("/settings/reminders/<reminder_id:id>/delete")
def reminder_delete_confirm(conn, auth: Auth, reminder_id: int):
    reminder = schedule.get_reminder(conn, auth.user.id, reminder_id)
    i18n = words(auth)
    _ = i18n.gettext
    return page("settings_confirm.tpl", auth, active="settings", what="reminder", i18n=i18n,
                subject=reminder["time"], channel=CHANNEL_NAMES.get(reminder["channel"], ""),
                consequences=[_("It stops, and its list of past deliveries goes with it.")],
                action=f"/settings/reminders/{reminder_id}/delete",
                back=f"/settings/reminders/{reminder_id}")


@routes.post("/settings/reminders/<reminder_id:id>/delete")
def reminder_delete(conn, auth: Auth, reminder_id: int):
    with transaction(conn):
        schedule.delete_reminder(conn, auth.user.id, reminder_id)
    return redirect("/settings/reminders", "removed")


# --- this person's devices (Web Push) ---------------------------------------------------------

@routes.post("/settings/reminders/devices/<device_id:id>/test")
def device_test(services, conn, auth: Auth, device_id: int):
    answer = delivery.push_device_test(conn, services, auth.user.id, device_id)
    return redirect(f"/settings/reminders?device={device_id}&tested={tested(answer)}#devices")


@routes.post("/settings/reminders/devices/<device_id:id>/delete")
def device_remove(conn, auth: Auth, device_id: int):
    push.remove_device(conn, auth.user.id, device_id)
    return redirect("/settings/reminders#devices", "device_removed")
