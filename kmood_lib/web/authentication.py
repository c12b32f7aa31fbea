"""Who is asking: the session cookie or a Bearer token, the CSRF check, and logging in (the
one path the JSON API and the login page share). The plugin that applies it is in plugins.py."""

from __future__ import annotations

import hmac
import ipaddress
import logging
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import identities, throttle, users
from kmood_lib.accounts.users import User
from kmood_lib.core.errors import DomainError, Unauthorized, ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.web.http import ApiError, cookie, form_params, header, is_json_path
from kmood_lib.web.rendering import translator

log = logging.getLogger(__name__)

SESSION_COOKIE = "kmood_session"
UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


@dataclass(frozen=True)
class Auth:
    """The requester: a user (or None), how they proved it, and their session if by cookie."""

    user: User | None
    via: str | None = None  # "session" | "token" | "proxy" (the proxy's header, no session)
    session: auth_store.Session | None = None
    # An admin's: whether a worker has beaten lately, asked only when a page renders (its
    # banner says so when none has); None for everyone else.
    worker_alive: Callable[[], bool] | None = None
    # Signed in by the trusted proxy's header on this request: the session made for it now
    # (its cookie goes out with the answer), and whether the proxy vouches at all.
    new_session: auth_store.NewSession | None = None
    proxied: bool = False
    unlinked: identities.Unlinked | None = None  # the proxy's person no account holds

    @property
    def csrf_token(self) -> str | None:
        return self.session.csrf_token if self.session else None


def client_address(request: bottle.BaseRequest, trust_proxy: bool) -> str:
    """The peer address, or the last X-Forwarded-For hop when a trusted proxy sets it."""
    if trust_proxy:
        hops = [h.strip() for h in (header(request, "X-Forwarded-For") or "").split(",")]
        if hops and hops[-1]:
            return hops[-1]
    return request.environ.get("REMOTE_ADDR", "")


def set_session_cookie(response: bottle.BaseResponse, token: str, config) -> None:
    response.set_cookie(SESSION_COOKIE, token, path="/", httponly=True, samesite="Lax",
                        secure=config.cookie_secure, max_age=config.session_ttl_s)


# Logging out drops the browser's HTTP cache for the site: the photos and memos the person
# opened are not left on disk for the next one. Not "storage": the outbox (IndexedDB) keeps
# entries not sent yet; the service worker forgets its kept page itself (sw.js). Browsers
# honour it over HTTPS and on localhost; elsewhere revalidation (web.files) still holds.
CLEAR_SITE_DATA = '"cache"'


def end_browser_session(response: bottle.BaseResponse, config) -> None:
    """The answer to a logout: the session cookie removed, the site's HTTP cache cleared."""
    response.set_cookie(SESSION_COOKIE, "", path="/", httponly=True, samesite="Lax",
                        secure=config.cookie_secure, max_age=0)
    response.set_header("Clear-Site-Data", CLEAR_SITE_DATA)


def identify(conn, request: bottle.BaseRequest, services, proxy: bool = True) -> Auth:
    """Bearer token first (an invalid one is a 401), then the sign-in proxy's header (unless
    `proxy` is False: only looking, as an error page does), then the session cookie."""
    now_ms = services.clock.now_ms()
    try:
        sent = header(request, "Authorization") or ""
    except ApiError:
        raise ApiError(401, "Authorization must be 'Bearer <token>'") from None
    if sent:
        scheme, _, token = sent.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "Authorization must be 'Bearer <token>'")
        user = auth_store.user_for_api_token(conn, token.strip(), now_ms)
        if user is None:
            raise ApiError(401, "invalid or revoked API token")
        return Auth(user, "token")
    token = cookie(request, SESSION_COOKIE)
    session = auth_store.session_for_token(conn, token, now_ms, services.config.session_ttl_s
                                           ) if token else None
    vouched = proxy_subject(request, services) if proxy else None
    if vouched is not None:
        return proxy_sign_in(conn, request, services, vouched, session)
    if session is not None:
        return Auth(session.user, "session", session)
    return Auth(None)


def proxy_subject(request: bottle.BaseRequest, services) -> str | None:
    """The user name the sign-in proxy vouches for: KMOOD_AUTH_HEADER, believed only from a
    peer in KMOOD_TRUSTED_PROXIES (the connection's own address, never X-Forwarded-For); from
    anyone else it is ignored, with a log line (at most one a minute)."""
    config = services.config
    if not config.auth_header:
        return None
    name = config.auth_header
    sent = request.environ.get("HTTP_" + name.upper().replace("-", "_"))
    if not sent:  # absent, or empty: nobody signed in at the proxy
        return None
    peer = request.environ.get("REMOTE_ADDR", "")
    try:
        address = ipaddress.ip_address(peer.split("%", 1)[0])
        address = getattr(address, "ipv4_mapped", None) or address  # ::ffff:127.0.0.1
        trusted = any(address in network for network in config.trusted_proxies)
    except ValueError:
        trusted = False
    if not trusted:
        if held := services.proxy_ignored_log.due():
            log.warning("ignored the %s header from %r: not in KMOOD_TRUSTED_PROXIES (%d time%s"
                        " since the last line)", name, peer[:64], held, "" if held == 1 else "s")
        return None
    sent = header(request, name)
    if "," in sent:  # the header came more than once (waitress joins them): which is meant?
        raise ApiError(400, Phrase("the sign-in proxy sent the {header} header more than once",
                                   header=name))
    subject = identities.clean_subject(sent)
    if subject is None:
        raise ApiError(400, Phrase("the sign-in proxy's {header} header is not a user name"
                                   " (1-255 characters, no control characters)", header=name))
    return subject


def proxy_sign_in(conn, request: bottle.BaseRequest, services, subject: str,
                  session: auth_store.Session | None) -> Auth:
    """The person the proxy vouches for, on their session: this browser's if it is theirs,
    else a new one (another person's session on this browser is ended). A first sign-in
    follows the household's rules for newcomers (identities.sign_in). A name no account holds
    signs nobody in, and ends whatever session this browser held (someone else's: an admin
    whose own name is not linked yet links it from the shell). The JSON API's requests are
    answered without making a session (a script need not keep a cookie), except GET /api/me,
    which hands a script its session and CSRF token for writing."""
    config = services.config
    now_ms = services.clock.now_ms()
    groups = identities.groups_of(header(request, config.auth_groups_header)
                                  if config.auth_groups_header else None)

    def labels() -> dict[int, str]:  # an account made now starts in the request's language
        return users.default_mood_labels(translator(request, None).gettext)

    user, unlinked = identities.sign_in(conn, identities.PROXY, "", subject, groups,
                                        identities.Newcomers.from_config(config), now_ms, labels)
    if user is None:
        if held := services.sign_in_refused_log.due(subject):
            log.info("sign-in method=proxy subject=%r refused (%s)%s", subject, unlinked.reason,
                     f", {held} times since the last line" if held > 1 else "")
        if session is not None:
            auth_store.delete_session(conn, session.id)
        return Auth(None, proxied=True, unlinked=unlinked)
    if session is not None and session.user.id == user.id:
        return Auth(session.user, "session", session, proxied=True)
    if session is not None:
        auth_store.delete_session(conn, session.id)
    if is_json_path(request.path) and request.path != "/api/me":
        return Auth(user, "proxy", proxied=True)  # no session: reads only (writes need one)
    made = auth_store.create_session(conn, user.id, now_ms, config.session_ttl_s, via="proxy")
    log.info("sign-in method=proxy user=%s ok", user.username)
    return Auth(user, "session", auth_store.Session(made.id, user, made.csrf_token, "proxy"),
                new_session=made, proxied=True)


def csrf_ok(request: bottle.BaseRequest, expected: str, max_body: int) -> bool:
    sent = header(request, "X-CSRF-Token") or ""
    if not sent:
        sent = form_params(request, max_body).get("csrf_token") or ""
    return bool(sent) and hmac.compare_digest(sent.encode(), expected.encode())


def login_redirect(request: bottle.BaseRequest) -> bottle.HTTPResponse:
    """To /login, with the page asked for (still percent-encoded) as `next`."""
    target = urllib.parse.quote(request.path) + (
        ("?" + request.query_string) if request.query_string else "")
    return bottle.HTTPResponse(status=303, headers={
        "Location": "/login?" + urllib.parse.urlencode({"next": target})})




class PasswordLoginOff(DomainError):
    """KMOOD_PASSWORD_LOGIN=off: what a password does (sign in, set up, change, reset) is
    refused, as if those routes were not there for passwords."""

    status = 403
    code = "password_login_off"

    def __init__(self, single_sign_on: bool = False):
        super().__init__(Phrase("password sign-in is off on this server: sign in with single"
                                " sign-on") if single_sign_on else
                         Phrase("password sign-in is off on this server: sign in through the"
                                " sign-in proxy"))


FRESH_SIGN_IN_S = 600  # a sign-in this recent may change how the account signs in


class SignInAgain(DomainError):
    """Changing how an account signs in (its password, passkeys, a linked sign-in) is for a
    browser signed in as it — not an API token — and, where no password can be asked for, one
    whose person proved who they are within FRESH_SIGN_IN_S (a password or a passkey at the
    sign-in, or the OpenID provider's auth_time; never the sign-in proxy's say-so): an
    unattended browser cannot add a way in for someone else or lock its owner out."""

    status = 403
    code = "sign_in_again"


def require_browser_session(auth: Auth, now_ms: int, fresh: bool = False) -> None:
    if auth.via != "session" or auth.session is None:
        raise SignInAgain(Phrase("how an account signs in is changed in a browser signed in to"
                                 " it, not with an API token"))
    proved = auth.session.authenticated_at
    if fresh and (proved is None or now_ms - proved > FRESH_SIGN_IN_S * 1000):
        raise SignInAgain(Phrase("log out and sign in again first: how an account signs in is"
                                 " changed within {n} minutes of signing in",
                                 n=FRESH_SIGN_IN_S // 60))


def refuse_passwords(config) -> None:
    if not config.password_login:
        raise PasswordLoginOff(bool(config.oidc_issuer) and not config.auth_header)


def log_in(conn, services, request: bottle.BaseRequest, username: object, password: object
           ) -> tuple[User, auth_store.NewSession]:
    """Check credentials under the throttle and open a session. Refusals are domain errors:
    422 (missing or too long), 429 (throttled, with Retry-After), 401 (wrong), 503 (busy)."""
    config = services.config
    refuse_passwords(config)
    if not isinstance(username, str) or not isinstance(password, str) or not username:
        required = Phrase("required")
        raise ValidationError({"username": required, "password": required},
                              Phrase("username and password are required"))
    too_long = {}
    if len(username) > users.MAX_USERNAME_LENGTH:
        too_long["username"] = Phrase("at most {n} characters", n=users.MAX_USERNAME_LENGTH)
    if len(password) > users.MAX_PASSWORD_LENGTH:
        too_long["password"] = Phrase("at most {n} characters", n=users.MAX_PASSWORD_LENGTH)
    if too_long:  # refused, never truncated: no such account or password can exist
        raise ValidationError(too_long, Phrase("username or password too long"))
    now_ms = services.clock.now_ms()
    reserved = throttle.reserve_attempt(conn, username, client_address(request, config.trust_proxy),
                                        now_ms, config.login_max_failures, config.login_window_s,
                                        config.login_max_failures_per_address)
    user = users.authenticate(conn, username, password, services.hasher)
    if user is None:
        log.info("sign-in method=password user=%r refused (wrong)", username[:64])
        raise Unauthorized(Phrase("wrong username or password"))
    throttle.login_succeeded(conn, username, reserved)
    session = auth_store.create_session(conn, user.id, services.clock.now_ms(),
                                        config.session_ttl_s)
    log.info("sign-in method=password user=%s ok", user.username)
    return user, session
