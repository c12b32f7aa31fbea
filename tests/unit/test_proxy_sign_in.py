"""Sign-in through a trusted forward-auth proxy's header (SPEC §14, issue #41): believed only
from KMOOD_TRUSTED_PROXIES, linked accounts only (by an admin, or made at a first sign-in when
the household allows newcomers), sessions and CSRF as for a password sign-in."""

from __future__ import annotations

import ipaddress
import logging
import re
from pathlib import Path

import pytest

from kmood_lib.accounts import users
from kmood_lib.core.config import Config, ConfigError
from kmood_lib.core.i18n import Languages
from tests.conftest import PASSWORD
from tests.helpers import base_env
from tests.unit.test_default_mood_labels import labels_of
from tests.wsgi import Client

TRUSTED, STRANGER = "127.0.0.1", "127.0.0.2"


@pytest.fixture
def proxied(config, clock):
    """A WSGI app behind a sign-in proxy at 127.0.0.1 that sends Remote-User and Remote-Groups
    (`**settings` on top), and clients from the proxy or from elsewhere."""
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi

    made = []

    def make(**settings):
        services = bootstrap(config.with_overrides(
            auth_header="Remote-User", auth_groups_header="Remote-Groups",
            trusted_proxies=(ipaddress.ip_network("127.0.0.1/32"),), **settings), clock=clock)
        made.append(services)
        return make_wsgi(services)

    yield make
    for services in made:
        services.hasher.close()


def through(wsgi, name: str | None = None, groups: str | None = None, address: str = TRUSTED
            ) -> Client:
    """A browser whose every request the proxy at `address` stamps with `name` (and groups)."""
    client = Client(wsgi, remote_addr=address)
    stamp = {"Remote-User": name} if name is not None else {}
    if groups is not None:
        stamp["Remote-Groups"] = groups
    plain = client.request

    def request(method, path, **kw):
        kw["headers"] = {**stamp, **(kw.get("headers") or {})}
        return plain(method, path, **kw)

    client.request = request
    return client


def sessions(conn, name: str | None = None) -> int:
    if name is None:
        return conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
    return conn.execute("SELECT count(*) FROM sessions s JOIN users u ON u.id = s.user_id"
                        " WHERE u.username = ?", (name,)).fetchone()[0]


def link(conn, user_id: int, subject: str) -> None:
    conn.execute("INSERT INTO identities (user_id, method, issuer, subject, created_at)"
                 " VALUES (?, 'proxy', '', ?, 0)", (user_id, subject))


def test_a_linked_person_is_signed_in_once_per_browser_and_the_log_says_so(
        proxied, make_user, conn, caplog):
    wsgi = proxied()
    alice = make_user("alice")
    link(conn, alice.id, "alice@home")
    browser = through(wsgi, "alice@home")
    with caplog.at_level(logging.INFO, logger="kmood_lib.web.authentication"):
        first = browser.get("/api/me")
    assert first.status == 200 and first.json["username"] == "alice"
    assert len(first.set_cookies) == 1 and "HttpOnly" in first.set_cookies[0]
    assert "sign-in method=proxy user=alice ok" in caplog.text
    again = browser.get("/api/me")  # the session's cookie, no new session
    assert again.status == 200 and again.set_cookies == [] and sessions(conn, "alice") == 1
    assert browser.get("/").status == 200  # the pages too
    used = conn.execute("SELECT last_used_at FROM identities").fetchone()[0]
    assert used is not None


def test_the_header_from_any_other_address_is_ignored_with_a_log_line(
        proxied, make_user, conn, caplog):
    wsgi = proxied()
    alice = make_user("alice")
    link(conn, alice.id, "alice")
    with caplog.at_level(logging.WARNING, logger="kmood_lib.web.authentication"):
        stranger = through(wsgi, "alice", address=STRANGER).get("/api/me")
    assert stranger.status == 401 and stranger.set_cookies == []
    assert "ignored the Remote-User header from '127.0.0.2'" in caplog.text
    # X-Forwarded-For naming the proxy changes nothing: the connection's own address counts
    forwarded = through(proxied(trust_proxy=True), "alice", address=STRANGER).get(
        "/api/me", headers={"X-Forwarded-For": TRUSTED})
    assert forwarded.status == 401
    assert through(wsgi, "alice", address=STRANGER).get("/").status == 303  # to /login
    assert sessions(conn) == 0


def test_without_the_setting_the_header_means_nothing(wsgi, make_user, conn):
    alice = make_user("alice")
    link(conn, alice.id, "alice")
    assert through(wsgi, "alice").get("/api/me").status == 401
    assert sessions(conn) == 0


def test_a_name_no_account_holds_is_refused_and_the_login_page_says_why(proxied, make_user,
                                                                         conn):
    wsgi = proxied()
    make_user("alice")
    browser = through(wsgi, "alice")  # the same name, never matched on its own
    refused = browser.get("/api/me")
    assert refused.status == 403 and refused.json["error"]["code"] == "not_linked"
    assert "'alice'" in refused.json["error"]["message"]
    page = browser.get("/entries")
    assert page.status == 303 and page.headers["Location"].startswith("/login")
    login = browser.get("/login")
    assert login.status == 200
    assert "no k-mood account is linked to that name yet" in login.text
    assert 'name="password"' in login.text  # a password still signs in
    assert sessions(conn) == 0
    assert conn.execute("SELECT count(*) FROM identities").fetchone()[0] == 0


def test_newcomers_get_an_account_only_when_allowed_and_in_the_group(proxied, make_user, conn,
                                                                     caplog):
    make_user("admin")
    make_user("erin")
    wsgi = proxied(sso_auto_create=True, sso_member_group="kmood", sso_admin_group="admins")
    caplog.set_level(logging.INFO, logger="kmood_lib.web.authentication")
    outsider = through(wsgi, "carol", "family, friends").get("/api/me")
    assert outsider.status == 403 and sessions(conn) == 0
    assert "sign-in method=proxy subject='carol' refused (not in the group)" in caplog.text
    page = through(wsgi, "carol", "family").get("/login")
    assert "only members of the group chosen for k-mood" in page.text

    carol = through(wsgi, "carol", "family, kmood").get("/api/me")
    assert carol.status == 200 and carol.json["username"] == "carol"
    assert carol.json["is_admin"] is False
    dave = through(wsgi, "dave", "kmood,admins").get("/api/me")
    assert dave.status == 200 and dave.json["is_admin"] is True
    # made without a password: none signs in as them
    assert Client(wsgi).login("carol", "!").status == 401
    assert Client(wsgi).login("carol", PASSWORD).status == 401

    taken = through(wsgi, "erin", "kmood").get("/api/me")  # erin's own account stays hers
    assert taken.status == 403 and "name taken" in caplog.text
    invalid = through(wsgi, "Zoë Bloggs".encode().decode("latin-1"), "kmood").get("/api/me")
    assert invalid.status == 403
    assert [r[0] for r in conn.execute("SELECT subject FROM identities ORDER BY id")] == [
        "carol", "dave"]
    assert conn.execute("SELECT count(*) FROM users").fetchone()[0] == 4


def test_the_first_account_made_by_the_proxy_is_the_admin_in_the_browsers_language(proxied):
    wsgi = proxied(sso_auto_create=True)
    first = through(wsgi, "pat").get("/api/me")
    assert first.status == 200 and first.json["is_admin"] is True
    sam = through(wsgi, "sam")
    assert sam.get("/api/me", headers={"Accept-Language": "de"}).json["is_admin"] is False
    assert labels_of(sam) == users.default_mood_labels(Languages().get("de").gettext)


def test_another_persons_session_on_the_browser_ends_when_the_proxy_says_someone_else(
        proxied, make_user, conn):
    wsgi = proxied()
    make_user("alice")
    bob = make_user("bob")
    link(conn, bob.id, "bob")
    browser = through(wsgi, "bob")
    assert browser.login("alice", PASSWORD).status == 201  # alice's session on this browser
    alices = browser.cookies["kmood_session"]
    me = browser.get("/api/me")
    assert me.json["username"] == "bob" and browser.cookies["kmood_session"] != alices
    assert sessions(conn, "alice") == 0 and sessions(conn, "bob") == 1


def test_changes_still_need_the_sessions_csrf_token(proxied, make_user, conn):
    wsgi = proxied()
    alice = make_user("alice")
    link(conn, alice.id, "alice")
    browser = through(wsgi, "alice")
    forged = browser.post("/api/tokens", {"name": "made cross-site"})
    assert forged.status == 403 and forged.json["error"]["code"] == "csrf"
    browser.csrf = browser.get("/api/me").json["csrf_token"]
    assert browser.post("/api/tokens", {"name": "mine"}).status == 201
    assert [tuple(r) for r in conn.execute("SELECT name FROM api_tokens")] == [("mine",)]


def test_an_api_token_is_its_owner_whatever_the_header_says(proxied, make_user, conn):
    wsgi = proxied()
    make_user("alice")
    bob = make_user("bob")
    link(conn, bob.id, "bob")
    owner = Client(wsgi)
    owner.login("alice", PASSWORD)
    token = owner.post("/api/tokens", {"name": "script"}).json["token"]
    script = through(wsgi, "bob")
    script.bearer = token
    assert script.get("/api/me").json["username"] == "alice"
    assert sessions(conn, "bob") == 0


@pytest.mark.parametrize("sent, why", [
    ("alice, mallory", "more than once"),  # a client's header the proxy passed on beside its own
    ("alice\x01", "not a user name"),
    (" alice", "not a user name"),
    ("a" * 256, "not a user name"),
    ("al\xffice", "not valid UTF-8"),  # WSGI's Latin-1 of bytes that are not UTF-8
])
def test_a_header_that_is_not_one_name_is_a_400_and_changes_nothing(proxied, make_user, conn,
                                                                    sent, why):
    wsgi = proxied(sso_auto_create=True)
    make_user("alice")
    answer = through(wsgi, sent).get("/api/me")
    assert answer.status == 400 and why in answer.text
    page = through(wsgi, sent).get("/entries")
    assert page.status == 400 and "Traceback" not in page.text
    assert sessions(conn) == 0 and conn.execute("SELECT count(*) FROM users").fetchone()[0] == 1


def test_a_client_that_never_keeps_its_cookie_holds_at_most_fifty_sessions_and_no_phones(
        proxied, make_user, conn, clock):
    wsgi = proxied()
    alice = make_user("alice")
    link(conn, alice.id, "alice")
    phone = Client(wsgi)
    phone.login("alice", PASSWORD)
    clock.advance(61)
    assert phone.get("/api/me").status == 200  # a session in use
    script = through(wsgi, "alice")
    for _ in range(20):  # the JSON API answers a script without making sessions
        assert script.get("/api/entries").status == 200
        assert script.post("/api/tokens", {"name": "x"}).json["error"]["code"] == "csrf"
    assert sessions(conn, "alice") == 1
    for _ in range(60):  # pages (and /api/me) do make one, for the browser that keeps it
        clock.advance(1)
        assert through(wsgi, "alice").get("/").status == 200
    assert sessions(conn, "alice") == 50
    assert phone.get("/api/me").status == 200  # the phone's was not the one to go


def test_someone_no_account_holds_never_gets_the_session_this_browser_held(
        proxied, make_user, conn):
    """alice (an admin) leaves her session on a shared browser; the proxy then says the person
    at it is mallory, whom no account holds: mallory gets nothing, and alice's session ends."""
    wsgi = proxied()
    alice = make_user("alice", admin=True)
    link(conn, alice.id, "alice")
    browser = through(wsgi, "alice")
    assert browser.get("/api/me").json["username"] == "alice"
    shared = through(wsgi, "mallory")  # the same browser, with alice's cookie
    shared.cookies = dict(browser.cookies)
    mallory = shared.get("/api/me")
    assert mallory.status == 403 and mallory.json["error"]["code"] == "not_linked"
    assert sessions(conn, "alice") == 0
    shared.cookies = dict(browser.cookies)
    assert shared.get("/settings/users").status == 303
    with_password = Client(wsgi)  # a password session meets the same end
    with_password.login("alice", PASSWORD)
    assert with_password.get("/api/me", headers={"Remote-User": "mallory"}).status == 403
    assert sessions(conn, "alice") == 0


def test_an_error_page_only_looks_and_signs_nobody_in(proxied, make_user, conn):
    wsgi = proxied(sso_auto_create=True)
    make_user("admin")
    browser = through(wsgi, "newcomer")
    browser.cookies["kmood_session"] = "stale"
    assert browser.get("/no/such/page").status == 404
    assert sessions(conn) == 0 and conn.execute("SELECT count(*) FROM users").fetchone()[0] == 1


def test_an_empty_header_is_nobody_signed_in_at_the_proxy(proxied, make_user):
    wsgi = proxied(sso_auto_create=True)
    make_user("admin")
    assert through(wsgi, "").get("/login").status == 200
    assert through(wsgi, "").get("/api/me").status == 401


def test_an_ipv4_address_written_as_ipv6_is_the_same_trusted_proxy(proxied, make_user, conn):
    wsgi = proxied()
    alice = make_user("alice")
    link(conn, alice.id, "alice")
    mapped = through(wsgi, "alice", address="::ffff:127.0.0.1").get("/api/me")
    assert mapped.status == 200 and mapped.json["username"] == "alice"
    assert through(wsgi, "alice", address="::ffff:127.0.0.2").get("/api/me").status == 401


def test_the_first_account_is_only_made_for_the_admin_group_when_there_is_one(proxied, conn):
    wsgi = proxied(sso_auto_create=True, sso_admin_group="admins")
    assert through(wsgi, "sam", "family").get("/api/me").status == 403
    first = through(wsgi, "pat", "admins").get("/api/me")
    assert first.status == 200 and first.json["is_admin"] is True
    assert through(wsgi, "sam", "family").get("/api/me").json["is_admin"] is False


def test_an_admin_links_and_unlinks_a_proxy_name_in_household(proxied, make_user, conn):
    wsgi = proxied()
    make_user("admin", admin=True)
    bob = make_user("bob")
    other = make_user("cleo")
    admin = Client(wsgi)
    admin.login("admin", PASSWORD)
    household = admin.get("/settings/users")
    assert household.status == 200 and household.text.count('name="subject"') == 3
    linked = admin.post(f"/settings/users/{bob.id}/identities", form={
        "csrf_token": admin.csrf, "subject": "bob@authelia"})
    assert linked.status == 303 and "done=linked" in linked.headers["Location"]
    assert "not used yet" in admin.get("/settings/users").text
    assert admin.post(f"/settings/users/{bob.id}/identities", form={
        "csrf_token": admin.csrf, "subject": "bob@authelia"}).status == 303  # again: no change
    bobs = through(wsgi, "bob@authelia")
    assert bobs.get("/api/me").json["username"] == "bob"
    bobs.csrf = bobs.get("/api/me").json["csrf_token"]
    bobs_token = bobs.post("/api/tokens", {"name": "made through the link"}).json["token"]
    page = admin.get("/settings/users").text
    assert re.search(r"Signs in through the proxy as <bdi[^>]*>bob@authelia</bdi>", page)
    assert "last used" in page
    assert page.count('name="subject"') == 2  # bob has his; one name a person at the proxy

    taken = admin.post(f"/settings/users/{other.id}/identities", form={
        "csrf_token": admin.csrf, "subject": "bob@authelia"})
    assert taken.status == 409
    assert 'is already linked to <bdi dir="auto">bob</bdi>' in taken.text
    spaced = admin.post(f"/settings/users/{other.id}/identities", form={
        "csrf_token": admin.csrf, "subject": " cleo"})
    assert spaced.status == 422 and "without line breaks or spaces around it" in spaced.text
    forged = admin.post(f"/settings/users/{other.id}/identities", form={"subject": "cleo"},
                        headers={"X-CSRF-Token": "not the session's"})
    assert forged.status == 403

    second = admin.post(f"/settings/users/{bob.id}/identities", form={
        "csrf_token": admin.csrf, "subject": "bob@elsewhere"})
    assert second.status == 409 and "unlink that first" in second.text

    identity = conn.execute("SELECT id FROM identities").fetchone()[0]
    assert sessions(conn, "bob") == 1  # the proxy's, for bob's browser
    own = make_user("root", admin=True)
    link(conn, own.id, "root@authelia")
    mine = conn.execute("SELECT id FROM identities WHERE user_id = ?", (own.id,)).fetchone()[0]
    root = through(wsgi, "root@authelia")
    root.csrf = root.get("/api/me").json["csrf_token"]
    assert "Unlink</button>" not in root.get("/settings/users").text.split("root@authelia")[1][:400]
    refused = root.post(f"/settings/users/{own.id}/identities/{mine}/delete",
                        form={"csrf_token": root.csrf})
    assert refused.status == 409 and "cannot unlink your own sign-in here" in refused.text
    assert admin.post(f"/settings/users/{other.id}/identities/{identity}/delete", form={
        "csrf_token": admin.csrf}).status == 404  # not cleo's
    gone = admin.post(f"/settings/users/{bob.id}/identities/{identity}/delete", form={
        "csrf_token": admin.csrf})
    assert gone.status == 303 and "done=unlinked" in gone.headers["Location"]
    assert sessions(conn, "bob") == 0  # what the link let in goes with it
    script = Client(wsgi)
    script.bearer = bobs_token
    assert script.get("/api/me").status == 401
    assert through(wsgi, "bob@authelia").get("/api/me").status == 403
    member = Client(wsgi)
    member.login("bob", PASSWORD)
    assert member.post(f"/settings/users/{bob.id}/identities", form={
        "csrf_token": member.csrf, "subject": "bob"}).status == 403  # admins only


def test_logging_out_goes_on_to_the_proxys_own_logout(proxied, make_user, conn):
    wsgi = proxied(auth_logout_url="https://auth.example.org/logout")
    alice = make_user("alice")
    link(conn, alice.id, "alice")
    browser = through(wsgi, "alice")
    page = browser.get("/logout")
    assert "Logging out here takes you to it" in page.text
    assert "form-action 'self' https://auth.example.org;" in page.headers[
        "Content-Security-Policy"]
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    out = browser.post("/logout", form={"csrf_token": token})
    assert out.status == 303 and out.headers["Location"] == "https://auth.example.org/logout"
    assert sessions(conn) == 0
    plain = Client(wsgi)  # signed in with a password: logged out here only
    plain.login("alice", PASSWORD)
    assert "sign-in proxy" not in plain.get("/logout").text
    assert plain.post("/logout", form={"csrf_token": plain.csrf}).headers["Location"] == "/login"


def test_the_settings_are_checked_at_start_up(tmp_path):
    env = base_env(tmp_path / "k.db")
    with pytest.raises(ConfigError, match="set KMOOD_TRUSTED_PROXIES too"):
        Config.from_env({**env, "KMOOD_AUTH_HEADER": "Remote-User"})
    with pytest.raises(ConfigError, match="KMOOD_TRUSTED_PROXIES: expected addresses"):
        Config.from_env({**env, "KMOOD_TRUSTED_PROXIES": "127.0.0.1, the proxy"})
    with pytest.raises(ConfigError, match="KMOOD_AUTH_HEADER: expected a header name"):
        Config.from_env({**env, "KMOOD_AUTH_HEADER": "Remote User",
                         "KMOOD_TRUSTED_PROXIES": "127.0.0.1"})
    with pytest.raises(ConfigError, match="must differ"):
        Config.from_env({**env, "KMOOD_AUTH_HEADER": "Remote-User",
                         "KMOOD_AUTH_GROUPS_HEADER": "remote-user",
                         "KMOOD_TRUSTED_PROXIES": "127.0.0.1"})
    for name in ("Remote_User", "Content-Type", "cookie", "X-CSRF-Token"):
        with pytest.raises(ConfigError, match="KMOOD_AUTH_HEADER"):
            Config.from_env({**env, "KMOOD_AUTH_HEADER": name,
                             "KMOOD_TRUSTED_PROXIES": "127.0.0.1"})
    with pytest.raises(ConfigError, match="KMOOD_SSO_ADMIN_GROUP: needs"):
        Config.from_env({**env, "KMOOD_AUTH_HEADER": "Remote-User", "KMOOD_SSO_AUTO_CREATE": "1",
                         "KMOOD_SSO_ADMIN_GROUP": "admins", "KMOOD_TRUSTED_PROXIES": "127.0.0.1"})
    config = Config.from_env({**env, "KMOOD_AUTH_HEADER": "Remote-User",
                              "KMOOD_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8,::1"})
    assert [str(n) for n in config.trusted_proxies] == ["127.0.0.1/32", "10.0.0.0/8", "::1/128"]


def test_the_api_description_names_the_proxys_header_where_one_is_configured(proxied, wsgi):
    described = Client(proxied()).get("/api/openapi.json").json
    assert described["components"]["securitySchemes"]["proxy"]["name"] == "Remote-User"
    assert {"proxy": []} in described["security"]
    assert "not_linked" in described["info"]["description"]
    plain = Client(wsgi).get("/api/openapi.json").json
    assert "proxy" not in plain["components"]["securitySchemes"]


def test_with_password_sign_in_off_only_the_proxy_signs_in(proxied, make_user, conn):
    wsgi = proxied(password_login=False)
    nobody = Client(wsgi).get("/login")  # no account yet: no /setup to go to either
    assert nobody.status == 200 and "not with a password" in nobody.text
    assert 'name="password"' not in nobody.text
    assert Client(wsgi).get("/setup").status == 404
    admin = make_user("admin", admin=True)
    link(conn, admin.id, "admin@sso")
    refused = Client(wsgi).login("admin", PASSWORD)
    assert refused.status == 403 and refused.json["error"]["code"] == "password_login_off"
    form = Client(wsgi)
    form.get("/login")  # (a script posting the form anyway: the page's form cookie and token)
    posted = form.post("/login", form={"csrf_token": form.cookies["kmood_form"],
                                       "username": "admin", "password": PASSWORD})
    assert posted.status == 403 and "Password sign-in is off here" in posted.text
    assert sessions(conn) == 0

    browser = through(wsgi, "admin@sso")
    browser.csrf = browser.get("/api/me").json["csrf_token"]
    assert "Change password" not in browser.get("/settings").text
    assert browser.post("/settings/password", form={
        "csrf_token": browser.csrf, "old_password": PASSWORD, "new_password": "another one1",
        "repeat_password": "another one1"}).status == 403
    changed = browser.post("/api/me/password", {"old_password": PASSWORD,
                                                "new_password": "another one1"})
    assert changed.status == 403 and changed.json["error"]["code"] == "password_login_off"
    household = browser.get("/settings/users").text
    assert 'name="password"' not in household and "Reset password" not in household
    added = browser.post("/settings/users", form={"csrf_token": browser.csrf,
                                                  "username": "kim", "subject": "kim@sso"})
    assert added.status == 303
    kim = through(wsgi, "kim@sso").get("/api/me")
    assert kim.status == 200 and kim.json["username"] == "kim"
    kim_id = kim.json["id"]
    assert "Delete account" in browser.get("/settings/users").text
    assert browser.post(f"/settings/users/{kim_id}/password", form={
        "csrf_token": browser.csrf, "password": "a new password"}).status == 403
    nameless = browser.post("/settings/users", form={"csrf_token": browser.csrf,
                                                     "username": "lee", "subject": ""})
    assert nameless.status == 422 and "Sign-in proxy user name" in nameless.text
    with pytest.raises(ConfigError, match="KMOOD_PASSWORD_LOGIN: off leaves no way in"):
        Config.from_env({**base_env(Path("k.db")), "KMOOD_PASSWORD_LOGIN": "off"})
