"""`/api/reminders`: list, create, change and delete a user's reminders (SPEC §6). The token is
write-only: it goes in, and never comes back out."""

from __future__ import annotations

import bottle

from kmood_lib import reminders
from kmood_lib.db import transaction
from kmood_lib.web.api_entries import guarded
from kmood_lib.web.auth import Auth
from kmood_lib.web.http import json_response, read_json_object


def register(app: bottle.Bottle, services) -> None:
    config, clock = services.config, services.clock

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
        return json_response(changed)

    @app.delete("/api/reminders/<reminder_id:id>")
    @guarded
    def remove(conn, auth: Auth, reminder_id: int):
        with transaction(conn):
            reminders.delete_reminder(conn, auth.user.id, reminder_id)
        return bottle.HTTPResponse(status=204)
