"""JSON routes for note templates (a title and note to start an entry from): list, create,
change, delete."""

from __future__ import annotations

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.journal import templates
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_body, json_response
from kmood_lib.web.routing import Routes

routes = Routes()


@routes.get("/api/templates")
def list_templates(conn, auth: Auth):
    return json_response({"templates": templates.list_templates(conn, auth.user.id),
                          "next_cursor": None})


@routes.post("/api/templates")
def create_template(services, conn, auth: Auth):
    data = json_body(bottle.request, services.config)
    with transaction(conn):
        created = templates.create_template(conn, auth.user.id, data, services.clock.now_ms())
    return json_response(created, 201)


@routes.patch("/api/templates/<item_id:id>")
def patch_template(services, conn, auth: Auth, item_id: int):
    data = json_body(bottle.request, services.config)
    with transaction(conn):
        updated = templates.update_template(conn, auth.user.id, item_id, data)
    return json_response(updated)


@routes.delete("/api/templates/<item_id:id>")
def delete_template(conn, auth: Auth, item_id: int):
    templates.delete_template(conn, auth.user.id, item_id)
    return bottle.HTTPResponse(status=204)
