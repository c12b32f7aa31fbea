"""Sessions, CSRF, API tokens, throttling, settings and passwords over the real WSGI app."""

import pytest

from kmood_lib.accounts import auth as auth_store
from tests.conftest import PASSWORD
from tests.helpers import one_worker_iteration
from tests.unit.test_auth_matrix import concrete
from tests.wsgi import Client


def test_login_sets_a_hardened_cookie_and_returns_the_csrf_token(wsgi, make_user):
    make_user("alice")
    client = Client(wsgi)
    response = client.login("alice", PASSWORD)
    assert response.status == 201
    assert response.json["username"] == "alice" and response.json["csrf_token"]
    cookie = response.set_cookies[0]
    assert "kmood_session=" in cookie and "HttpOnly" in cookie
    assert "samesite=lax" in cookie.lower()  # attribute names are case-insensitive
    assert "Secure" not in cookie
    me = client.get("/api/me")
    assert me.status == 200 and me.json["csrf_token"] == response.json["csrf_token"]


def test_cookie_is_secure_when_configured(config, clock, make_user):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi

    services = bootstrap(config.with_overrides(cookie_secure=True), clock=clock)
    make_user("alice")
    response = Client(make_wsgi(services)).login("alice", PASSWORD)
    assert "Secure" in response.set_cookies[0]


def test_wrong_password_and_unknown_user_get_the_same_answer(wsgi, make_user):
    make_user("alice")
    wrong = Client(wsgi).login("alice", "not the password")
    unknown = Client(wsgi).login("nobody", "not the password")
    assert wrong.status == unknown.status == 401
    assert wrong.json == unknown.json


def test_logout_ends_the_session(wsgi, make_user):
    make_user("alice")
    client = Client(wsgi)
    client.login("alice", PASSWORD)
    assert client.delete("/api/session").status == 204
    assert client.get("/api/me").status == 401


def test_missing_or_wrong_csrf_is_refused_and_changes_nothing(client_for):
    alice = client_for("alice")
    token = alice.csrf
    alice.csrf = None
    assert alice.patch("/api/me", {"timezone": "Europe/Berlin"}).status == 403
    response = alice.patch("/api/me", {"timezone": "Europe/Berlin"},
                           headers={"X-CSRF-Token": "wrong"})
    assert response.status == 403 and response.json["error"]["code"] == "csrf"
    assert alice.post("/api/tokens", {"name": "x"}).status == 403
    assert alice.get("/api/me").json["timezone"] == "UTC"
    assert alice.get("/api/tokens").json["tokens"] == []
    alice.csrf = token
    assert alice.patch("/api/me", {"timezone": "Europe/Berlin"}).status == 200
    assert alice.get("/api/me").json["timezone"] == "Europe/Berlin"


def test_bearer_tokens_need_no_csrf_and_stop_working_when_revoked(wsgi, client_for):
    alice = client_for("alice")
    created = alice.post("/api/tokens", {"name": "phone"})
    assert created.status == 201 and set(created.json) == {"id", "name", "token"}
    api = Client(wsgi)
    api.bearer = created.json["token"]
    assert api.patch("/api/me", {"lastfm_user": "alice_fm"}).status == 200
    listed = alice.get("/api/tokens").json["tokens"]
    assert [t["name"] for t in listed] == ["phone"] and "token" not in listed[0]
    assert listed[0]["last_used_at"] is not None
    assert alice.delete(f"/api/tokens/{created.json['id']}").status == 204
    assert api.get("/api/me").status == 401
    assert alice.delete(f"/api/tokens/{created.json['id']}").status == 404


def test_a_malformed_authorization_header_is_a_401(wsgi, make_user):
    make_user("alice")
    response = Client(wsgi).get("/api/me", headers={"Authorization": "Basic abc"})
    assert response.status == 401


def test_the_database_holds_no_raw_session_or_api_token(wsgi, client_for, db_path):
    alice = client_for("alice")
    session_token = alice.cookies["kmood_session"]
    api_token = alice.post("/api/tokens", {"name": "cli"}).json["token"]
    assert Client(wsgi).login("alice", PASSWORD).status == 201
    raw = b"".join(p.read_bytes() for p in db_path.parent.glob(db_path.name + "*"))
    assert auth_store.token_hash(session_token).encode() in raw  # the search is real
    assert session_token.encode() not in raw
    assert api_token.encode() not in raw


def throttled_client(config, clock, max_failures=3, window_s=60, trust_proxy=False,
                     per_address=50):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi

    services = bootstrap(config.with_overrides(login_max_failures=max_failures,
                                               login_window_s=window_s, trust_proxy=trust_proxy,
                                               login_max_failures_per_address=per_address),
                         clock=clock)
    return make_wsgi(services)


def test_failed_logins_per_username_are_throttled_then_allowed_after_the_window(
        config, clock, make_user):
    make_user("alice")
    wsgi = throttled_client(config, clock)
    for i in range(3):
        assert Client(wsgi, remote_addr=f"10.0.0.{i}").login("alice", "wrong").status == 401
    blocked = Client(wsgi, remote_addr="10.0.0.9").login("alice", PASSWORD)
    assert blocked.status == 429 and int(blocked.headers["Retry-After"]) == 60
    clock.advance(30)
    assert int(Client(wsgi).login("alice", PASSWORD).headers["Retry-After"]) == 30
    clock.advance(31)
    assert Client(wsgi).login("alice", PASSWORD).status == 201


def test_failed_logins_per_address_are_throttled_across_usernames(config, clock, make_user):
    make_user("alice")
    wsgi = throttled_client(config, clock, max_failures=10, per_address=3)
    for name in ("bob", "carol", "dave"):
        assert Client(wsgi, remote_addr="192.0.2.7").login(name, "wrong").status == 401
    assert Client(wsgi, remote_addr="192.0.2.7").login("alice", PASSWORD).status == 429
    assert Client(wsgi, remote_addr="192.0.2.8").login("alice", PASSWORD).status == 201


def test_one_address_gets_its_own_higher_limit_so_a_household_is_not_locked_out(
        config, clock, make_user):
    """Behind NAT (or a proxy without KMOOD_TRUST_PROXY) everyone shares one address: one
    member's five wrong guesses lock out their own name, not the others."""
    assert config.login_max_failures_per_address == 50
    make_user("alice")
    make_user("bob")
    wsgi = throttled_client(config, clock, max_failures=5, per_address=50)
    for _ in range(5):
        assert Client(wsgi).login("bob", "wrong").status == 401
    assert Client(wsgi).login("bob", PASSWORD).status == 429
    assert Client(wsgi).login("alice", PASSWORD).status == 201


def test_the_throttle_stores_a_short_hash_never_the_username_sent(config, clock, conn):
    wsgi = throttled_client(config, clock)
    huge = "x" * 60 + "ü" * 4
    for name in (huge, "Alice", "ALICE"):
        Client(wsgi).login(name, "wrong password")
    subjects = [r[0] for r in conn.execute("SELECT subject FROM login_failures WHERE scope = 'user'")]
    assert all(len(s) == 32 for s in subjects)
    assert "x" * 60 not in "".join(subjects) and "alice" not in "".join(subjects)
    assert len(set(subjects)) == 2  # Alice and ALICE are one name


def test_an_over_long_password_or_username_is_refused_not_truncated(config, clock, conn,
                                                                    services):
    from kmood_lib.accounts.users import create_user

    long_password = "y" * 1024
    create_user(conn, "alice", long_password, now_ms=0, hasher=services.hasher)
    wsgi = throttled_client(config, clock)
    assert Client(wsgi).login("alice", long_password).status == 201
    refused = Client(wsgi).login("alice", long_password + "suffix")
    assert refused.status == 422 and "password" in refused.json["error"]["fields"]
    assert Client(wsgi).login("a" * 65, "whatever password").status == 422


def test_forwarded_for_counts_only_behind_a_trusted_proxy(config, clock, make_user):
    make_user("alice")
    for trust, expected in ((False, 429), (True, 201)):
        wsgi = throttled_client(config, clock, trust_proxy=trust, max_failures=10, per_address=3)
        for i in range(3):
            Client(wsgi).request(
                "POST", "/api/session", json_body={"username": f"nobody{i}", "password": "w"},
                headers={"X-Forwarded-For": f"203.0.113.{i}"})
        response = Client(wsgi).request(
            "POST", "/api/session", json_body={"username": "alice", "password": PASSWORD},
            headers={"X-Forwarded-For": "198.51.100.1"})
        assert response.status == expected, trust
        clock.advance(120)


def test_a_successful_login_clears_the_username_failures(config, clock, make_user):
    make_user("alice")
    wsgi = throttled_client(config, clock)
    for _ in range(2):
        Client(wsgi, remote_addr="10.1.1.1").login("alice", "wrong")
    assert Client(wsgi, remote_addr="10.1.1.2").login("alice", PASSWORD).status == 201
    for _ in range(2):
        assert Client(wsgi, remote_addr="10.1.1.3").login("alice", "wrong").status == 401
    assert Client(wsgi, remote_addr="10.1.1.4").login("alice", PASSWORD).status == 201


def test_password_change_needs_the_old_password_and_ends_other_sessions(wsgi, client_for):
    alice = client_for("alice")
    other = Client(wsgi)
    other.login("alice", PASSWORD)
    bad = alice.post("/api/me/password", {"old_password": "nope", "new_password": "n" * 12})
    assert bad.status == 422 and "old_password" in bad.json["error"]["fields"]
    short = alice.post("/api/me/password", {"old_password": PASSWORD, "new_password": "short"})
    assert short.status == 422 and "new_password" in short.json["error"]["fields"]
    assert other.get("/api/me").status == 200
    ok = alice.post("/api/me/password", {"old_password": PASSWORD, "new_password": "n" * 12})
    assert ok.status == 200 and ok.json["other_sessions_ended"] == 1
    assert other.get("/api/me").status == 401
    assert alice.get("/api/me").status == 200
    assert Client(wsgi).login("alice", "n" * 12).status == 201


@pytest.mark.parametrize("body,field", [
    ({"timezone": "Mars/Olympus"}, "timezone"), ({"timezone": 5}, "timezone"),
    ({"lastfm_user": "has space"}, "lastfm_user"), ({"is_admin": True}, "is_admin"),
    ({"username": "eve"}, "username"),
])
def test_bad_settings_are_422_naming_the_field_and_change_nothing(client_for, body, field):
    alice = client_for("alice")
    before = alice.get("/api/me").json
    response = alice.patch("/api/me", body)
    assert response.status == 422 and field in response.json["error"]["fields"]
    assert alice.get("/api/me").json == before


def test_last_seen_is_written_at_most_once_a_minute(wsgi, client_for, conn, clock):
    alice = client_for("alice")

    def last_seen():
        return conn.execute("SELECT last_seen_at FROM sessions").fetchone()[0]

    start = last_seen()
    clock.advance(30)
    alice.get("/api/me")
    assert last_seen() == start
    clock.advance(31)
    alice.get("/api/me")
    assert last_seen() == clock.now_ms()


def test_worker_cleanup_deletes_expired_sessions_and_keeps_live_ones(services, conn, make_user,
                                                                      clock):
    user = make_user("alice")
    old = auth_store.create_session(conn, user.id, clock.now_ms() - 10_000, 5)
    live = auth_store.create_session(conn, user.id, clock.now_ms(), 3600)
    one_worker_iteration(services)
    hashes = {r[0] for r in conn.execute("SELECT token_hash FROM sessions")}
    assert hashes == {auth_store.token_hash(live.token)}
    assert auth_store.token_hash(old.token) not in hashes


def test_server_never_cleans_up_sessions(wsgi, conn, make_user, clock):
    user = make_user("alice")
    auth_store.create_session(conn, user.id, clock.now_ms() - 10_000, 5)
    Client(wsgi).get("/healthz")
    Client(wsgi).login("alice", PASSWORD)
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 2


def test_setup_creates_an_admin_and_logs_in(wsgi):
    client = Client(wsgi)
    assert client.get("/login").status == 303  # no users yet: go to setup
    page = client.get("/setup")
    assert page.status == 200 and "kmood_form" in client.cookies
    refused = Client(wsgi).post("/setup", form={"username": "eve", "password": "p" * 10,
                                                "csrf_token": "forged"})
    assert refused.status == 403
    created = client.post("/setup", form={"username": "root", "password": "p" * 10,
                                          "timezone": "Europe/Berlin",
                                          "csrf_token": client.cookies["kmood_form"]})
    assert created.status == 303 and created.headers["Location"] == "/"
    me = client.get("/api/me").json
    assert me["is_admin"] is True and me["timezone"] == "Europe/Berlin"


def test_html_login_and_logout(wsgi, make_user):
    make_user("alice")
    client = Client(wsgi)
    assert client.get("/").headers["Location"] == "/login?next=%2F"
    form = client.get("/login?next=/static/style.css")
    assert form.status == 200 and 'name="csrf_token"' in form.text
    wrong = client.post("/login", form={"username": "alice", "password": "x",
                                        "csrf_token": client.cookies["kmood_form"]})
    assert wrong.status == 401 and "Wrong username or password" in wrong.text
    ok = client.post("/login", form={"username": "alice", "password": PASSWORD,
                                     "next": "//evil.example/", "csrf_token":
                                     client.cookies["kmood_form"]})
    assert ok.status == 303 and ok.headers["Location"] == "/"
    home = client.get("/")
    assert home.status == 200 and "alice" in home.text
    me = client.get("/api/me").json
    assert client.post("/logout", form={"csrf_token": "wrong"}).status == 403
    assert client.post("/logout", form={"csrf_token": me["csrf_token"]}).status == 303
    assert client.get("/").status == 303


def test_admin_only_routes_answer_403_to_users(wsgi, client_for):
    client_for("root")
    bob = client_for("bob")
    admin_routes = [(r.method, r.rule) for r in wsgi.bottle.routes
                    if r.config.get("auth") == "admin"]
    for method, rule in admin_routes:
        response = bob.request(method, concrete(rule), json_body={} if method != "GET" else None)
        assert response.status == 403, rule
    assert len(admin_routes) >= 5


def test_deleting_other_sessions_touches_only_that_user(conn, make_user, clock):
    alice, bob = make_user("alice"), make_user("bob")
    auth_store.create_session(conn, alice.id, clock.now_ms(), 60)
    auth_store.create_session(conn, bob.id, clock.now_ms(), 60)
    assert auth_store.delete_other_sessions(conn, alice.id, None) == 1
    assert [r[0] for r in conn.execute("SELECT user_id FROM sessions")] == [bob.id]


def bearer(wsgi, token: str) -> Client:
    client = Client(wsgi)
    client.bearer = token
    return client


def test_a_password_change_revokes_the_users_api_tokens_unless_asked_not_to(wsgi, client_for):
    alice = client_for("alice")
    first = bearer(wsgi, alice.post("/api/tokens", {"name": "phone"}).json["token"])
    assert first.get("/api/me").status == 200
    kept = alice.post("/api/me/password", {"old_password": PASSWORD, "new_password": "n" * 12,
                                           "revoke_api_tokens": False})
    assert kept.status == 200 and kept.json["api_tokens_revoked"] == 0
    assert first.get("/api/me").status == 200
    done = alice.post("/api/me/password", {"old_password": "n" * 12, "new_password": "m" * 12})
    assert done.status == 200 and done.json["api_tokens_revoked"] == 1
    assert first.get("/api/me").status == 401 and alice.get("/api/tokens").json["tokens"] == []
    odd = alice.post("/api/me/password", {"old_password": "m" * 12, "new_password": "o" * 12,
                                          "revoke_api_tokens": "yes"})
    assert odd.status == 422 and "revoke_api_tokens" in odd.json["error"]["fields"]
