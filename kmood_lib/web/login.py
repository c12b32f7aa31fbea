"""The login page and what the ways of signing in share: where to go afterwards (only this
site), the form's own token before a session exists, and the page a refused or failed sign-in
is shown on (password, sign-in proxy, single sign-on)."""

from __future__ import annotations

import hmac
import re
import secrets
import urllib.parse

import bottle

from kmood_lib.accounts import passkeys, users
from kmood_lib.core.i18n import N_, Phrase
from kmood_lib.web.authentication import require_browser_session
from kmood_lib.web.http import Params, cookie, query_params
from kmood_lib.web.middleware import CSP
from kmood_lib.web.rendering import LANGUAGE_COOKIE, render

FORM_COOKIE = "kmood_form"  # double-submit token for the forms used before a session exists
# Binds a browser to the sign-ins it began (single sign-on, a passkey). Over HTTPS a __Host-
# cookie: no other site under the same domain (a sibling subdomain) can plant one to have the
# person finish its sign-in.
BROWSER_COOKIE = "kmood_sign_in"


def browser_cookie(config) -> str:
    return ("__Host-" if config.cookie_secure else "") + BROWSER_COOKIE


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




# --- log in (a form with its own token: there is no session yet) ---------------------------

LOGIN_REFUSALS = {401: N_("Wrong username or password."),
                  403: N_("Password sign-in is off here: sign in through your sign-in proxy."),
                  422: N_("Enter your username and password."),
                  429: N_("Too many failed logins; wait a while and try again."),
                  503: N_("The server is busy; try again in a moment.")}
FORM_EXPIRED = N_("The form expired; please try again.")


def login_page(services, fields=None, errors=None, status=200, message: str = "",
               unlinked=None, signed_out: bool = False):
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
                  single_sign_on=single_sign_on_name(services.config), signed_out=signed_out,
                  passkeys_on=services.passkeys is not None,
                  scripts=("passkeys.js",) if services.passkeys is not None else (),
                  single_sign_on_href="/login/oidc?" + urllib.parse.urlencode(
                      {"next": safe_next(target)}),
                  languages=services.languages.names(), **chosen)
    if chosen:
        page.set_cookie(LANGUAGE_COOKIE, asked, path="/", httponly=True, samesite="Lax",
                        secure=services.config.cookie_secure, max_age=365 * 86400)
    return with_form_cookie(page, token, services.config)




def single_sign_on_name(config) -> str:
    """The OpenID provider's name for "Sign in with …" (KMOOD_OIDC_NAME, else its host);
    empty when there is no single sign-on."""
    if not config.oidc_issuer:
        return ""
    return config.oidc_name or urllib.parse.urlsplit(config.oidc_issuer).hostname or ""


def forms_may_leave_to(page: bottle.HTTPResponse, *urls: str) -> bottle.HTTPResponse:
    """Let the page's forms end up at these URLs' origins: a form whose answer redirects the
    browser to the sign-in provider or proxy is held to CSP form-action all the way."""
    origins = []
    for url in urls:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc:
            origins.append(f"{parts.scheme}://{parts.netloc}")
    if origins:
        page.set_header("Content-Security-Policy", CSP.replace(
            "form-action 'self'", "form-action 'self' " + " ".join(dict.fromkeys(origins))))
    return page


def sign_in_methods(config) -> tuple[str, ...]:
    """The linked sign-ins this server honours now: a proxy's names, the OpenID provider's."""
    return (("proxy",) if config.auth_header else ()) + (("oidc",) if config.oidc_issuer else ())


def ways_in(conn, services, user_id: int) -> dict[str, int]:
    """What the account can sign in with on this server as it is configured now."""
    return passkeys.ways_in(conn, user_id, sign_in_methods(services.config),
                            services.passkeys is not None)


def confirm_it_is_them(conn, services, auth, password: object) -> None:
    """Before a way in is added or the password goes: the account's current password, or for
    an account without one, a sign-in within the last minutes (require_browser_session)."""
    now_ms = services.clock.now_ms()
    has_password = ways_in(conn, services, auth.user.id)["password"]
    require_browser_session(auth, now_ms, fresh=not has_password)
    if has_password and (not isinstance(password, str) or len(password) > users.MAX_PASSWORD_LENGTH
                         or users.authenticate(conn, auth.user.username, password,
                                               services.hasher) is None):
        raise users.AccountError(Phrase("your current password is not right"), "password", 403)
