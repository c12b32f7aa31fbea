"""Passkeys' rules that need no authenticator (SPEC §14, issue #41): the settings, the way in
an account keeps when its password goes or a passkey is removed, the login page's token on
the ceremony's requests. Ceremonies with a real (virtual) authenticator are in
tests/browser/test_passkeys.py."""

from __future__ import annotations

import pytest

from kmood_lib.accounts import passkeys
from kmood_lib.core.config import Config, ConfigError
from tests.conftest import PASSWORD
from tests.helpers import base_env
from tests.wsgi import Client


def test_the_settings_are_checked_at_start_up(tmp_path):
    env = base_env(tmp_path / "k.db")
    with pytest.raises(ConfigError, match="KMOOD_PASSKEYS: set KMOOD_PUBLIC_URL too"):
        Config.from_env({**env, "KMOOD_PASSKEYS": "1"})
    for url, said in (("http://mood.example.org", "must be https://"),
                      ("https://192.168.1.5", "not an IP address"),
                      ("https://[::1]:8080", "not an IP address")):
        with pytest.raises(ConfigError, match=said):
            Config.from_env({**env, "KMOOD_PASSKEYS": "1", "KMOOD_PUBLIC_URL": url})
    for url in ("https://mood.example.org", "http://localhost:8080"):
        assert Config.from_env({**env, "KMOOD_PASSKEYS": "1", "KMOOD_PUBLIC_URL": url}).passkeys


@pytest.fixture
def with_passkeys(config, clock):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi

    services = bootstrap(config.with_overrides(passkeys=True,
                                               public_url="https://mood.example.org"),
                         clock=clock)
    yield make_wsgi(services)
    services.hasher.close()


def give_passkey(conn, user_id: int, name: str = "phone") -> int:
    return passkeys.add_passkey(conn, user_id, name, name.encode() * 4, b"key", 0, [], 0)


def test_the_password_goes_only_when_another_way_in_stays(with_passkeys, make_user, conn,
                                                         clock):
    ann = make_user("ann", admin=True)
    browser = Client(with_passkeys)
    browser.login("ann", PASSWORD)
    page = browser.get("/settings").text
    assert 'action="/settings/password/off"' not in page  # nothing else to sign in with yet
    off = {"csrf_token": browser.csrf, "password": PASSWORD}
    refused = browser.post("/settings/password/off", form=off)
    assert refused.status == 409 and passkeys.ways_in(conn, ann.id)["password"] == 1
    phone = give_passkey(conn, ann.id)
    assert 'action="/settings/password/off"' in browser.get("/settings").text
    wrong = browser.post("/settings/password/off", form={**off, "password": "not it"})
    assert wrong.status == 403 and passkeys.ways_in(conn, ann.id)["password"] == 1
    done = browser.post("/settings/password/off", form=off)
    assert done.status == 303 and "done=password_off" in done.headers["Location"]
    assert Client(with_passkeys).post("/api/session", {"username": "ann",
                                                      "password": PASSWORD}).status == 401
    # the last passkey of an account with no password stays
    removed = browser.post(f"/settings/passkeys/{phone}/delete",
                           form={"csrf_token": browser.csrf})
    assert removed.status == 409 and passkeys.list_passkeys(conn, ann.id)
    # no password to ask for: only a recent sign-in sets one (not a browser left open)
    page = browser.get("/settings").text
    assert "Set a password" in page and 'name="old_password"' not in page
    again = {"csrf_token": browser.csrf, "new_password": "another long one",
             "repeat_password": "another long one"}
    clock.advance(11 * 60)
    assert browser.post("/settings/password", form=again).status == 403
    fresh = Client(with_passkeys)
    conn.execute("UPDATE users SET password_hash = ? WHERE id = ?", (
        services_hash(with_passkeys, PASSWORD), ann.id))
    fresh.login("ann", PASSWORD)  # (a sign-in now: the test's stand-in for her passkey)
    conn.execute("UPDATE users SET password_hash = '!' WHERE id = ?", (ann.id,))
    assert fresh.post("/settings/password", form={**again, "csrf_token": fresh.csrf}
                      ).status == 303
    assert fresh.post(f"/settings/passkeys/{phone}/delete",
                      form={"csrf_token": fresh.csrf}).status == 303
    assert passkeys.list_passkeys(conn, ann.id) == []
    # another account's passkey is no one's to remove here
    bob = make_user("bob")
    bobs = give_passkey(conn, bob.id, "bob's")
    assert fresh.post(f"/settings/passkeys/{bobs}/delete",
                      form={"csrf_token": fresh.csrf}).status == 404


def services_hash(wsgi, password: str) -> str:
    return wsgi.bottle.config["kmood.services"].hasher.hash(password)


def test_an_api_token_changes_nothing_about_how_the_account_signs_in(with_passkeys, make_user,
                                                                     conn):
    ann = make_user("ann", admin=True)
    phone = give_passkey(conn, ann.id)
    browser = Client(with_passkeys)
    browser.login("ann", PASSWORD)
    token = browser.post("/api/tokens", {"name": "a script"}).json["token"]
    script = Client(with_passkeys)
    script.bearer = token
    for path, form in (("/settings/password/off", {"password": PASSWORD}),
                       ("/settings/password", {"old_password": PASSWORD,
                                               "new_password": "another long one",
                                               "repeat_password": "another long one"}),
                       (f"/settings/passkeys/{phone}/delete", {})):
        assert script.post(path, form=form).status == 403, path
    assert script.post("/settings/passkeys/new", {"name": "x", "password": PASSWORD}
                       ).status == 403
    assert passkeys.ways_in(conn, ann.id) == {"password": 1, "passkeys": 1, "identities": 0}


def test_removing_a_passkey_signs_out_what_it_signed_in(with_passkeys, make_user, conn, clock):
    from kmood_lib.accounts import auth as auth_store

    ann = make_user("ann", admin=True)
    phone, laptop = give_passkey(conn, ann.id, "phone"), give_passkey(conn, ann.id, "laptop")
    on_phone = auth_store.create_session(conn, ann.id, clock.now_ms(), 3600, via="passkey",
                                         passkey_id=phone)
    on_laptop = auth_store.create_session(conn, ann.id, clock.now_ms(), 3600, via="passkey",
                                          passkey_id=laptop)
    browser = Client(with_passkeys)
    browser.cookies["kmood_session"] = on_laptop.token
    browser.csrf = on_laptop.csrf_token
    assert browser.post(f"/settings/passkeys/{phone}/delete",
                        form={"csrf_token": browser.csrf}).status == 303
    lost = Client(with_passkeys)
    lost.cookies["kmood_session"] = on_phone.token
    assert lost.get("/api/me").status == 401
    assert browser.get("/api/me").status == 200


def test_a_sign_in_ceremony_needs_the_login_pages_token(with_passkeys, make_user):
    make_user("ann", admin=True)
    browser = Client(with_passkeys)
    page = browser.get("/login")
    token = page.text.split('data-form-token="')[1].split('"')[0]
    assert browser.post("/login/passkey/options", {}).status == 403
    assert browser.post("/login/passkey/options", {},
                        headers={"X-Form-Token": "guess"}).status == 403
    begun = browser.post("/login/passkey/options", {}, headers={"X-Form-Token": token})
    assert begun.status == 200 and begun.json["options"]["rpId"] == "mood.example.org"
    assert begun.json["options"]["userVerification"] == "required"
    # an answer that is not one: refused, nothing signed in, no 500
    for body in ({}, {"ceremony": begun.json["ceremony"], "credential": "x"},
                 {"ceremony": begun.json["ceremony"], "credential": {"id": "x"}}):
        answer = browser.post("/login/passkey", body, headers={"X-Form-Token": token})
        assert answer.status in (400, 401, 422), (body, answer.status)
        assert "kmood_session" not in browser.cookies


def test_adding_one_checks_its_name_first_and_needs_the_sessions_token(with_passkeys,
                                                                       make_user):
    make_user("ann", admin=True)
    browser = Client(with_passkeys)
    browser.login("ann", PASSWORD)
    assert browser.post("/settings/passkeys/new", {"name": " "}).status == 422
    assert browser.post("/settings/passkeys/new", {"name": "my phone"}).status == 403
    begun = browser.post("/settings/passkeys/new", {"name": "my phone", "password": PASSWORD})
    assert begun.status == 200
    options = begun.json["options"]
    assert options["rp"] == {"id": "mood.example.org", "name": "k-mood"}
    assert options["authenticatorSelection"]["residentKey"] == "required"
    assert options["authenticatorSelection"]["userVerification"] == "required"
    browser.csrf = None
    assert browser.post("/settings/passkeys/new", {"name": "my phone", "password": PASSWORD}
                        ).status == 403


def test_without_passkeys_their_routes_are_not_there(wsgi, make_user):
    make_user("ann", admin=True)
    browser = Client(wsgi)
    assert 'id="passkey-sign-in"' not in browser.get("/login").text
    assert browser.post("/login/passkey/options", {}).status == 404
    browser.login("ann", PASSWORD)
    assert browser.post("/settings/passkeys/new", {"name": "x"}).status == 404


def test_household_changes_nothing_for_an_api_token_nor_an_old_session_of_ones_own(
        with_passkeys, make_user, conn, clock):
    """An admin's token (or a browser of theirs left open for hours) cannot reset, link or
    set an address for their own account in Household; their browser, signed in now, can."""
    ann = make_user("ann", admin=True)
    bob = make_user("bob")
    browser = Client(with_passkeys)
    browser.login("ann", PASSWORD)
    script = Client(with_passkeys)
    script.bearer = browser.post("/api/tokens", {"name": "a script"}).json["token"]
    for path, form in ((f"/settings/users/{ann.id}/password", {"password": "a new long one"}),
                       (f"/settings/users/{bob.id}/password", {"password": "a new long one"}),
                       (f"/settings/users/{ann.id}/identities", {"subject": "mallory"}),
                       ("/settings/users", {"username": "eve", "password": "a long password"})):
        assert script.post(path, form=form).status == 403, path
    # her own password is changed in Settings (where the current one is asked for)
    assert browser.post(f"/settings/users/{ann.id}/password", form={
        "csrf_token": browser.csrf, "password": "a new long one"}).status == 409
    clock.advance(11 * 60)  # her browser, left signed in
    assert browser.post(f"/settings/users/{ann.id}/identities", form={
        "csrf_token": browser.csrf, "method": "proxy", "subject": "mallory"}).status == 403
    assert browser.post(f"/settings/users/{bob.id}/password", form={
        "csrf_token": browser.csrf, "password": "a new long one"}).status == 303
    assert conn.execute("SELECT count(*) FROM identities").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM users WHERE username = 'eve'").fetchone()[0] == 0


def test_a_session_the_sign_in_proxy_made_is_never_a_fresh_sign_in(config, clock, conn):
    """The proxy vouches on every request, so a browser whose session it makes anew (drop
    the cookie, reload) has proved nothing: it adds no way in to an account without one."""
    import ipaddress

    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi

    services = bootstrap(config.with_overrides(
        passkeys=True, public_url="https://mood.example.org", auth_header="Remote-User",
        trusted_proxies=(ipaddress.ip_network("127.0.0.1/32"),), sso_auto_create=True),
        clock=clock)
    try:
        wsgi = make_wsgi(services)
        browser = Client(wsgi)
        me = browser.get("/api/me", headers={"Remote-User": "zoe"}).json
        browser.csrf = me["csrf_token"]
        said = browser.post("/settings/passkeys/new", {"name": "phone"},
                            headers={"Remote-User": "zoe"})
        assert said.status == 403 and "sign in again" in said.text
        assert "To add a passkey to an account without a password" in browser.get(
            "/settings", headers={"Remote-User": "zoe"}).text
    finally:
        services.hasher.close()
