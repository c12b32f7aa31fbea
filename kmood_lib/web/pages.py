"""HTML pages: first-run setup, log in and out, the journal, static files."""

from __future__ import annotations

import hmac
import json
import re
import secrets
import urllib.parse
from pathlib import Path

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import users
from kmood_lib.core.timezones import canonical_zones
from kmood_lib.web.api_accounts import log_in
from kmood_lib.web.auth import Auth, clear_session_cookie, set_session_cookie
from kmood_lib.web.http import ApiError, Params, form_params, query_params
from kmood_lib.web.views import redirect, render

STATIC = Path(__file__).resolve().parent / "static"
FORM_COOKIE = "kmood_form"  # double-submit token for the forms used before a session exists
MANIFEST = {
    "name": "k-mood", "short_name": "k-mood", "description": "Your self-hosted mood journal",
    "start_url": "/", "scope": "/", "display": "standalone", "background_color": "#f5f6f8",
    "theme_color": "#3553d9",
    "icons": [{"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png"},
              {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png"},
              {"src": "/static/icons/icon.svg", "sizes": "any", "type": "image/svg+xml"}],
}


_SAFE_PATH = re.compile(r"/(?![/\\])[A-Za-z0-9\-._~!$&'()*+,;=:@%/?#]*")


def safe_next(target: str | None) -> str:
    """Where to go after logging in: only a path on this site, else '/'.

    The target must be printable ASCII of the characters a URL path and query may hold (so no
    tab, newline or backslash, which browsers drop or read as '/'), start with exactly one
    '/', and stay a plain path however often it is percent-decoded ('/%2F/evil.com' decodes
    to '//evil.com', which a later hop could resolve to another host).
    """
    if not target or len(target) > 2000 or not _SAFE_PATH.fullmatch(target):
        return "/"
    decoded = target
    for _ in range(3):
        decoded = urllib.parse.unquote(decoded)
        parts = urllib.parse.urlsplit(decoded)
        if (parts.scheme or parts.netloc or not decoded.startswith("/")
                or decoded.startswith(("//", "/\\")) or "\\" in decoded
                or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in decoded)):
            return "/"
    return target


def form_token(request: bottle.BaseRequest) -> str:
    return request.get_cookie(FORM_COOKIE) or secrets.token_urlsafe(24)


def with_form_cookie(response: bottle.HTTPResponse, token: str, config) -> bottle.HTTPResponse:
    response.set_cookie(FORM_COOKIE, token, path="/", httponly=True, samesite="Strict",
                        secure=config.cookie_secure)
    return response


def form_token_ok(request: bottle.BaseRequest, form: Params) -> bool:
    cookie = request.get_cookie(FORM_COOKIE) or ""
    sent = form.get("csrf_token") or ""
    return bool(cookie) and hmac.compare_digest(cookie.encode(), sent.encode())


def register(app: bottle.Bottle, services) -> None:
    config = services.config

    def form(request) -> Params:
        return form_params(request, config.max_body_bytes)

    @app.get("/manifest.webmanifest", auth="public")
    def manifest():
        response = bottle.HTTPResponse(json.dumps(MANIFEST))
        response.content_type = "application/manifest+json"
        response.set_header("Cache-Control", "public, max-age=3600")
        return response

    @app.get("/static/<path:path>", auth="public")
    def static(path):
        response = bottle.static_file(path, root=str(STATIC))
        if response.status_code == 200:
            response.set_header("Cache-Control", "public, max-age=3600")
        return response

    def login_page(request, error="", status=200, username="", headers=None, next_=None):
        token = form_token(request)
        target = next_ if next_ is not None else query_params(request).get("next")
        page = render("login.tpl", status, headers, error=error, form_token=token,
                      next=safe_next(target), username=username)
        return with_form_cookie(page, token, config)

    @app.get("/login", auth="public")
    def login_form(conn, auth: Auth):
        if users.count_users(conn) == 0:
            return redirect("/setup")
        if auth.user is not None:
            return redirect(safe_next(query_params(bottle.request).get("next")))
        return login_page(bottle.request)

    @app.post("/login", auth="public")
    def login_submit(conn):
        request = bottle.request
        fields = form(request)
        if not form_token_ok(request, fields):
            return login_page(request, "The form expired; please try again.", 403,
                              next_=fields.get("next"))
        username = fields.get("username") or ""
        try:
            user, session = log_in(conn, services, username, fields.get("password") or "")
        except ApiError as exc:
            message = {401: "Wrong username or password.",
                       422: "Enter your username and password.",
                       429: "Too many failed logins; wait a while and try again."}.get(
                exc.status_code, "Enter your username and password.")
            retry = exc.headers.get("Retry-After")
            return login_page(request, message, exc.status_code, username[:64],
                              {"Retry-After": retry} if retry else None, fields.get("next"))
        response = redirect(safe_next(fields.get("next")))
        set_session_cookie(response, session.token, config)
        return response

    def setup_page(request, error="", status=200, username="", timezone="UTC"):
        token = form_token(request)
        page = render("setup.tpl", status, error=error, form_token=token, username=username,
                      timezone=timezone, zones=canonical_zones(), scripts=("settings.js",))
        return with_form_cookie(page, token, config)

    @app.get("/setup", auth="public")
    def setup_form(conn):
        if users.count_users(conn) > 0:
            raise bottle.HTTPError(404, "Not found: setup is finished")
        return setup_page(bottle.request)

    @app.post("/setup", auth="public")
    def setup_submit(conn):
        request = bottle.request
        if users.count_users(conn) > 0:
            raise bottle.HTTPError(404, "Not found: setup is finished")
        fields = form(request)
        username = fields.get("username") or ""
        timezone = fields.get("timezone") or "UTC"
        if not form_token_ok(request, fields):
            return setup_page(request, "The form expired; please try again.", 403, username,
                              timezone)
        try:
            user = users.create_user(conn, username, fields.get("password") or "",
                                     now_ms=services.clock.now_ms(), hasher=services.hasher,
                                     timezone=timezone, only_if_no_users=True)
        except users.AccountError as exc:
            if exc.status == 404:
                raise bottle.HTTPError(404, "Not found: setup is finished") from None
            return setup_page(request, str(exc), 422, username, timezone)
        session = auth_store.create_session(conn, user.id, services.clock.now_ms(),
                                            config.session_ttl_s)
        response = redirect("/")
        set_session_cookie(response, session.token, config)
        return response

    @app.get("/logout")
    def logout_form(auth: Auth):
        return render("logout.tpl", user=auth.user, csrf_token=auth.csrf_token or "")

    @app.post("/logout")
    def logout_submit(conn, auth: Auth):
        if auth.session is not None:
            auth_store.delete_session(conn, auth.session.id)
        response = redirect("/login")
        clear_session_cookie(response, config)
        return response
