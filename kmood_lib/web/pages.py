"""HTML pages: first-run setup, log in and out, the journal, static files."""

from __future__ import annotations

import hmac
import secrets
from pathlib import Path

import bottle

from kmood_lib import auth as auth_store
from kmood_lib import users
from kmood_lib.web.api_accounts import log_in
from kmood_lib.web.auth import Auth, clear_session_cookie, set_session_cookie
from kmood_lib.web.http import ApiError

HERE = Path(__file__).resolve().parent
TEMPLATES = [str(HERE / "templates")]
STATIC = HERE / "static"
FORM_COOKIE = "kmood_form"  # double-submit token for the forms used before a session exists


def render(name: str, status: int = 200, headers: dict | None = None, **values) -> bottle.HTTPResponse:
    values.setdefault("user", None)
    body = bottle.template(name, template_lookup=TEMPLATES, **values)
    response = bottle.HTTPResponse(body, status, headers)
    response.content_type = "text/html; charset=utf-8"
    response.set_header("Cache-Control", "no-store")
    return response


def safe_next(target: str | None) -> str:
    """Only same-site paths: '/x' yes, '//evil' or 'http://evil' no."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/"


def form_token(request: bottle.BaseRequest) -> str:
    return request.get_cookie(FORM_COOKIE) or secrets.token_urlsafe(24)


def with_form_cookie(response: bottle.HTTPResponse, token: str, config) -> bottle.HTTPResponse:
    response.set_cookie(FORM_COOKIE, token, path="/", httponly=True, samesite="Strict",
                        secure=config.cookie_secure)
    return response


def form_token_ok(request: bottle.BaseRequest) -> bool:
    cookie = request.get_cookie(FORM_COOKIE) or ""
    sent = request.forms.get("csrf_token") or ""
    return bool(cookie) and hmac.compare_digest(cookie.encode(), sent.encode())


def redirect(location: str) -> bottle.HTTPResponse:
    return bottle.HTTPResponse(status=303, headers={"Location": location})


def register(app: bottle.Bottle, services) -> None:
    config = services.config

    @app.get("/")
    def home(auth: Auth):
        return render("home.tpl", user=auth.user)

    @app.get("/static/<path:path>", auth="public")
    def static(path):
        response = bottle.static_file(path, root=str(STATIC))
        if response.status_code == 200:
            response.set_header("Cache-Control", "public, max-age=3600")
        return response

    def login_page(request, error="", status=200, username="", headers=None):
        token = form_token(request)
        page = render("login.tpl", status, headers, error=error, form_token=token,
                      next=safe_next(request.params.get("next")), username=username)
        return with_form_cookie(page, token, config)

    @app.get("/login", auth="public")
    def login_form(conn, auth: Auth):
        if users.count_users(conn) == 0:
            return redirect("/setup")
        if auth.user is not None:
            return redirect(safe_next(bottle.request.query.get("next")))
        return login_page(bottle.request)

    @app.post("/login", auth="public")
    def login_submit(conn):
        request = bottle.request
        if not form_token_ok(request):
            return login_page(request, "The form expired; please try again.", 403)
        username = request.forms.getunicode("username") or ""
        try:
            user, session = log_in(conn, services, username,
                                   request.forms.getunicode("password") or "")
        except ApiError as exc:
            message = {401: "Wrong username or password.",
                       429: "Too many failed logins; wait a while and try again."}.get(
                exc.status_code, "Enter your username and password.")
            retry = exc.headers.get("Retry-After")
            return login_page(request, message, exc.status_code, username,
                              {"Retry-After": retry} if retry else None)
        response = redirect(safe_next(request.forms.get("next")))
        set_session_cookie(response, session.token, config)
        return response

    def setup_page(request, error="", status=200, username="", timezone="UTC"):
        token = form_token(request)
        page = render("setup.tpl", status, error=error, form_token=token, username=username,
                      timezone=timezone)
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
        username = request.forms.getunicode("username") or ""
        timezone = request.forms.getunicode("timezone") or "UTC"
        if not form_token_ok(request):
            return setup_page(request, "The form expired; please try again.", 403, username,
                              timezone)
        try:
            user = users.create_user(conn, username, request.forms.getunicode("password") or "",
                                     now_ms=services.clock.now_ms(), scrypt_n=config.scrypt_n,
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
