"""Who is asking: a Bottle plugin that authenticates every route unless it is declared public.

Routes say `auth="public" | "user" | "admin"` in their config (default "user": a route added
without a thought is protected). Cookie-authenticated unsafe requests must carry the session's
CSRF token; Bearer-token requests need none.
"""

from __future__ import annotations

import dataclasses
import hmac
import inspect
import urllib.parse
from dataclasses import dataclass

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts.passwords import HasherBusy
from kmood_lib.accounts.users import User
from kmood_lib.queue import heartbeat
from kmood_lib.web.http import ApiError, form_params, is_json_path

SESSION_COOKIE = "kmood_session"
UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


@dataclass(frozen=True)
class Auth:
    """The requester: a user (or None), how they proved it, and their session if by cookie."""

    user: User | None
    via: str | None = None  # "session" | "token"
    session: auth_store.Session | None = None
    worker_missing: bool = False  # admins' pages say so when no worker has beaten lately

    @property
    def csrf_token(self) -> str | None:
        return self.session.csrf_token if self.session else None


def client_address(request: bottle.BaseRequest, trust_proxy: bool) -> str:
    """The peer address, or the last X-Forwarded-For hop when a trusted proxy sets it."""
    if trust_proxy:
        hops = [h.strip() for h in request.get_header("X-Forwarded-For", "").split(",")]
        if hops and hops[-1]:
            return hops[-1]
    return request.environ.get("REMOTE_ADDR", "")


def set_session_cookie(response: bottle.BaseResponse, token: str, config) -> None:
    response.set_cookie(SESSION_COOKIE, token, path="/", httponly=True, samesite="Lax",
                        secure=config.cookie_secure, max_age=config.session_ttl_s)


def clear_session_cookie(response: bottle.BaseResponse, config) -> None:
    response.set_cookie(SESSION_COOKIE, "", path="/", httponly=True, samesite="Lax",
                        secure=config.cookie_secure, max_age=0)


def identify(conn, request: bottle.BaseRequest, services) -> Auth:
    """Bearer token first (an invalid one is a 401), then the session cookie."""
    now_ms = services.clock.now_ms()
    header = request.get_header("Authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "Authorization must be 'Bearer <token>'")
        user = auth_store.user_for_api_token(conn, token.strip(), now_ms)
        if user is None:
            raise ApiError(401, "invalid or revoked API token")
        return Auth(user, "token")
    cookie = request.get_cookie(SESSION_COOKIE)
    if cookie:
        session = auth_store.session_for_token(conn, cookie, now_ms,
                                               services.config.session_ttl_s)
        if session is not None:
            return Auth(session.user, "session", session)
    return Auth(None)


def csrf_ok(request: bottle.BaseRequest, expected: str, max_body: int) -> bool:
    sent = request.get_header("X-CSRF-Token") or ""
    if not sent:
        sent = form_params(request, max_body).get("csrf_token") or ""
    return bool(sent) and hmac.compare_digest(sent.encode(), expected.encode())


def login_redirect(request: bottle.BaseRequest) -> bottle.HTTPResponse:
    """To /login, with the page asked for (still percent-encoded) as `next`."""
    target = urllib.parse.quote(request.path) + (
        ("?" + request.query_string) if request.query_string else "")
    return bottle.HTTPResponse(status=303, headers={
        "Location": "/login?" + urllib.parse.urlencode({"next": target})})


def _too_large(request: bottle.BaseRequest, limit: int) -> bottle.HTTPResponse:
    message = f"body larger than {limit} bytes"
    return ApiError(413, message) if is_json_path(request.path) else bottle.HTTPError(413, message)


def _busy(request: bottle.BaseRequest, retry_after_s: int) -> bottle.HTTPResponse:
    headers = {"Retry-After": str(retry_after_s)}
    message = "the server is busy checking other passwords; try again in a moment"
    if is_json_path(request.path):
        return ApiError(503, message, headers=headers)
    return bottle.HTTPError(503, message, headers=headers)


class AuthPlugin:
    """Around every route: refuse an oversized body before anything reads it, inject `conn`
    (this thread's connection) and `auth`, and hand the connection back clean afterwards.

    Routes say `max_body="upload"` to get KMOOD_MAX_UPLOAD_BYTES instead of
    KMOOD_MAX_BODY_BYTES; waitress itself only stops bodies past the larger of the two.
    """

    name = "kmood_auth"
    api = 2

    def __init__(self, services, pool):
        self.services = services
        self.pool = pool

    def apply(self, callback, route):
        level = route.config.get("auth", "user")
        if level not in ("public", "user", "admin"):
            raise ValueError(f"route {route.rule}: auth must be public, user or admin")
        check_csrf = route.config.get("csrf", True)
        config = self.services.config
        body_limit = (config.max_upload_bytes if route.config.get("max_body") == "upload"
                      else config.max_body_bytes)
        params = inspect.signature(callback).parameters
        wants_conn, wants_auth = "conn" in params, "auth" in params
        services, pool = self.services, self.pool

        def wrapper(*args, **kwargs):
            request = bottle.request
            if request.content_length > body_limit:  # first: before anything reads the body
                raise _too_large(request, body_limit)
            try:
                return authenticated(*args, **kwargs)
            except HasherBusy as exc:
                raise _busy(request, exc.retry_after_s) from None
            except ApiError as exc:
                if is_json_path(request.path):
                    raise
                raise exc.as_page() from None  # a page route answers with a page
            finally:
                pool.release()

        def authenticated(*args, **kwargs):
            request = bottle.request
            conn = pool.get()
            who = identify(conn, request, services) if level != "public" or wants_auth else (
                Auth(None))
            if level != "public":
                if who.user is None:
                    if is_json_path(request.path):
                        raise ApiError(401, "log in or send an API token")
                    raise login_redirect(request)
                if level == "admin" and not who.user.is_admin:
                    raise ApiError(403, "this needs an admin") if is_json_path(
                        request.path) else bottle.HTTPError(403, "this needs an admin")
            if (check_csrf and who.via == "session" and request.method in UNSAFE_METHODS
                    and not csrf_ok(request, who.session.csrf_token, body_limit)):
                if is_json_path(request.path):
                    raise ApiError(403, "missing or wrong CSRF token (X-CSRF-Token header)",
                                   code="csrf")
                raise bottle.HTTPError(403, "missing or wrong CSRF token; reload the page")
            if who.user is not None and who.user.is_admin and not is_json_path(request.path):
                who = dataclasses.replace(who, worker_missing=not heartbeat.health(
                    conn, services.clock.now_ms(), config.worker_stale_s)["alive"])
            if wants_conn:
                kwargs["conn"] = conn
            if wants_auth:
                kwargs["auth"] = who
            return callback(*args, **kwargs)

        return wrapper
