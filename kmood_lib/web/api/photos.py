"""JSON routes for an entry's photos: add (multipart), order, remove. The photos themselves
are served by pages.photos at the URLs in the entry's JSON."""

from __future__ import annotations

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.core.errors import ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.journal import photos, queries
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_body, json_response
from kmood_lib.web.routing import Routes
from kmood_lib.web.uploads import add_uploaded

routes = Routes()


def entry_photos(conn, user_id: int, entry_id: int) -> dict:
    """The entry's photos as its JSON lists them (one way to show a photo, in entry_json)."""
    return {"photos": queries.get_entry(conn, user_id, entry_id)["photos"]}


@routes.post("/api/entries/<entry_id:id>/photos", max_body="photos")
def add_photos(services, conn, auth: Auth, entry_id: int):
    add_uploaded(services, conn, auth.user.id, entry_id)
    return json_response(entry_photos(conn, auth.user.id, entry_id), 201)


@routes.put("/api/entries/<entry_id:id>/photos/order")
def order_photos(services, conn, auth: Auth, entry_id: int):
    body = json_body(bottle.request, services.config)
    order = body.get("order")
    if set(body) != {"order"} or not isinstance(order, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in order):
        raise ValidationError({"order": Phrase("must be the list of the entry's photo ids")})
    with transaction(conn):
        photos.reorder(conn, auth.user.id, entry_id, order)
    return json_response(entry_photos(conn, auth.user.id, entry_id))


@routes.delete("/api/photos/<photo_id:id>")
def delete_photo(conn, auth: Auth, photo_id: int):
    photos.remove(conn, auth.user.id, photo_id)
    return bottle.HTTPResponse(status=204)
