"""Passkeys (SPEC §14): added and removed in Settings, signed in with from the login page.
Each ceremony is two requests made by static/js/passkeys.js: options (a new challenge, kept
as a sign-in under way: single-use, five minutes, bound to this browser), then the browser's
answer, verified against that challenge, the relying party and its origin. The answers are
JSON; a refusal says only that it failed (the log says why)."""

from __future__ import annotations

import base64
import hmac
import json
import logging

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import passkeys, pending_sign_ins, throttle
from kmood_lib.accounts.auth import clean_name
from kmood_lib.core.errors import NotFound, SignInRefused, ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.web.authentication import (
    Auth,
    client_address,
    require_browser_session,
    set_session_cookie,
)
from kmood_lib.web.http import ApiError, cookie, header, json_body
from kmood_lib.web.login import (
    FORM_COOKIE,
    browser_cookie,
    confirm_it_is_them,
    safe_next,
    sign_in_methods,
)
from kmood_lib.web.rendering import redirect
from kmood_lib.web.routing import Routes

log = logging.getLogger(__name__)
routes = Routes()

ADD, SIGN_IN = "passkey-add", "passkey"
MAX_CREDENTIAL_BYTES = 64 * 1024  # a browser's answer; attestation certificates included


def relying_party(services):
    if services.passkeys is None:
        raise NotFound("passkeys")
    return services.passkeys


def answer(document: dict, status: int = 200) -> bottle.HTTPResponse:
    response = bottle.HTTPResponse(json.dumps(document), status)
    response.content_type = "application/json"
    response.set_header("Cache-Control", "no-store")
    return response


def refused(status: int = 401) -> bottle.HTTPResponse:
    return answer({"error": {"code": "passkey_refused",
                             "message": "the passkey could not be verified"}}, status)


def ceremony_body(services) -> tuple[str, dict, dict]:
    """The ceremony's handle, the browser's credential (as sent: py_webauthn reads it) and
    the whole body."""
    body = json_body(bottle.request, services.config)
    handle, credential = body.get("ceremony"), body.get("credential")
    if not isinstance(handle, str) or not isinstance(credential, dict):
        raise ValidationError({"credential": Phrase("required")},
                              Phrase("ceremony and credential are required"))
    if len(json.dumps(credential)) > MAX_CREDENTIAL_BYTES:
        raise ValidationError({"credential": Phrase("too large")})
    return handle, credential, body


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode()


# --- adding and removing (Settings) ---------------------------------------------------------

@routes.post("/settings/passkeys/new")
def new_passkey(services, conn, auth: Auth):
    """Options to create a passkey for this account (the name it will have, checked first)."""
    party = relying_party(services)
    body = json_body(bottle.request, services.config)
    name = clean_name(body.get("name"), passkeys.MAX_NAME)
    confirm_it_is_them(conn, services, auth, body.get("password"))
    handle = passkeys.user_handle(conn, auth.user.id)
    options, challenge = party.registration_options(
        handle, auth.user.username, passkeys.credential_ids(conn, auth.user.id))
    ceremony = pending_sign_ins.begin(
        conn, ADD, auth.session.csrf_token, client_address(bottle.request,
                                                           services.config.trust_proxy),
        {"challenge": b64(challenge), "name": name}, services.clock.now_ms(),
        passkeys.CHALLENGE_TTL_S, auth.user.id)
    return answer({"ceremony": ceremony, "options": json.loads(options)})


@routes.post("/settings/passkeys")
def add_passkey(services, conn, auth: Auth):
    """The browser's new credential, verified, kept for this account."""
    party = relying_party(services)
    require_browser_session(auth, services.clock.now_ms())
    handle, credential, _ = ceremony_body(services)
    pending = pending_sign_ins.take(conn, handle, auth.session.csrf_token,
                                    services.clock.now_ms(), (ADD,))
    if pending is None or pending.user_id != auth.user.id:
        log.info("passkey for user=%s refused (a ceremony not begun here, used or expired)",
                 auth.user.username)
        return refused(400)
    try:
        made = party.verify_registration(credential, base64.urlsafe_b64decode(
            pending.payload["challenge"]))
    except SignInRefused as exc:
        log.warning("passkey for user=%s refused (%s)", auth.user.username, exc.reason)
        return refused(400)
    sent = credential.get("response")
    transports = sent.get("transports") if isinstance(sent, dict) else None
    transports = sorted({t for t in transports if t in passkeys.TRANSPORTS}) if isinstance(
        transports, list) else []
    made_id = passkeys.add_passkey(conn, auth.user.id, pending.payload["name"],
                                   made.credential_id, made.credential_public_key,
                                   made.sign_count, transports, services.clock.now_ms())
    log.info("passkey added user=%s passkey=%d", auth.user.username, made_id)
    return answer({"id": made_id, "name": pending.payload["name"]}, 201)


@routes.post("/settings/passkeys/<passkey_id:id>/delete")
def remove_passkey(services, conn, auth: Auth, passkey_id: int):
    """Remove one of the account's passkeys; the sessions it signed in end with it."""
    require_browser_session(auth, services.clock.now_ms())
    if not passkeys.remove_passkey(conn, auth.user.id, passkey_id,
                                   services.config.password_login,
                                   sign_in_methods(services.config), auth.session.id):
        raise NotFound("passkey")
    log.info("passkey removed user=%s passkey=%d", auth.user.username, passkey_id)
    return redirect("/settings", "passkey_removed")


# --- signing in (the login page) ------------------------------------------------------------

def form_token_sent(request: bottle.BaseRequest) -> None:
    """The login page's own token (no session yet), sent back as a header: a page elsewhere
    cannot begin or finish a sign-in in this browser."""
    expected, sent = cookie(request, FORM_COOKIE) or "", header(request, "X-Form-Token") or ""
    if not expected or not hmac.compare_digest(expected.encode(), sent.encode()):
        raise ApiError(403, "missing or wrong form token (X-Form-Token header)", code="csrf")


@routes.post("/login/passkey/options", auth="public")
def sign_in_options(services, conn):
    """Options for a sign-in with any passkey this browser holds for k-mood."""
    party = relying_party(services)
    request, config = bottle.request, services.config
    form_token_sent(request)
    browser = cookie(request, browser_cookie(config))
    if not pending_sign_ins.is_browser_key(browser):
        browser = pending_sign_ins.new_browser_key()
    options, challenge = party.sign_in_options()
    ceremony = pending_sign_ins.begin(conn, SIGN_IN, browser,
                                      client_address(request, config.trust_proxy),
                                      {"challenge": b64(challenge)}, services.clock.now_ms(),
                                      passkeys.CHALLENGE_TTL_S)
    response = answer({"ceremony": ceremony, "options": json.loads(options)})
    response.set_cookie(browser_cookie(config), browser, path="/", httponly=True,
                        samesite="Lax", secure=config.cookie_secure,
                        max_age=passkeys.CHALLENGE_TTL_S)
    return response


@routes.post("/login/passkey", auth="public", csrf=False)  # its own token: the page's
def sign_in(services, conn, auth: Auth):
    """The browser's answer: the passkey found by its id, verified (challenge, origin,
    signature, counter), its account signed in on a new session. An answer to a ceremony this
    browser began counts against the address's login throttle until it signs someone in."""
    party = relying_party(services)
    request, config = bottle.request, services.config
    form_token_sent(request)
    handle, credential, body = ceremony_body(services)
    now_ms = services.clock.now_ms()
    pending = pending_sign_ins.take(conn, handle, cookie(request, browser_cookie(config)) or "",
                                    now_ms, (SIGN_IN,))
    if pending is None:
        log.info("sign-in method=passkey refused (a ceremony not begun in this browser, used"
                 " or expired)")
        return refused(400)
    reserved = throttle.reserve_address_attempt(
        conn, client_address(request, config.trust_proxy), now_ms, config.login_window_s,
        config.login_max_failures_per_address)
    try:
        credential_id, user_handle = party.parse_sign_in(credential)
        found = passkeys.find(conn, credential_id)
        if found is None:
            raise SignInRefused("no such passkey (removed, or another server's)")
        passkey, user, handle_kept = found
        if user_handle is None:  # a discoverable sign-in names its account
            raise SignInRefused("the answer names no account (no userHandle)")
        if not hmac.compare_digest(user_handle, handle_kept or b""):
            raise SignInRefused("the passkey answers for another account")
        verified = party.verify_sign_in(credential, base64.urlsafe_b64decode(
            pending.payload["challenge"]), passkey)
        if not passkeys.used(conn, passkey, verified.new_sign_count, now_ms):
            raise SignInRefused("its counter did not move on (used twice at once)")
    except SignInRefused as exc:
        log.warning("sign-in method=passkey refused (%s)", exc.reason)
        return refused()
    throttle.release(conn, reserved)
    if auth.session is not None:  # sessions rotate at sign-in: never the one from before
        auth_store.delete_session(conn, auth.session.id)
    session = auth_store.create_session(conn, user.id, now_ms, config.session_ttl_s,
                                        via="passkey", passkey_id=passkey.id)
    log.info("sign-in method=passkey user=%s ok", user.username)
    after = body.get("next")
    response = answer({"next": safe_next(after if isinstance(after, str) else None)})
    set_session_cookie(response, session.token, config)
    return response
