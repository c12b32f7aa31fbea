"""Settings → Reminders: list, create, edit, switch on and off, delete, send a test, and see
the last deliveries — plain forms over the same domain functions as `/api/reminders`."""

from __future__ import annotations

import urllib.parse
from datetime import datetime
from zoneinfo import ZoneInfo

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.core.timezones import canonical_zones
from kmood_lib.reminders import delivery as reminder_delivery
from kmood_lib.reminders import schedule as reminders
from kmood_lib.web.auth import Auth
from kmood_lib.web.http import Params, query_params
from kmood_lib.web.settings import domain_form, not_found, settings_page
from kmood_lib.web.views import page

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def reminder_body(fields: Params, creating: bool) -> dict:
    """The form's fields as the API's body: an empty token on an edit keeps the one set."""
    body = {"time": fields.get("time", ""), "channel": fields.get("channel", ""),
            "url": fields.get("url", ""), "timezone": fields.get("timezone") or None,
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
    parts = urllib.parse.urlsplit(reminder["url"])
    topic = parts.path.rstrip("/").rsplit("/", 1)[-1] if reminder["channel"] == "ntfy" else ""
    return f"{parts.hostname}{'/' + topic if topic else ''}"


def local_next(reminder: dict) -> str | None:
    """'Fri 4 Dec, 20:30' in the reminder's own zone."""
    if not reminder["next_fire_at"]:
        return None
    moment = datetime.fromisoformat(reminder["next_fire_at"].replace("Z", "+00:00")).astimezone(
        ZoneInfo(reminder["timezone"]))
    return f"{moment.strftime('%a')} {moment.day} {moment.strftime('%b')}, {moment:%H:%M}"


def register(app: bottle.Bottle, services) -> None:
    config, clock = services.config, services.clock

    def save(conn, auth: Auth, fields: Params, reminder_id: int | None) -> int:
        current = None if reminder_id is None else reminders.get_reminder(
            conn, auth.user.id, reminder_id)
        values = reminders.parse_reminder(
            reminder_body(fields, reminder_id is None), current=current,
            default_timezone=auth.user.timezone, allow_private=config.allow_private_notify_urls)
        with transaction(conn):
            if reminder_id is None:
                reminder_id = reminders.create_reminder(conn, auth.user.id, values,
                                                        clock.now_ms())["id"]
            else:
                reminders.update_reminder(conn, auth.user.id, reminder_id, values,
                                          clock.now_ms())
        reminder_delivery.prompt_reminder(conn, services, reminder_id, clock.now_ms())
        return reminder_id

    def list_page(conn, auth: Auth, status=200, fields=None, errors=None, **_):
        mine = reminders.list_reminders(conn, auth.user.id)
        return settings_page("reminders", auth, status, reminders=mine, zones=canonical_zones(),
                             deliveries=reminders.recent_deliveries(conn, auth.user.id),
                             fields=fields or {}, errors=errors or {}, weekdays=WEEKDAYS,
                             local_next=local_next, destination=destination,
                             default_zone=auth.user.timezone)

    @app.get("/settings/reminders")
    def reminder_list(conn, auth: Auth):
        return list_page(conn, auth)

    @app.post("/settings/reminders")
    def reminder_create(conn, auth: Auth):
        return domain_form(lambda **kw: list_page(conn, auth, **kw),
                           lambda fields: (save(conn, auth, fields, None),
                                           "/settings/reminders?done=created")[1],
                           config.max_body_bytes)

    def edit_page(conn, auth: Auth, reminder_id: int, status=200, fields=None, errors=None, **_):
        reminder = reminders.get_reminder(conn, auth.user.id, reminder_id)
        wanted = query_params(bottle.request)
        return settings_page("reminder_edit", auth, status, section="reminders",
                             reminder=reminder, zones=canonical_zones(), weekdays=WEEKDAYS,
                             deliveries=reminders.recent_deliveries(conn, auth.user.id,
                                                                    reminder_id),
                             fields=fields or {}, errors=errors or {}, local_next=local_next,
                             tested=wanted.get("tested"))

    def guarded_edit(conn, auth, reminder_id):
        try:
            return edit_page(conn, auth, reminder_id)
        except reminders.NotFound:
            raise not_found("reminder") from None

    @app.get("/settings/reminders/<reminder_id:id>")
    def reminder_edit(conn, auth: Auth, reminder_id: int):
        return guarded_edit(conn, auth, reminder_id)

    @app.post("/settings/reminders/<reminder_id:id>")
    def reminder_update(conn, auth: Auth, reminder_id: int):
        guarded_edit(conn, auth, reminder_id)  # 404 first for someone else's
        return domain_form(lambda **kw: edit_page(conn, auth, reminder_id, **kw),
                           lambda fields: (save(conn, auth, fields, reminder_id),
                                           f"/settings/reminders/{reminder_id}?done=saved")[1],
                           config.max_body_bytes)

    @app.post("/settings/reminders/<reminder_id:id>/switch")
    def reminder_switch(conn, auth: Auth, reminder_id: int):
        def act(fields: Params) -> str:
            turn_on = fields.get("enabled") == "1"
            with transaction(conn):
                reminders.update_reminder(conn, auth.user.id, reminder_id,
                                          {"enabled": int(turn_on)}, clock.now_ms())
            reminder_delivery.prompt_reminder(conn, services, reminder_id, clock.now_ms())
            return f"/settings/reminders?done={'switched_on' if turn_on else 'switched_off'}"

        guarded_edit(conn, auth, reminder_id)
        return domain_form(lambda **kw: list_page(conn, auth, **kw), act, config.max_body_bytes)

    @app.post("/settings/reminders/<reminder_id:id>/test")
    def reminder_test(conn, auth: Auth, reminder_id: int):
        def act(fields: Params) -> str:
            answer = reminder_delivery.send_test(conn, services, auth.user.id, reminder_id)
            outcome = (f"ok-{answer['status']}" if answer["ok"] else
                       f"failed-{answer['status']}" if answer["status"] else "failed")
            return f"/settings/reminders/{reminder_id}?tested={outcome}"

        guarded_edit(conn, auth, reminder_id)
        return domain_form(lambda **kw: edit_page(conn, auth, reminder_id, **kw), act,
                           config.max_body_bytes)

    @app.get("/settings/reminders/<reminder_id:id>/delete")
    def reminder_delete_confirm(conn, auth: Auth, reminder_id: int):
        try:
            reminder = reminders.get_reminder(conn, auth.user.id, reminder_id)
        except reminders.NotFound:
            raise not_found("reminder") from None
        return page("settings_confirm.tpl", auth, active="settings", what="reminder",
                    subject=f"{reminder['time']} by {reminder['channel']}",
                    consequences=["It stops, and its list of past deliveries goes with it."],
                    action=f"/settings/reminders/{reminder_id}/delete",
                    back=f"/settings/reminders/{reminder_id}")

    @app.post("/settings/reminders/<reminder_id:id>/delete")
    def reminder_delete(conn, auth: Auth, reminder_id: int):
        def act(fields: Params) -> str:
            with transaction(conn):
                reminders.delete_reminder(conn, auth.user.id, reminder_id)
            return "/settings/reminders?done=removed"

        guarded_edit(conn, auth, reminder_id)
        return domain_form(lambda **kw: list_page(conn, auth, **kw), act, config.max_body_bytes)

