"""`/api/reminders`: list, create, change and delete a user's reminders (SPEC §6). The token is
write-only: it goes in, and never comes back out."""

from __future__ import annotations

import logging
import sqlite3

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.reminders import delivery as reminder_delivery
from kmood_lib.reminders import schedule as reminders
from kmood_lib.web.api_entries import guarded
from kmood_lib.web.auth import Auth
from kmood_lib.web.http import json_response, read_json_object

log = logging.getLogger(__name__)


def register(app: bottle.Bottle, services) -> None:
    config, clock = services.config, services.clock

    def prompt(conn, reminder_id: int) -> None:
        """Queue the occurrence at once when it is due soon; the sweep finds it otherwise."""
        try:
            reminder_delivery.prompt_reminder(conn, services, reminder_id, clock.now_ms())
        except sqlite3.Error as exc:
            log.warning("reminder %d saved; queueing it now failed (%s): the sweep will",
                        reminder_id, exc)

    def checked(conn, auth: Auth, current: dict | None) -> dict:
        return reminders.parse_reminder(read_json_object(bottle.request, config.max_body_bytes),
                                        current=current, default_timezone=auth.user.timezone,
                                        allow_private=config.allow_private_notify_urls)

    @app.get("/api/reminders")
    def list_all(conn, auth: Auth):
        return json_response({"reminders": reminders.list_reminders(conn, auth.user.id),
                              "next_cursor": None})

    @app.post("/api/reminders")
    @guarded
    def create(conn, auth: Auth):
        values = checked(conn, auth, None)
        with transaction(conn):
            made = reminders.create_reminder(conn, auth.user.id, values, clock.now_ms())
        prompt(conn, made["id"])
        return json_response(made, 201)

    @app.get("/api/reminders/<reminder_id:id>")
    @guarded
    def one(conn, auth: Auth, reminder_id: int):
        return json_response(reminders.get_reminder(conn, auth.user.id, reminder_id))

    @app.patch("/api/reminders/<reminder_id:id>")
    @guarded
    def change(conn, auth: Auth, reminder_id: int):
        current = reminders.get_reminder(conn, auth.user.id, reminder_id)
        changes = checked(conn, auth, current)
        with transaction(conn):
            changed = reminders.update_reminder(conn, auth.user.id, reminder_id, changes,
                                                clock.now_ms())
        prompt(conn, reminder_id)
        return json_response(changed)

    @app.delete("/api/reminders/<reminder_id:id>")
    @guarded
    def remove(conn, auth: Auth, reminder_id: int):
        with transaction(conn):
            reminders.delete_reminder(conn, auth.user.id, reminder_id)
        return bottle.HTTPResponse(status=204)

    register_test_route(app, services)



def register_test_route(app: bottle.Bottle, services) -> None:
    @app.post("/api/reminders/<reminder_id:id>/test")
    @guarded
    def send_test(conn, auth: Auth, reminder_id: int):
        """One message now; the upstream's answer is reported, no delivery recorded."""
        return json_response(reminder_delivery.send_test(conn, services, auth.user.id,
                                                         reminder_id))
