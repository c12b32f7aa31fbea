"""The pages anyone may open: first-run setup, log in and out, the manifest, static files; and
the service worker with the page it shows where one needs the server and there is none."""

from __future__ import annotations

import functools
import hashlib
import json
import urllib.parse
from pathlib import Path

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import users
from kmood_lib.core.i18n import N_, Phrase
from kmood_lib.core.timezones import canonical_zones
from kmood_lib.web import script_words, template_helpers
from kmood_lib.web.authentication import Auth, end_browser_session, log_in, set_session_cookie
from kmood_lib.web.http import query_params
from kmood_lib.web.login import (
    FORM_EXPIRED,
    form_token,
    form_token_ok,
    forms_may_leave_to,
    login_page,
    safe_next,
    with_form_cookie,
)
from kmood_lib.web.rendering import form_fields, redirect, render, translator
from kmood_lib.web.routing import Routes

STATIC = template_helpers.STATIC
routes = Routes()

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

SETUP_FINISHED = Phrase("Not found: setup is finished")
SETUP_OFF = Phrase("Not found: password sign-in is off, so the first account is made at a"
                   " first sign-in (KMOOD_SSO_AUTO_CREATE) or by kmood.py create-user")

@routes.get("/login", auth="public")
def login_form(services, conn, auth: Auth):
    """The login page; with single sign-on the only way in (password sign-in off), straight on
    to the provider — unless the page has something to say: a sign-in the proxy vouched for
    that no account holds, or a logout just now (the provider would sign the person in again);
    and not when passkeys are a way in too (their button is here)."""
    config, params = services.config, query_params(bottle.request)
    newcomers_by_sso = config.oidc_issuer and config.sso_auto_create  # the first may come so
    if config.password_login and users.count_users(conn) == 0 and not newcomers_by_sso:
        return redirect("/setup")
    if auth.user is not None:
        return redirect(safe_next(params.get("next")))
    signed_out = params.get("signed_out") == "1"
    if (not config.password_login and config.oidc_issuer and auth.unlinked is None
            and not config.passkeys and not signed_out and "lang" not in params):
        return redirect("/login/oidc?" + urllib.parse.urlencode(
            {"next": safe_next(params.get("next"))}))
    return login_page(services, unlinked=auth.unlinked, signed_out=signed_out)


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


def leaving_to(services, auth: Auth) -> str:
    """Where logging out sends the browser on to, to sign out there too: the proxy's logout
    (KMOOD_AUTH_LOGOUT_URL) for a person it signed in, the OpenID provider's end-session
    endpoint for a session single sign-on made (when it has one); else nowhere."""
    if auth.proxied:
        return services.config.auth_logout_url
    if auth.session is not None and auth.session.via == "oidc" and services.openid is not None:
        return services.openid.logout_url(services.config.public_url + "/login?signed_out=1") or ""
    return ""


@routes.get("/logout")
def logout_form(services, auth: Auth):
    leave = leaving_to(services, auth)
    page = render("logout.tpl", user=auth.user, csrf_token=auth.csrf_token or "",
                  proxied=auth.proxied, logout_url=leave,
                  single_sign_on=bool(auth.session and auth.session.via == "oidc"))
    return forms_may_leave_to(page, leave) if leave else page


@routes.post("/logout")
def logout_submit(services, conn, auth: Auth):
    """Ends this browser's session; on to the proxy's or the provider's own logout when there
    is one (else the proxy would sign the person in again at once)."""
    leave = leaving_to(services, auth)
    if auth.session is not None:
        auth_store.delete_session(conn, auth.session.id)
    config = services.config
    # where /login goes straight to the provider, say not to (it would sign them in again)
    response = redirect(leave or ("/login?signed_out=1" if config.oidc_issuer
                                  and not config.password_login else "/login"))
    end_browser_session(response, config)
    return response
