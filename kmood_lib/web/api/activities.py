"""JSON routes for activities: list, create, change, delete, many changed at once, and the
starter set a new person is offered."""

from __future__ import annotations

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.core.validation import Fields
from kmood_lib.journal import starter, vocab
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_body, json_response
from kmood_lib.web.routing import Routes

routes = Routes()


@routes.get("/api/activities")
def list_activities(conn, auth: Auth):
    return json_response({"activities": vocab.list_activities(conn, auth.user.id),
                          "next_cursor": None})


@routes.post("/api/activities")
def create_activity(services, conn, auth: Auth):
    data = json_body(bottle.request, services.config)
    with transaction(conn):
        created = vocab.create_activity(conn, auth.user.id, data, services.clock.now_ms())
    return json_response(created, 201)


@routes.patch("/api/activities/<item_id:id>")
def patch_activity(services, conn, auth: Auth, item_id: int):
    data = json_body(bottle.request, services.config)
    with transaction(conn):
        updated = vocab.update_activity(conn, auth.user.id, item_id, data,
                                        services.clock.now_ms())
    return json_response(updated)


@routes.delete("/api/activities/<item_id:id>")
def delete_activity(conn, auth: Auth, item_id: int):
    vocab.delete_activity(conn, auth.user.id, item_id)
    return bottle.HTTPResponse(status=204)


@routes.post("/api/activities/bulk")
def change_activities(services, conn, auth: Auth):
    data = json_body(bottle.request, services.config)
    with transaction(conn):
        changed = vocab.change_activities(conn, auth.user.id, data, services.clock.now_ms())
    return json_response(changed)


@routes.get("/api/activities/starter")
def starter_set(conn, auth: Auth):
    return json_response({"offered": starter.starter_offered(conn, auth.user.id),
                          "groups": starter.starter_json()})


@routes.post("/api/activities/starter")
def answer_starter(services, conn, auth: Auth):
    data = json_body(bottle.request, services.config)
    f = Fields()
    f.reject_fields(data, {"names"}, set())
    f.raise_if_any()
    with transaction(conn):
        made = starter.answer(conn, auth.user.id, data.get("names", []), services.clock.now_ms())
    return json_response({"created": made, "offered": False})
