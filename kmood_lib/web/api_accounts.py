"""JSON routes for logging in and out, the user's own settings, and API tokens."""

from __future__ import annotations

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import throttle, users
from kmood_lib.core.clock import ms_to_iso
from kmood_lib.core.db import transaction
from kmood_lib.web.auth import (
    Auth,
    clear_session_cookie,
    client_address,
    set_session_cookie,
)
from kmood_lib.web.http import ApiError, json_response, read_json_object


def account_error(exc: users.AccountError) -> ApiError:
    fields = getattr(exc, "fields", None) or ({exc.field: str(exc)} if exc.field else {})
    return ApiError(exc.status, str(exc), fields)


def log_in(conn, services, username: object, password: object) -> tuple[users.User, auth_store.NewSession]:
    """Check credentials under the throttle; raise ApiError 401/422/429; return a new session."""
    config = services.config
    if not isinstance(username, str) or not isinstance(password, str) or not username:
        raise ApiError(422, "username and password are required",
                       {"username": "required", "password": "required"})
    too_long = {}
    if len(username) > users.MAX_USERNAME_LENGTH:
        too_long["username"] = f"at most {users.MAX_USERNAME_LENGTH} characters"
    if len(password) > users.MAX_PASSWORD_LENGTH:
        too_long["password"] = f"at most {users.MAX_PASSWORD_LENGTH} characters"
    if too_long:  # refused, never truncated: no such account or password can exist
        raise ApiError(422, "username or password too long", too_long)
    request = bottle.request
    now_ms = services.clock.now_ms()
    address = client_address(request, config.trust_proxy)
    try:
        reserved = throttle.reserve_attempt(conn, username, address, now_ms,
                                            config.login_max_failures, config.login_window_s,
                                            config.login_max_failures_per_address)
    except throttle.Throttled as exc:
        raise ApiError(429, "too many failed logins; try again later",
                       headers={"Retry-After": str(exc.retry_after_s)}) from None
    user = users.authenticate(conn, username, password, services.hasher)
    if user is None:
        raise ApiError(401, "wrong username or password")
    throttle.login_succeeded(conn, username, reserved)
    session = auth_store.create_session(conn, user.id, services.clock.now_ms(),
                                        config.session_ttl_s)
    return user, session


def register(app: bottle.Bottle, services) -> None:
    config = services.config
    max_body = config.max_body_bytes

    @app.post("/api/session", auth="public", csrf=False)
    def create_session(conn):
        body = read_json_object(bottle.request, max_body)
        user, session = log_in(conn, services, body.get("username"), body.get("password"))
        response = json_response({**users.profile(conn, user.id),
                                  "csrf_token": session.csrf_token}, 201)
        set_session_cookie(response, session.token, config)
        return response

    @app.delete("/api/session")
    def delete_session(conn, auth: Auth):
        if auth.session is not None:
            auth_store.delete_session(conn, auth.session.id)
        response = bottle.HTTPResponse(status=204)
        clear_session_cookie(response, config)
        return response

    @app.get("/api/me")
    def get_me(conn, auth: Auth):
        return json_response({**users.profile(conn, auth.user.id), "csrf_token": auth.csrf_token})

    @app.patch("/api/me")
    def patch_me(conn, auth: Auth):
        body = read_json_object(bottle.request, max_body)
        try:
            clean = users.validate_settings(body)
        except users.AccountError as exc:
            raise account_error(exc) from None
        users.update_settings(conn, auth.user.id, clean, services.clock.now_ms())
        return json_response({**users.profile(conn, auth.user.id), "csrf_token": auth.csrf_token})

    @app.post("/api/me/password")
    def change_password(conn, auth: Auth):
        body = read_json_object(bottle.request, max_body)
        old, new = body.get("old_password"), body.get("new_password")
        unknown = sorted(set(body) - {"old_password", "new_password"})
        if unknown:
            raise ApiError(422, "unknown fields", {n: "unknown field" for n in unknown})
        if not isinstance(old, str) or len(old) > users.MAX_PASSWORD_LENGTH or users.authenticate(
                conn, auth.user.username, old, services.hasher) is None:
            raise ApiError(422, "the old password is wrong", {"old_password": "wrong password"})
        try:
            users.validate_password(new, "new_password")
        except users.AccountError as exc:
            raise account_error(exc) from None
        new_hash = services.hasher.hash(new)
        with transaction(conn):
            users.set_password_hash(conn, auth.user.id, new_hash, services.clock.now_ms())
            ended = auth_store.delete_other_sessions(
                conn, auth.user.id, auth.session.id if auth.session else None)
        return json_response({"status": "ok", "other_sessions_ended": ended})

    @app.get("/api/tokens")
    def list_tokens(conn, auth: Auth):
        rows = auth_store.list_api_tokens(conn, auth.user.id)
        return json_response({"tokens": [
            {"id": r["id"], "name": r["name"], "created_at": ms_to_iso(r["created_at"]),
             "last_used_at": ms_to_iso(r["last_used_at"])} for r in rows
        ], "next_cursor": None})

    @app.post("/api/tokens")
    def create_token(conn, auth: Auth):
        body = read_json_object(bottle.request, max_body)
        unknown = sorted(set(body) - {"name"})
        if unknown:
            raise ApiError(422, "unknown fields", {n: "unknown field" for n in unknown})
        try:
            created = auth_store.create_api_token(conn, auth.user.id, body.get("name"),
                                                  services.clock.now_ms())
        except users.AccountError as exc:
            raise account_error(exc) from None
        return json_response(created, 201)

    @app.delete("/api/tokens/<token_id:id>")
    def revoke_token(conn, auth: Auth, token_id: int):
        if not auth_store.revoke_api_token(conn, auth.user.id, token_id, services.clock.now_ms()):
            raise ApiError(404, "no such token")
        return bottle.HTTPResponse(status=204)
