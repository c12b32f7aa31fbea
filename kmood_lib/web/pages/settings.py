"""Settings pages: profile and password, mood labels, API tokens — plain forms over the same
domain functions as the JSON API (activities, metrics and note templates have their own)."""

from __future__ import annotations

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import identities, passkeys, users
from kmood_lib.core.db import transaction
from kmood_lib.core.errors import NotFound, ValidationError
from kmood_lib.core.i18n import N_, Phrase
from kmood_lib.core.timezones import canonical_zones
from kmood_lib.journal import storage, vocab
from kmood_lib.web.authentication import (
    FRESH_SIGN_IN_S,
    Auth,
    refuse_passwords,
    require_browser_session,
)
from kmood_lib.web.login import (
    confirm_it_is_them,
    forms_may_leave_to,
    sign_in_methods,
    single_sign_on_name,
    ways_in,
)
from kmood_lib.web.rendering import FormError, form_fields, redirect, settings_page
from kmood_lib.web.routing import Routes

routes = Routes()


# --- profile, integrations and password -----------------------------------------------------

def profile_page(services, conn, auth: Auth, fields=None, errors=None, status=200):
    me = users.profile(conn, auth.user.id)
    ways = ways_in(conn, services, auth.user.id)
    proved = auth.session.authenticated_at if auth.session else None
    fresh = proved is not None and services.clock.now_ms() - proved <= FRESH_SIGN_IN_S * 1000
    # without a password to ask for, a way in is added within minutes of a real sign-in: at
    # the provider, signing in again there (the proxy's sessions are never one)
    again = ("/login/oidc?again=1&next=%2Fsettings%23passkeys"
             if auth.session is not None and auth.session.via == "oidc" else "")
    page = settings_page("profile", auth, status, me=me, zones=canonical_zones(),
                         ways=ways, passkeys_on=services.passkeys is not None,
                         fresh=fresh, sign_in_again=again,
                         passkeys=passkeys.list_passkeys(conn, auth.user.id),
                         storage=storage.summary(conn, auth.user.id,
                                                 services.config.storage_quota_bytes),
                         languages=services.languages.names(), fields=fields or {},
                         password_login=services.config.password_login,
                         single_sign_on=single_sign_on_name(services.config),
                         link_by_email=services.config.sso_link_by_email,
                         sso_subject=identities.subject_of(conn, auth.user.id, identities.OIDC),
                         errors=errors or {},
                         scripts=("settings.js", "passkeys.js") if services.passkeys is not None
                         else ("settings.js",))
    # Linking single sign-on, and logging out of a session it made, post forms whose answers
    # send the browser on to the provider.
    return forms_may_leave_to(page, *services.openid.browser_urls()) if services.openid else page


@routes.get("/settings")
def profile(services, conn, auth: Auth):
    return profile_page(services, conn, auth)


@routes.post("/settings/profile", form=profile_page)
def save_profile(services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    changes = {"timezone": fields.get("timezone", ""),
               "listenbrainz_user": fields.get("listenbrainz_user", "").strip(),
               "lastfm_user": fields.get("lastfm_user", "").strip(),
               "language": fields.get("language", "")}
    users.update_settings(conn, auth.user.id,
                          users.validate_settings(changes, services.languages.codes),
                          services.clock.now_ms())
    return redirect("/settings", "saved")


@routes.post("/settings/password", form=profile_page)
def change_password(services, conn, auth: Auth):
    refuse_passwords(services.config)
    fields = form_fields(bottle.request, services.config)
    old, new = fields.get("old_password", ""), fields.get("new_password", "")
    has_password = ways_in(conn, services, auth.user.id)["password"]
    # (without one, a recent sign-in stands for it: an unattended browser sets none)
    require_browser_session(auth, services.clock.now_ms(), fresh=not has_password)
    if has_password and (len(old) > users.MAX_PASSWORD_LENGTH or users.authenticate(
            conn, auth.user.username, old, services.hasher) is None):
        raise FormError({N_("Current password"): N_("is not right")})
    if new != fields.get("repeat_password"):
        raise FormError({N_("New password"): N_("the two entries differ")})
    users.validate_password(new, "new_password")
    ended = auth_store.change_password(
        conn, auth.user.id, services.hasher.hash(new), services.clock.now_ms(),
        keep_session_id=auth.session.id if auth.session else None,
        revoke_tokens=fields.get("revoke_api_tokens") == "1")
    return redirect("/settings", "password_tokens" if ended["api_tokens_revoked"] else "password")


@routes.post("/settings/password/off", form=profile_page)
def turn_password_off(services, conn, auth: Auth):
    """Sign in without a password from now on (a passkey or single sign-on must be there);
    a password can be set again here."""
    confirm_it_is_them(conn, services, auth, form_fields(bottle.request, services.config)
                       .get("password"))
    passkeys.turn_password_off(conn, auth.user.id, services.clock.now_ms(),
                               sign_in_methods(services.config))
    return redirect("/settings", "password_off")


# --- mood labels --------------------------------------------------------------------------

def moods_page(conn, auth: Auth, fields=None, errors=None, status=200):
    return settings_page("moods", auth, status, labels=vocab.mood_labels(conn, auth.user.id),
                         fields=fields or {}, errors=errors or {})


@routes.get("/settings/moods")
def moods(conn, auth: Auth):
    return moods_page(conn, auth)


@routes.post("/settings/moods", form=moods_page)
def save_moods(services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        for level in range(1, 6):
            try:
                vocab.set_mood_label(conn, auth.user.id, level,
                                     {"label": fields.get(f"label_{level}", "")})
            except ValidationError as exc:
                raise FormError({Phrase("Level {level}", level=level): exc.fields["label"]}
                                ) from None
    return redirect("/settings/moods", "saved")


# --- API tokens ---------------------------------------------------------------------------

def tokens_page(conn, auth: Auth, fields=None, errors=None, status=200, new_token=None):
    return settings_page("tokens", auth, status,
                         tokens=auth_store.list_api_tokens(conn, auth.user.id),
                         new_token=new_token, fields=fields or {}, errors=errors or {})


@routes.get("/settings/tokens")
def tokens(conn, auth: Auth):
    return tokens_page(conn, auth)


@routes.post("/settings/tokens", form=tokens_page)
def create_token(services, conn, auth: Auth):
    """Answered with the page itself (no redirect): the only time the token is shown."""
    fields = form_fields(bottle.request, services.config)
    created = auth_store.create_api_token(conn, auth.user.id, fields.get("name", ""),
                                          services.clock.now_ms())
    return tokens_page(conn, auth, status=201, new_token=created)


@routes.post("/settings/tokens/<item_id:id>/revoke")
def revoke_token(services, conn, auth: Auth, item_id: int):
    if not auth_store.revoke_api_token(conn, auth.user.id, item_id, services.clock.now_ms()):
        raise NotFound("token")
    return redirect("/settings/tokens", "removed")
