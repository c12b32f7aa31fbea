"""Single sign-on's parts that need no provider (SPEC §14, issue #41): its settings, the sign-ins
under way (taken once, by the browser that began them, in time, within caps), and the pages
with single sign-on configured. The provider's side runs for real in
tests/e2e/test_openid_connect.py."""

from __future__ import annotations

import pytest

from kmood_lib.accounts import pending_sign_ins
from kmood_lib.core.config import Config, ConfigError
from tests.helpers import base_env

HOME = "192.0.2.1"  # the client address sign-ins begin from
SSO = {"KMOOD_OIDC_ISSUER": "https://auth.example.org", "KMOOD_OIDC_CLIENT_ID": "k-mood",
       "KMOOD_PUBLIC_URL": "https://mood.example.org"}


def test_the_settings_are_checked_at_start_up(tmp_path):
    env = base_env(tmp_path / "k.db")
    for missing, said in (("KMOOD_OIDC_CLIENT_ID", "KMOOD_OIDC_CLIENT_ID: required"),
                          ("KMOOD_PUBLIC_URL", "KMOOD_PUBLIC_URL: required")):
        with pytest.raises(ConfigError, match=said):
            Config.from_env({**env, **{k: v for k, v in SSO.items() if k != missing}})
    with pytest.raises(ConfigError, match="KMOOD_OIDC_CLIENT_ID: set KMOOD_OIDC_ISSUER too"):
        Config.from_env({**env, "KMOOD_OIDC_CLIENT_ID": "k-mood"})
    with pytest.raises(ConfigError, match="KMOOD_OIDC_SCOPES: must include openid"):
        Config.from_env({**env, **SSO, "KMOOD_OIDC_SCOPES": "profile email"})
    with pytest.raises(ConfigError, match="KMOOD_OIDC_ISSUER: expected"):
        Config.from_env({**env, **SSO, "KMOOD_OIDC_ISSUER": "auth.example.org"})
    with pytest.raises(ConfigError, match="KMOOD_OIDC_ISSUER: must be https://"):
        Config.from_env({**env, **SSO, "KMOOD_OIDC_ISSUER": "http://auth.example.org"})
    for local in ("http://127.0.0.1:9091", "http://localhost:9091", "http://[::1]:9091"):
        assert Config.from_env({**env, **SSO, "KMOOD_OIDC_ISSUER": local}).oidc_issuer == local
    with pytest.raises(ConfigError, match="KMOOD_PASSWORD_LOGIN: off leaves no way in"):
        Config.from_env({**env, "KMOOD_PASSWORD_LOGIN": "off"})
    # the issuer is kept exactly (Authentik's ends in '/', and its tokens say so)
    config = Config.from_env({**env, **SSO, "KMOOD_OIDC_ISSUER": "https://a.example/app/o/k/",
                              "KMOOD_PASSWORD_LOGIN": "off", "KMOOD_SSO_AUTO_CREATE": "1",
                              "KMOOD_SSO_ADMIN_GROUP": "admins",
                              "KMOOD_OIDC_SCOPES": "openid  groups openid"})
    assert (config.oidc_issuer, config.oidc_scopes) == ("https://a.example/app/o/k/",
                                                        "openid groups")


def test_the_secret_comes_from_its_file_and_stays_out_of_the_logs(tmp_path):
    env = {**base_env(tmp_path / "k.db"), **SSO}
    secret = tmp_path / "secret"
    secret.write_text("s3cr3t-from-a-file\n")
    config = Config.from_env({**env, "KMOOD_OIDC_CLIENT_SECRET_FILE": str(secret)})
    assert config.oidc_client_secret == "s3cr3t-from-a-file"
    assert "s3cr3t" not in repr(config)
    assert "abc" not in repr(Config.from_env({**env, "KMOOD_LASTFM_API_KEY": "abc123"}))
    with pytest.raises(ConfigError, match="cannot read"):
        Config.from_env({**env, "KMOOD_OIDC_CLIENT_SECRET_FILE": str(tmp_path / "none")})
    with pytest.raises(ConfigError, match="not both"):
        Config.from_env({**env, "KMOOD_OIDC_CLIENT_SECRET_FILE": str(secret),
                         "KMOOD_OIDC_CLIENT_SECRET": "x"})
    secret.write_text("two\nlines\n")
    with pytest.raises(ConfigError, match="on one line"):
        Config.from_env({**env, "KMOOD_OIDC_CLIENT_SECRET_FILE": str(secret)})


def test_a_sign_in_under_way_is_taken_once_by_its_own_browser_in_time(conn):
    mine, theirs = pending_sign_ins.new_browser_key(), pending_sign_ins.new_browser_key()
    kept = {"verifier": "v", "nonce": "n", "next": "/stats"}
    state = pending_sign_ins.begin(conn, "oidc", mine, HOME, kept, 1_000, 600)
    assert pending_sign_ins.take(conn, state, mine, 2_000, ("oidc-link",)) is None  # used up
    state = pending_sign_ins.begin(conn, "oidc", mine, HOME, kept, 1_000, 600)
    assert pending_sign_ins.take(conn, state, theirs, 2_000, ("oidc",)) is None
    assert pending_sign_ins.take(conn, state, mine, 2_000, ("oidc",)) is None  # burnt
    state = pending_sign_ins.begin(conn, "oidc", mine, HOME, kept, 1_000, 600)
    assert pending_sign_ins.take(conn, state, mine, 601_000, ("oidc",)) is None  # too late
    state = pending_sign_ins.begin(conn, "oidc", mine, HOME, kept, 1_000, 600)
    taken = pending_sign_ins.take(conn, state, mine, 600_999, ("oidc",))
    assert (taken.kind, taken.user_id, taken.payload) == ("oidc", None, kept)
    assert pending_sign_ins.take(conn, state, mine, 600_999, ("oidc",)) is None
    stored = conn.execute("SELECT handle_hash, browser_hash, payload FROM pending_sign_ins"
                          ).fetchall()
    assert all(state not in row["handle_hash"] and mine not in row["browser_hash"]
               for row in stored)


def test_sign_ins_under_way_stay_within_their_caps(conn, monkeypatch):
    monkeypatch.setattr(pending_sign_ins, "MAX_PENDING", 50)
    monkeypatch.setattr(pending_sign_ins, "PER_ADDRESS", 20)

    def count() -> int:
        return conn.execute("SELECT count(*) FROM pending_sign_ins").fetchone()[0]

    browser = pending_sign_ins.new_browser_key()
    states = [pending_sign_ins.begin(conn, "oidc", browser, HOME, {}, 1_000 + i, 600)
              for i in range(8)]
    # a browser keeps its latest five: tabs and a second try, not a flood
    assert [pending_sign_ins.take(conn, s, browser, 2_000, ("oidc",)) is not None
            for s in states] == [False] * 3 + [True] * 5
    # a client that drops its cookie to begin many pushes out only its own address's
    mine = pending_sign_ins.begin(conn, "oidc", browser, HOME, {}, 3_000, 600)
    for i in range(40):
        pending_sign_ins.begin(conn, "oidc", pending_sign_ins.new_browser_key(), "203.0.113.9",
                               {}, 3_001 + i, 600)
    assert count() == 1 + 20
    assert pending_sign_ins.take(conn, mine, browser, 4_000, ("oidc",)) is not None
    # past MAX_PENDING in all (thousands of addresses), the oldest go
    for i in range(60):
        pending_sign_ins.begin(conn, "oidc", pending_sign_ins.new_browser_key(),
                               f"198.51.100.{i}", {}, 5_000 + i, 600)
    assert count() == 50
    # an expired one goes at the next sign-in that begins, and with the worker's clean-up
    pending_sign_ins.begin(conn, "oidc", browser, HOME, {}, 700_000, 600)
    assert count() == 1
    assert pending_sign_ins.prune(conn, 2_000_000) == 1


@pytest.fixture
def single_sign_on(config, clock):
    """A WSGI app with single sign-on set (at a provider nothing here asks: these pages do not
    need it), `**settings` on top."""
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi

    made = []

    def make(**settings):
        services = bootstrap(config.with_overrides(
            oidc_issuer="http://127.0.0.1:9", oidc_client_id="k-mood", oidc_name="Authelia",
            public_url="https://mood.example.org", **settings), clock=clock)
        made.append(services)
        return make_wsgi(services)

    yield make
    for services in made:
        services.hasher.close()


def test_the_login_page_offers_the_provider_and_keeps_where_to_go(single_sign_on, make_user):
    from tests.wsgi import Client

    wsgi = single_sign_on()
    make_user("ann", admin=True)
    page = Client(wsgi).get("/login?next=/day/2026-12-01?x=1%26y")
    assert page.status == 200 and 'name="password"' in page.text
    assert ('href="/login/oidc?next=%2Fday%2F2026-12-01%3Fx%3D1%26y"' in page.text
            and 'Sign in with <bdi dir="auto">Authelia</bdi>' in page.text)
    described = Client(wsgi).get("/api/openapi.json").json["components"]["securitySchemes"]
    assert "GET /login/oidc" in described["session"]["description"]


def test_with_passwords_off_login_goes_to_the_provider_unless_just_logged_out(
        single_sign_on, make_user):
    from tests.wsgi import Client

    wsgi = single_sign_on(password_login=False)
    make_user("ann", admin=True)
    browser = Client(wsgi)
    sent = browser.get("/login?next=/stats")
    assert (sent.status, sent.headers["Location"]) == (303, "/login/oidc?next=%2Fstats")
    after = browser.get("/login?signed_out=1")
    assert after.status == 200 and "You are logged out." in after.text
    assert 'id="single-sign-on"' in after.text and 'name="password"' not in after.text
    refused = browser.post("/api/session", {"username": "ann", "password": "x"})
    assert refused.status == 403 and "sign in with single sign-on" in refused.json["error"]["message"]


def test_an_admin_links_a_members_id_at_the_provider_in_household(single_sign_on, make_user,
                                                                  conn):
    from tests.conftest import PASSWORD
    from tests.wsgi import Client

    wsgi = single_sign_on()
    make_user("ann", admin=True)
    bob = make_user("bob")
    admin = Client(wsgi)
    admin.login("ann", PASSWORD)
    page = admin.get("/settings/users").text
    assert page.count('name="method" value="oidc"') == 2  # ann and bob: no proxy here
    linked = admin.post(f"/settings/users/{bob.id}/identities", form={
        "csrf_token": admin.csrf, "method": "oidc", "subject": "0c5e-bob"})
    assert linked.status == 303 and "done=sso_member_linked" in linked.headers["Location"]
    row = conn.execute("SELECT method, issuer, subject FROM identities WHERE user_id = ?",
                       (bob.id,)).fetchone()
    assert tuple(row) == ("oidc", "http://127.0.0.1:9", "0c5e-bob")
    page = admin.get("/settings/users").text
    assert "Signs in with <bdi dir=\"auto\">Authelia</bdi> as ID" in page
    assert page.count('name="method" value="oidc"') == 1
    # no sign-in proxy here: a proxy name is no way in to link
    refused = admin.post(f"/settings/users/{bob.id}/identities", form={
        "csrf_token": admin.csrf, "method": "proxy", "subject": "bob"})
    assert refused.status == 422
    assert conn.execute("SELECT count(*) FROM identities").fetchone()[0] == 1


def test_settings_offers_linking_and_lets_its_form_reach_the_provider(single_sign_on,
                                                                      make_user):
    from tests.conftest import PASSWORD
    from tests.wsgi import Client

    wsgi = single_sign_on()
    make_user("ann", admin=True)
    ann = Client(wsgi)
    ann.login("ann", PASSWORD)
    page = ann.get("/settings")
    assert 'action="/login/oidc/link"' in page.text
    assert "form-action 'self' http://127.0.0.1:9;" in page.headers["Content-Security-Policy"]
    # without the session's CSRF token, no sign-in sets out
    ann_csrf, ann.csrf = ann.csrf, None
    assert ann.post("/login/oidc/link", form={}).status == 403
    ann.csrf = ann_csrf
    # the provider cannot be reached: said, and nothing kept
    assert ann.post("/login/oidc/link", form={"csrf_token": ann.csrf}).status == 403
    went = ann.post("/login/oidc/link", form={"csrf_token": ann.csrf, "password": PASSWORD})
    assert went.status == 503 and "could not be reached" in went.text


def test_without_single_sign_on_its_routes_are_not_there(wsgi, make_user):
    from tests.wsgi import Client

    assert Client(wsgi).get("/login/oidc").status == 404
    assert Client(wsgi).get("/login/oidc/callback?state=x&code=y").status == 404


def test_its_pages_leave_no_word_untranslated(single_sign_on, make_user, conn):
    """In the pseudo-language every word the pages add is a translated one."""
    from kmood_lib.accounts import identities
    from tests.conftest import PASSWORD
    from tests.plain_words import plain_words
    from tests.wsgi import Client

    wsgi = single_sign_on(pseudo_languages=True, sso_link_by_email=True)
    ann = make_user("ann", admin=True)
    make_user("bob")
    xa = {"Accept-Language": "en-XA"}
    stranger = Client(wsgi)
    assert plain_words(stranger.get("/login?signed_out=1", headers=xa).text) == []
    admin = Client(wsgi)
    admin.login("ann", PASSWORD)
    conn.execute("UPDATE users SET language = 'en_XA' WHERE id = ?", (ann.id,))
    for path in ("/settings", "/settings/users", "/settings?done=sso_linked",
                 "/settings?done=sso_taken", "/settings?done=sso_already"):
        assert plain_words(admin.get(path).text) == [], path
    identities.link(conn, ann.id, identities.OIDC, "http://127.0.0.1:9", "ann-sub", 0)
    assert plain_words(admin.get("/settings").text) == []
    assert plain_words(admin.get("/settings/users").text) == []


def test_an_accounts_email_address_is_an_admins_to_set_and_one_accounts_alone(
        single_sign_on, make_user, conn):
    """Only an admin sets an address: single sign-on may link a first sign-in by it, so a
    member who could claim another person's address would have their journal written into
    hers."""
    from tests.conftest import PASSWORD
    from tests.wsgi import Client

    wsgi = single_sign_on(sso_link_by_email=True)
    make_user("ann", admin=True)
    bob = make_user("bob")
    ann, mallory = Client(wsgi), Client(wsgi)
    ann.login("ann", PASSWORD)
    mallory.login("bob", PASSWORD)
    claimed = mallory.patch("/api/me", {"email": "ann@example.org"})
    assert claimed.status == 422 and "email" in claimed.json["error"]["fields"]
    saved = ann.post(f"/settings/users/{bob.id}/email", form={
        "csrf_token": ann.csrf, "email": "  Bob@Example.org "})
    assert saved.status == 303
    assert mallory.get("/api/me").json["email"] == "Bob@Example.org"
    assert "Bob@Example.org" in mallory.get("/settings").text  # shown, not editable
    assert 'name="email"' not in mallory.get("/settings").text
    for wrong in ("bob", "bob@localhost", "a@b@c.org", "b\x00ob@example.org", "a b@e.org",
                  "x" * 250 + "@e.org"):
        refused = ann.post(f"/settings/users/{bob.id}/email", form={
            "csrf_token": ann.csrf, "email": wrong})
        assert refused.status == 422, wrong
    made = ann.post("/settings/users", form={
        "csrf_token": ann.csrf, "username": "cleo", "password": "a long password",
        "email": "cleo@example.org"})
    assert made.status == 303
    for name, address in (("dan", "CLEO@example.org"), (None, "bob@EXAMPLE.org")):
        if name:  # a new member with a taken address is not made
            refused = ann.post("/settings/users", form={
                "csrf_token": ann.csrf, "username": name, "password": "a long password",
                "email": address})
        else:
            cleo = conn.execute("SELECT id FROM users WHERE username = 'cleo'").fetchone()[0]
            refused = ann.post(f"/settings/users/{cleo}/email", form={
                "csrf_token": ann.csrf, "email": address})
        assert refused.status == 409 and "another account" in refused.text
    assert conn.execute("SELECT count(*) FROM users WHERE username = 'dan'").fetchone()[0] == 0
    assert ann.post(f"/settings/users/{bob.id}/email", form={
        "csrf_token": ann.csrf, "email": ""}).status == 303
    assert mallory.get("/api/me").json["email"] is None
    # a member cannot set anyone's
    assert mallory.post(f"/settings/users/{bob.id}/email", form={
        "csrf_token": mallory.csrf, "email": "x@example.org"}).status == 403
