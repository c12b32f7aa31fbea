"""Single sign-on with OpenID Connect (SPEC §14). The login page's button (or /login itself,
when the provider is the only way in) sends the browser to the provider with a new request;
the provider sends it back to /login/oidc/callback, where the request is taken (once, by the
browser that began it), the code exchanged and the ID token verified, and the person signed
in to the account linked to their `sub`. A signed-in person links their own account the same
way, from Settings."""

from __future__ import annotations

import logging

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import identities, pending_sign_ins, throttle, users
from kmood_lib.core.errors import Conflict, NotFound
from kmood_lib.core.i18n import N_
from kmood_lib.upstream.openid import ProviderUnavailable, SignInRefused
from kmood_lib.web.authentication import Auth, client_address, set_session_cookie
from kmood_lib.web.http import cookie, query_params
from kmood_lib.web.login import browser_cookie, confirm_it_is_them, login_page, safe_next
from kmood_lib.web.rendering import form_fields, redirect, translator
from kmood_lib.web.routing import Routes

log = logging.getLogger(__name__)
routes = Routes()

REQUEST_TTL_S = 600  # time to sign in at the provider and come back
SIGN_IN, LINK = "oidc", "oidc-link"

UNREACHABLE = N_("The sign-in provider could not be reached; try again in a moment.")
REFUSED = N_("The sign-in provider’s answer could not be verified, so nobody was signed in."
             " Try again.")
STALE = N_("That sign-in was not started in this browser, was used already or took too long."
           " Start again.")
CANCELLED = N_("The sign-in provider did not sign you in.")


def provider(services):
    if services.openid is None:
        raise NotFound("single sign-on")
    return services.openid


def send_to_provider(services, conn, kind: str, user_id: int | None, after: str,
                     again: bool = False):
    """A new request, kept for this browser; the browser sent on to the provider (to sign in
    there again, when linking: whoever is signed in there on a shared computer is not linked
    by mistake)."""
    openid = provider(services)
    request, config = bottle.request, services.config
    browser = cookie(request, browser_cookie(config))
    if not pending_sign_ins.is_browser_key(browser):
        browser = pending_sign_ins.new_browser_key()
    try:
        openid.metadata()  # before anything is kept: the provider may be down
    except ProviderUnavailable as exc:
        log.warning("sign-in method=oidc: the provider is unavailable (%s)", exc)
        return login_page(services, status=503, message=UNREACHABLE)
    secrets_ = openid.new_secrets()
    state = pending_sign_ins.begin(conn, kind, browser,
                                   client_address(request, config.trust_proxy),
                                   {**secrets_, "next": after}, services.clock.now_ms(),
                                   REQUEST_TTL_S, user_id)
    words = translator(request, None)
    response = redirect(openid.authorization_url(state, secrets_["verifier"], secrets_["nonce"],
                                                 words.html_lang,
                                                 prompt="login" if kind == LINK or again
                                                 else ""))
    response.set_cookie(browser_cookie(config), browser, path="/", httponly=True,
                        samesite="Lax", secure=config.cookie_secure, max_age=REQUEST_TTL_S)
    return response


@routes.get("/login/oidc", auth="public")
def begin_sign_in(services, conn, auth: Auth):
    """Off to the provider; `again=1`: to sign in there anew even if signed in here and there
    (a sign-in recent enough to change how the account signs in)."""
    params = query_params(bottle.request)
    after, again = safe_next(params.get("next")), params.get("again") == "1"
    if auth.user is not None and not again:
        return redirect(after)
    return send_to_provider(services, conn, SIGN_IN, None, after, again)


@routes.post("/login/oidc/link")
def begin_link(services, conn, auth: Auth):
    """Link the account at the provider to this one: the person proves both (their session
    here with their password, or a recent sign-in; their sign-in there)."""
    confirm_it_is_them(conn, services, auth,
                       form_fields(bottle.request, services.config).get("password"))
    return send_to_provider(services, conn, LINK, auth.user.id, "/settings")


@routes.get("/login/oidc/callback", auth="public")
def finish_sign_in(services, conn, auth: Auth):
    """The provider's answer: the request taken, the code exchanged, the person signed in (or
    their account linked). An answer to a request this browser began counts against the
    address's login throttle until it signs someone in (an answer to none costs nothing:
    guessing a state is hopeless, and a page elsewhere could otherwise spend the household's
    attempts by linking here)."""
    request, config = bottle.request, services.config
    openid = provider(services)
    params = query_params(request)
    now_ms = services.clock.now_ms()
    pending = pending_sign_ins.take(conn, params.get("state") or "",
                                    cookie(request, browser_cookie(config)) or "", now_ms,
                                    (SIGN_IN, LINK))
    if pending is None:
        log.info("sign-in method=oidc refused (a state not begun in this browser, used or"
                 " expired)")
        return login_page(services, status=400, message=STALE)
    reserved = throttle.reserve_address_attempt(
        conn, client_address(request, config.trust_proxy), now_ms, config.login_window_s,
        config.login_max_failures_per_address)
    if params.get("iss") and params.get("iss") != openid.issuer:  # RFC 9207: a mix-up
        log.warning("sign-in method=oidc refused (the answer names issuer %r)",
                    params.get("iss")[:200])
        return login_page(services, status=400, message=REFUSED)
    if params.get("error") or not params.get("code"):
        log.info("sign-in method=oidc refused by the provider (%r)",
                 (params.get("error") or "no code")[:100])
        return login_page(services, status=401, message=CANCELLED)
    try:
        person = openid.finish(params.get("code"), pending.payload["verifier"],
                               pending.payload["nonce"])
        if identities.clean_subject(person.subject) is None:
            raise SignInRefused("the ID token's sub is not a name k-mood keeps (control"
                                " characters, or space around it)")
    except SignInRefused as exc:
        log.warning("sign-in method=oidc refused (%s)", exc.reason)
        return login_page(services, status=401, message=REFUSED)
    except ProviderUnavailable as exc:
        throttle.release(conn, reserved)  # the provider's trouble, not a failed attempt
        log.warning("sign-in method=oidc: the provider is unavailable (%s)", exc)
        return login_page(services, status=503, message=UNREACHABLE)
    throttle.release(conn, reserved)
    if pending.kind == LINK:
        return link_account(services, conn, auth, pending, person)
    return sign_in(services, conn, auth, person, pending.payload.get("next"))


def sign_in(services, conn, auth: Auth, person, after: str | None):
    config = services.config
    now_ms = services.clock.now_ms()

    def labels() -> dict[int, str]:  # an account made now starts in the request's language
        return users.default_mood_labels(translator(bottle.request, None).gettext)

    user, unlinked = identities.sign_in(
        conn, identities.OIDC, config.oidc_issuer, person.subject, person.groups,
        identities.Newcomers.from_config(config), now_ms, labels, name=person.name,
        verified_email=person.email if person.email_verified else None)
    if user is None:
        if held := services.sign_in_refused_log.due(person.subject):
            log.info("sign-in method=oidc subject=%r refused (%s)%s", person.subject,
                     unlinked.reason, f", {held} times since the last line" if held > 1 else "")
        return login_page(services, status=403, unlinked=unlinked)
    if auth.session is not None:  # sessions rotate at sign-in: never the one from before
        auth_store.delete_session(conn, auth.session.id)
    proved = person.auth_time * 1000 if person.auth_time is not None else None
    session = auth_store.create_session(conn, user.id, now_ms, config.session_ttl_s, via="oidc",
                                        authenticated_at=proved)
    log.info("sign-in method=oidc user=%s ok", user.username)
    response = redirect(safe_next(after))
    set_session_cookie(response, session.token, config)
    return response


def link_account(services, conn, auth: Auth, pending, person):
    """The person who began the link, still signed in here, gets the provider's account."""
    if auth.user is None or auth.user.id != pending.user_id:
        log.info("sign-in method=oidc link refused (no longer signed in as who began it)")
        return login_page(services, status=400, message=STALE)
    held = identities.subject_of(conn, auth.user.id, identities.OIDC)
    if held is not None and held != person.subject:
        log.info("sign-in method=oidc link for user=%s refused (linked to another already)",
                 auth.user.username)
        return redirect("/settings", "sso_already")
    try:
        identities.link(conn, auth.user.id, identities.OIDC, services.config.oidc_issuer,
                        person.subject, services.clock.now_ms())
    except Conflict:
        log.info("sign-in method=oidc link for user=%s refused (the subject is another"
                 " account's)", auth.user.username)
        return redirect("/settings", "sso_taken")
    log.info("sign-in method=oidc linked user=%s", auth.user.username)
    return redirect("/settings", "sso_linked")
