"""JSON routes for the five mood labels: read them all, rename one."""

from __future__ import annotations

import bottle

from kmood_lib.journal import vocab
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_body, json_response
from kmood_lib.web.routing import Routes

routes = Routes()


def moods_json(conn, user_id: int) -> dict:
    labels = vocab.mood_labels(conn, user_id)
    return {"moods": [{"level": level, "label": labels[level]} for level in range(5, 0, -1)]}


@routes.get("/api/moods")
def get_moods(conn, auth: Auth):
    return json_response(moods_json(conn, auth.user.id))


@routes.patch("/api/moods/<level:id>")
def patch_mood(services, conn, auth: Auth, level: int):
    vocab.set_mood_label(conn, auth.user.id, level, json_body(bottle.request, services.config))
    return json_response(moods_json(conn, auth.user.id))
