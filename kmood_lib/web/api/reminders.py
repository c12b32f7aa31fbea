"""`/api/reminders`: list, create, change and delete a user's reminders (SPEC §6), and send one
as a test. The token is write-only: it goes in, and never comes back out."""

from __future__ import annotations

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.reminders import delivery, schedule
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_body, json_response
from kmood_lib.web.routing import Routes

routes = Routes()


def checked(services, auth: Auth, current: dict | None) -> dict:
    return schedule.parse_reminder(json_body(bottle.request, services.config), current=current,
                                   default_timezone=auth.user.timezone,
                                   allow_private=services.config.allow_private_notify_urls)


@routes.get("/api/reminders")
def list_reminders(conn, auth: Auth):
    return json_response({"reminders": schedule.list_reminders(conn, auth.user.id),
                          "next_cursor": None})


@routes.post("/api/reminders")
def create_reminder(services, conn, auth: Auth):
    values = checked(services, auth, None)
    with transaction(conn):
        made = schedule.create_reminder(conn, auth.user.id, values, services.clock.now_ms())
    delivery.prompt_saved(services, conn, made["id"])
    return json_response(made, 201)


@routes.get("/api/reminders/<reminder_id:id>")
def get_reminder(conn, auth: Auth, reminder_id: int):
    return json_response(schedule.get_reminder(conn, auth.user.id, reminder_id))


@routes.patch("/api/reminders/<reminder_id:id>")
def change_reminder(services, conn, auth: Auth, reminder_id: int):
    current = schedule.get_reminder(conn, auth.user.id, reminder_id)
    changes = checked(services, auth, current)
    with transaction(conn):
        changed = schedule.update_reminder(conn, auth.user.id, reminder_id, changes,
                                           services.clock.now_ms())
    delivery.prompt_saved(services, conn, reminder_id)
    return json_response(changed)


@routes.delete("/api/reminders/<reminder_id:id>")
def delete_reminder(conn, auth: Auth, reminder_id: int):
    with transaction(conn):
        schedule.delete_reminder(conn, auth.user.id, reminder_id)
    return bottle.HTTPResponse(status=204)


@routes.post("/api/reminders/<reminder_id:id>/test")
def send_test(services, conn, auth: Auth, reminder_id: int):
    """One message now; the upstream's answer is reported, no delivery recorded."""
    return json_response(delivery.send_test(conn, services, auth.user.id, reminder_id))
