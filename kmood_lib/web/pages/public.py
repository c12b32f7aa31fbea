"""The pages anyone may open: first-run setup, log in and out, the manifest, static files; and
the service worker with the page it shows where one needs the server and there is none."""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
import secrets
import urllib.parse
from pathlib import Path

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import users
from kmood_lib.core.i18n import N_, Phrase
from kmood_lib.core.timezones import canonical_zones
from kmood_lib.web import script_words, template_helpers
from kmood_lib.web.authentication import Auth, end_browser_session, log_in, set_session_cookie
from kmood_lib.web.http import Params, cookie, query_params
from kmood_lib.web.middleware import CSP
from kmood_lib.web.rendering import LANGUAGE_COOKIE, form_fields, redirect, render, translator
from kmood_lib.web.routing import Routes

STATIC = template_helpers.STATIC
routes = Routes()

FORM_COOKIE = "kmood_form"  # double-submit token for the forms used before a session exists
MANIFEST = {
    "name": "k-mood", "short_name": "k-mood", "description": N_("Your self-hosted mood journal"),
    "start_url": "/", "scope": "/", "display": "standalone", "background_color": "#f5f6f8",
    "theme_color": "#3553d9",
    "icons": [{"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png"},
              {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png"},
              {"src": "/static/icons/icon.svg", "sizes": "any", "type": "image/svg+xml"},
              # The launcher cuts its own shape from these: full-bleed, the face in the
              # safe circle (tools/render_icons.sh).
              {"src": "/static/icons/icon-maskable-192.png", "sizes": "192x192",
               "type": "image/png", "purpose": "maskable"},
              {"src": "/static/icons/icon-maskable-512.png", "sizes": "512x512",
               "type": "image/png", "purpose": "maskable"}],
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
    return cookie(request, FORM_COOKIE) or secrets.token_urlsafe(24)


def with_form_cookie(response: bottle.HTTPResponse, token: str, config) -> bottle.HTTPResponse:
    response.set_cookie(FORM_COOKIE, token, path="/", httponly=True, samesite="Strict",
                        secure=config.cookie_secure)
    return response


def form_token_ok(request: bottle.BaseRequest, form: Params) -> bool:
    expected = cookie(request, FORM_COOKIE) or ""
    sent = form.get("csrf_token") or ""
    return bool(expected) and hmac.compare_digest(expected.encode(), sent.encode())


@routes.get("/manifest.webmanifest", auth="public")
def manifest():
    """The web app manifest in the browser's language (browsers fetch it without cookies: its
    Accept-Language, else KMOOD_DEFAULT_LANGUAGE); its name is k-mood in every language."""
    words = translator(bottle.request, None)
    said = {**MANIFEST, "description": words.gettext(MANIFEST["description"]),
            "lang": words.html_lang, "dir": words.direction}
    response = bottle.HTTPResponse(json.dumps(said))
    response.content_type = "application/manifest+json"
    response.set_header("Cache-Control", "public, max-age=3600")
    response.set_header("Vary", "Accept-Language, Cookie")
    return response


# The service worker's shell: what the log page needs to open with no network (SPEC §12).
SHELL_FILES = ("style.css", "js/outbox.js", "js/offline.js", "js/outbox_panel.js", "js/log.js",
               "js/words.js", "icons/icon.svg", "icons/icon-192.png")
SERVICE_WORKER = Path(__file__).resolve().parent.parent / "sw.js"


@functools.lru_cache(maxsize=1)
def service_worker() -> bytes:
    """sw.js with this release's version (a hash of its own text, of the shell's files and of
    its English words) and the shell's versioned URLs and those words filled in: any change to
    any of them is a new version."""
    shell = [template_helpers.static(path) for path in SHELL_FILES]
    words = json.dumps(script_words.service_worker_english(), ensure_ascii=False)
    text = SERVICE_WORKER.read_text(encoding="utf-8")
    version = hashlib.sha256("\n".join([text, *shell, words]).encode()).hexdigest()[:12]
    return text.replace('"__VERSION__"', json.dumps(version)).replace(
        "__SHELL__", json.dumps(shell)).replace("__WORDS__", words).encode()


@routes.get("/sw.js", auth="public")
def sw():
    response = bottle.HTTPResponse(service_worker())
    response.content_type = "text/javascript; charset=utf-8"
    response.set_header("Cache-Control", "no-cache")
    return response


@routes.get("/offline")
def offline(auth: Auth):
    """What the service worker shows, under a page's own address, for a page that needs the
    server when there is no connection (kept while logged in, forgotten at logout): says so,
    how many entries wait on this device (outbox_panel.js counts them) and the way to Log.
    Nothing of the moment it was kept (a notice, the worker's health) is on it."""
    return render("offline.tpl", user=auth.user)


@routes.get("/static/<path:path>", auth="public")
def static(path):
    """A static file; asked for by its versioned URL (template_helpers.static), it is cached
    for a year."""
    response = bottle.static_file(path, root=str(STATIC))
    if response.status_code in (200, 206, 304):  # a 304 renews how the copy may be kept
        current = query_params(bottle.request).get("v") == template_helpers.static_version(path)
        response.set_header("Cache-Control", "public, max-age=31536000, immutable" if current
                            else "public, max-age=3600")
    return response


# --- log in (a form with its own token: there is no session yet) ---------------------------

LOGIN_REFUSALS = {401: N_("Wrong username or password."),
                  403: N_("Password sign-in is off here: sign in through your sign-in proxy."),
                  422: N_("Enter your username and password."),
                  429: N_("Too many failed logins; wait a while and try again."),
                  503: N_("The server is busy; try again in a moment.")}
FORM_EXPIRED = N_("The form expired; please try again.")
SETUP_FINISHED = Phrase("Not found: setup is finished")
SETUP_OFF = Phrase("Not found: password sign-in is off, so the sign-in proxy (or kmood.py"
                   " create-user) makes the first account")


def login_page(services, fields=None, errors=None, status=200, message: str = "",
               unlinked=None):
    """The login form, with the languages to switch to; after a refusal, `status` says which
    words to show. `?lang=de` shows it in German and keeps that for this browser (a cookie)
    until someone logs in who has chosen a language of their own."""
    request = bottle.request
    fields = fields or {}
    token = form_token(request)
    if errors and not message:
        message = LOGIN_REFUSALS.get(status, LOGIN_REFUSALS[422])
    target = fields.get("next") if fields else query_params(request).get("next")
    asked = query_params(request).get("lang")
    chosen = {"i18n": services.languages.get(asked)} if asked in services.languages.codes else {}
    page = render("login.tpl", status, error=message, form_token=token, next=safe_next(target),
                  username=(fields.get("username") or "")[:64], unlinked=unlinked,
                  password_login=services.config.password_login,
                  languages=services.languages.names(), **chosen)
    if chosen:
        page.set_cookie(LANGUAGE_COOKIE, asked, path="/", httponly=True, samesite="Lax",
                        secure=services.config.cookie_secure, max_age=365 * 86400)
    return with_form_cookie(page, token, services.config)


@routes.get("/login", auth="public")
def login_form(services, conn, auth: Auth):
    if services.config.password_login and users.count_users(conn) == 0:
        return redirect("/setup")
    if auth.user is not None:
        return redirect(safe_next(query_params(bottle.request).get("next")))
    return login_page(services, unlinked=auth.unlinked)


@routes.post("/login", auth="public", form=login_page)
def login_submit(services, conn):
    request = bottle.request
    fields = form_fields(request, services.config)
    if not form_token_ok(request, fields):
        return login_page(services, fields, status=403,
                          message=FORM_EXPIRED)
    user, session = log_in(conn, services, request, fields.get("username") or "",
                           fields.get("password") or "")
    response = redirect(safe_next(fields.get("next")))
    set_session_cookie(response, session.token, services.config)
    return response


# --- first-run setup (exists only while there are no users) ---------------------------------

def setup_page(services, fields=None, errors=None, status=200, message: str = ""):
    request = bottle.request
    fields = fields or {}
    token = form_token(request)
    page = render("setup.tpl", status, error=message, errors=errors or {}, form_token=token,
                  username=fields.get("username") or "", timezone=fields.get("timezone") or "UTC",
                  zones=canonical_zones(), scripts=("settings.js",))
    return with_form_cookie(page, token, services.config)


def setup_finished(services, conn) -> None:
    if not services.config.password_login:
        raise bottle.HTTPError(404, SETUP_OFF)
    if users.count_users(conn) > 0:
        raise bottle.HTTPError(404, SETUP_FINISHED)


@routes.get("/setup", auth="public")
def setup_form(services, conn):
    setup_finished(services, conn)
    return setup_page(services)


@routes.post("/setup", auth="public", form=setup_page)
def setup_submit(services, conn):
    request = bottle.request
    setup_finished(services, conn)
    fields = form_fields(request, services.config)
    if not form_token_ok(request, fields):
        return setup_page(services, fields, status=403,
                          message=FORM_EXPIRED)
    try:
        user = users.create_user(conn, fields.get("username") or "", fields.get("password") or "",
                                 now_ms=services.clock.now_ms(), hasher=services.hasher,
                                 timezone=fields.get("timezone") or "UTC", only_if_no_users=True,
                                 mood_labels=users.default_mood_labels(
                                     translator(request, None).gettext))
    except users.AccountError as exc:
        if exc.status == 404:  # someone else finished setup a moment ago
            raise bottle.HTTPError(404, SETUP_FINISHED) from None
        raise
    session = auth_store.create_session(conn, user.id, services.clock.now_ms(),
                                        services.config.session_ttl_s)
    response = redirect("/")
    set_session_cookie(response, session.token, services.config)
    return response


@routes.get("/logout")
def logout_form(services, auth: Auth):
    leave = services.config.auth_logout_url if auth.proxied else ""
    page = render("logout.tpl", user=auth.user, csrf_token=auth.csrf_token or "",
                  proxied=auth.proxied, logout_url=leave)
    if leave:  # the form's answer sends the browser on to the proxy: its origin may be a target
        parts = urllib.parse.urlsplit(leave)
        page.set_header("Content-Security-Policy", CSP.replace(
            "form-action 'self'", f"form-action 'self' {parts.scheme}://{parts.netloc}"))
    return page


@routes.post("/logout")
def logout_submit(services, conn, auth: Auth):
    """Ends this browser's session; signed in by the proxy, on to its own logout when
    KMOOD_AUTH_LOGOUT_URL says where (else the proxy would sign the person in again)."""
    if auth.session is not None:
        auth_store.delete_session(conn, auth.session.id)
    leave = services.config.auth_logout_url if auth.proxied else ""
    response = redirect(leave or "/login")
    end_browser_session(response, services.config)
    return response
