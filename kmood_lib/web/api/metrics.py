"""JSON routes for metrics (numbers kept with an entry): list, create, change, delete."""

from __future__ import annotations

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.journal import vocab
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_body, json_response
from kmood_lib.web.routing import Routes

routes = Routes()


@routes.get("/api/metrics")
def list_metrics(conn, auth: Auth):
    return json_response({"metrics": vocab.list_metrics(conn, auth.user.id), "next_cursor": None})


@routes.post("/api/metrics")
def create_metric(services, conn, auth: Auth):
    data = json_body(bottle.request, services.config)
    with transaction(conn):
        created = vocab.create_metric(conn, auth.user.id, data, services.clock.now_ms())
    return json_response(created, 201)


@routes.patch("/api/metrics/<item_id:id>")
def patch_metric(services, conn, auth: Auth, item_id: int):
    data = json_body(bottle.request, services.config)
    with transaction(conn):
        updated = vocab.update_metric(conn, auth.user.id, item_id, data, services.clock.now_ms())
    return json_response(updated)


@routes.delete("/api/metrics/<item_id:id>")
def delete_metric(conn, auth: Auth, item_id: int):
    vocab.delete_metric(conn, auth.user.id, item_id)
    return bottle.HTTPResponse(status=204)
