"""JSON routes for entries: a page of them, one, created, changed, deleted."""

from __future__ import annotations

import bottle

from kmood_lib.core.errors import ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.journal import queries, saving, versions, writes
from kmood_lib.journal.entry_json import dumps
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import ApiError, json_body, json_text_response, query_params
from kmood_lib.web.routing import Routes

routes = Routes()

LIST_PARAMETERS = ("from", "to", "mood", "activity", "q", "limit", "cursor")


@routes.get("/api/entries")
def list_entries(services, conn, auth: Auth):
    """A page of entries, kept in memory by the journal version (which every change to what
    the page shows raises, migrations 0018 and 0024), so a client polling its history costs
    a version read until something changes."""
    query = query_params(bottle.request)
    flt = queries.parse_filter(query)
    limit = queries.parse_limit(query.get("limit"))
    cursor = query.get("cursor") or None
    key = ("entries", *(query.get(name) or "" for name in LIST_PARAMETERS))
    return json_text_response(versions.cached(
        conn, services.entries_cache, auth.user.id, key,
        lambda: queries.list_entries_json(conn, auth.user.id, flt, limit, cursor)))


@routes.post("/api/entries")
def create_entry(services, conn, auth: Auth):
    """Saved once however often it is sent (its client_id); a device syncing its outbox says
    which batch it is (X-Kmood-Outbox), counted for one log line per batch."""
    source = "web" if auth.via == "session" else "api"
    batch = bottle.request.headers.get("X-Kmood-Outbox")
    try:
        saved = saving.create(services, conn, auth.user,
                              json_body(bottle.request, services.config), source)
    except ValidationError:
        services.outbox.count(auth.user, batch, "refused")
        raise
    if saved.deleted:
        services.outbox.count(auth.user, batch, "deleted")
        raise ApiError(410, Phrase("this entry was deleted after it was saved: it is not saved"
                                   " again"), code="deleted")
    services.outbox.count(auth.user, batch, "new" if saved.created else "replayed")
    text = (dumps(saved.entry) if saved.entry is not None  # created: no second read
            else queries.get_entry_json(conn, auth.user.id, saved.entry_id))
    return json_text_response(text, 201 if saved.created else 200,
                              {"Location": f"/api/entries/{saved.entry_id}"})


@routes.get("/api/entries/<entry_id:id>")
def get_entry(conn, auth: Auth, entry_id: int):
    return json_text_response(queries.get_entry_json(conn, auth.user.id, entry_id))


@routes.patch("/api/entries/<entry_id:id>")
def patch_entry(services, conn, auth: Auth, entry_id: int):
    saving.update(services, conn, auth.user, entry_id, json_body(bottle.request, services.config))
    return json_text_response(queries.get_entry_json(conn, auth.user.id, entry_id))


@routes.delete("/api/entries/<entry_id:id>")
def delete_entry(services, conn, auth: Auth, entry_id: int):
    writes.delete_entry(conn, auth.user.id, entry_id, services.clock.now_ms())
    return bottle.HTTPResponse(status=204)
