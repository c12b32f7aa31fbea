"""JSON routes for logging in and out, the user's own settings, and API tokens."""

from __future__ import annotations

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import users
from kmood_lib.core.clock import ms_to_iso
from kmood_lib.core.errors import NotFound, ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.web.authentication import (
    Auth,
    end_browser_session,
    log_in,
    refuse_passwords,
    set_session_cookie,
)
from kmood_lib.web.http import json_body, json_response
from kmood_lib.web.routing import Routes

routes = Routes()


def refuse_unknown(body: dict, allowed: set[str]) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ValidationError({n: Phrase("unknown field") for n in unknown},
                              Phrase("unknown fields"))


@routes.post("/api/session", auth="public", csrf=False)
def create_session(services, conn):
    body = json_body(bottle.request, services.config)
    user, session = log_in(conn, services, bottle.request, body.get("username"),
                           body.get("password"))
    response = json_response({**users.profile(conn, user.id),
                              "csrf_token": session.csrf_token}, 201)
    set_session_cookie(response, session.token, services.config)
    return response


@routes.delete("/api/session")
def delete_session(services, conn, auth: Auth):
    if auth.session is not None:
        auth_store.delete_session(conn, auth.session.id)
    response = bottle.HTTPResponse(status=204)
    end_browser_session(response, services.config)
    return response


@routes.get("/api/me")
def get_me(conn, auth: Auth):
    return json_response({**users.profile(conn, auth.user.id), "csrf_token": auth.csrf_token})


@routes.patch("/api/me")
def patch_me(services, conn, auth: Auth):
    clean = users.validate_settings(json_body(bottle.request, services.config),
                                    services.languages.codes)
    users.update_settings(conn, auth.user.id, clean, services.clock.now_ms())
    return json_response({**users.profile(conn, auth.user.id), "csrf_token": auth.csrf_token})


@routes.post("/api/me/password")
def change_password(services, conn, auth: Auth):
    refuse_passwords(services.config)
    body = json_body(bottle.request, services.config)
    old, new = body.get("old_password"), body.get("new_password")
    refuse_unknown(body, {"old_password", "new_password", "revoke_api_tokens"})
    revoke = body.get("revoke_api_tokens", True)
    if not isinstance(revoke, bool):
        raise ValidationError({"revoke_api_tokens": Phrase("must be true or false")})
    if not isinstance(old, str) or len(old) > users.MAX_PASSWORD_LENGTH or users.authenticate(
            conn, auth.user.username, old, services.hasher) is None:
        raise ValidationError({"old_password": Phrase("wrong password")},
                              Phrase("the old password is wrong"))
    users.validate_password(new, "new_password")
    ended = auth_store.change_password(
        conn, auth.user.id, services.hasher.hash(new), services.clock.now_ms(),
        keep_session_id=auth.session.id if auth.session else None, revoke_tokens=revoke)
    return json_response({"status": "ok", **ended})


@routes.get("/api/tokens")
def list_tokens(conn, auth: Auth):
    rows = auth_store.list_api_tokens(conn, auth.user.id)
    return json_response({"tokens": [
        {"id": r["id"], "name": r["name"], "created_at": ms_to_iso(r["created_at"]),
         "last_used_at": ms_to_iso(r["last_used_at"])} for r in rows
    ], "next_cursor": None})


@routes.post("/api/tokens")
def create_token(services, conn, auth: Auth):
    body = json_body(bottle.request, services.config)
    refuse_unknown(body, {"name"})
    created = auth_store.create_api_token(conn, auth.user.id, body.get("name"),
                                          services.clock.now_ms())
    return json_response(created, 201)


@routes.delete("/api/tokens/<token_id:id>")
def revoke_token(services, conn, auth: Auth, token_id: int):
    if not auth_store.revoke_api_token(conn, auth.user.id, token_id, services.clock.now_ms()):
        raise NotFound("token")
    return bottle.HTTPResponse(status=204)
