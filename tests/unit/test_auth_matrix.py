"""Every route, generated from the app's own route table, refuses strangers unless allowlisted."""

import re

import pytest

from tests import images
from tests.images import upload
from tests.wsgi import Client

# The only routes a stranger may use. Adding to this list is a security decision.
PUBLIC = {
    ("GET", "/healthz"),
    ("POST", "/api/session"),
    ("GET", "/login"),
    ("POST", "/login"),
    ("GET", "/setup"),   # only while no user exists (pinned below)
    ("POST", "/setup"),  # only while no user exists (pinned below)
    ("GET", "/static/<path:path>"),
    ("GET", "/api/openapi.json"),
    ("GET", "/manifest.webmanifest"),  # browsers fetch it without cookies; it holds no data
    ("GET", "/sw.js"),  # the service worker's script: code and versioned URLs, no data
    # single sign-on (404 unless KMOOD_OIDC_ISSUER is set): setting out to the provider, and
    # its answer, taken only by the browser that set out (tests/e2e/test_openid_connect.py)
    ("GET", "/login/oidc"),
    ("GET", "/login/oidc/callback"),
    # passkeys (404 unless KMOOD_PASSKEYS is on): a sign-in's challenge, and its answer; both
    # need the login page's own token (tests/browser/test_passkeys.py)
    ("POST", "/login/passkey/options"),
    ("POST", "/login/passkey"),
    # a shared report (issue #42): only with a live link's secret, that report and its photos
    # alone (tests/unit/test_report.py)
    ("GET", "/shared/<link:link>"),
    ("GET", "/shared/<link:link>/page.css"),
    ("GET", "/shared/<link:link>/photos/<photo_id:id>"),
}


def concrete(rule: str) -> str:
    rule = re.sub(r"<[^>]*:id>", "1", rule)
    rule = re.sub(r"<[^>]*:path>", "style.css", rule)
    rule = re.sub(r"<[^>]*:mbid>", "11111111-1111-4111-8111-111111111111", rule)
    rule = re.sub(r"<[^>]*:token>", "A" * 24, rule)
    rule = re.sub(r"<[^>]*:day>", "2026-11-30", rule)
    return re.sub(r"<[^>]*>", "x", rule)


def all_routes(wsgi):
    return sorted({(r.method, r.rule) for r in wsgi.bottle.routes})


def test_the_route_table_is_not_empty_and_has_the_allowlisted_routes(wsgi):
    routes = set(all_routes(wsgi))
    assert len(routes) > 10
    assert {r for r in PUBLIC if r != ("GET", "/api/openapi.json")} <= routes


def test_every_route_refuses_a_stranger_except_the_allowlist(wsgi, make_user):
    make_user("alice")
    stranger = Client(wsgi)
    checked = []
    for method, rule in all_routes(wsgi):
        if (method, rule) in PUBLIC:
            continue
        path = concrete(rule)
        response = stranger.request(method, path, json_body={} if method != "GET" else None)
        if path.startswith("/api/") or path == "/metrics":
            assert response.status == 401, (method, rule, response.status, response.body)
            assert response.json["error"]["code"] == "unauthorized"
        else:
            assert response.status == 303, (method, rule, response.status)
            assert response.headers["Location"].startswith("/login?next="), (method, rule)
        checked.append((method, rule))
    assert checked, "no protected routes were checked"


def test_setup_exists_only_while_there_are_no_users(wsgi, make_user):
    client = Client(wsgi)
    assert client.get("/setup").status == 200
    make_user("alice")
    assert client.get("/setup").status == 404
    response = client.post("/setup", form={"username": "mallory", "password": "p" * 12,
                                           "csrf_token": client.cookies.get("kmood_form", "")})
    assert response.status == 404


@pytest.mark.parametrize("method,path", [("GET", "/healthz"), ("GET", "/login"),
                                         ("GET", "/static/style.css")])
def test_public_routes_answer_strangers(wsgi, make_user, method, path):
    make_user("alice")
    assert Client(wsgi).request(method, path).status == 200


UNSAFE = ("POST", "PUT", "PATCH", "DELETE")


def database_state(conn) -> dict:
    """Every row of every table: what a refused request must leave exactly as it was."""
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        " AND name NOT LIKE 'entries_fts%'")]
    return {t: sorted(repr(tuple(row)) for row in conn.execute(f'SELECT * FROM "{t}"'))
            for t in tables}


@pytest.fixture
def alices_objects(client_for):
    """A logged-in admin holding one of everything (each id 1), so that a request which got
    past the CSRF check would find its object and change it."""
    alice = client_for("alice")
    alice.post("/api/activities", {"name": "walk", "group": "outside"})
    alice.post("/api/metrics", {"name": "sleep"})
    alice.post("/api/tokens", {"name": "phone"})
    alice.post("/api/reminders", {"time": "21:00", "channel": "webhook",
                                  "url": "https://example.org/hook"})
    alice.post("/api/entries", {"mood": 4, "activities": ["walk"], "metrics": {"sleep": 7}})
    assert upload(alice, 1, images.webp()).status == 201
    alice.csrf = None
    return alice


@pytest.mark.parametrize("sent", [{}, {"X-CSRF-Token": "wrong"}], ids=["none", "wrong"])
def test_every_unsafe_cookie_request_without_the_csrf_token_is_refused_and_changes_nothing(
        wsgi, conn, alices_objects, sent):
    alice = alices_objects
    checked = []
    for route in wsgi.bottle.routes:
        if (route.method not in UNSAFE or (route.method, route.rule) in PUBLIC
                or route.config.get("csrf", True) is False):
            continue
        before = database_state(conn)
        path = concrete(route.rule)
        if path.startswith("/api/") or path == "/metrics":
            response = alice.request(route.method, path, json_body={"name": "x", "mood": 1},
                                     headers=sent)
            assert response.status == 403 and response.json["error"]["code"] == "csrf", (
                route.method, route.rule, response.status)
        else:
            form = {"name": "x", "mood": "1"} | (
                {"csrf_token": sent["X-CSRF-Token"]} if sent else {})
            response = alice.request(route.method, path, form=form)
            assert response.status == 403, (route.method, route.rule, response.status)
        assert database_state(conn) == before, (route.method, route.rule)
        checked.append((route.method, route.rule))
    assert {m for m, _ in checked} == {"POST", "PUT", "PATCH", "DELETE"}, checked
    assert len(checked) > 30
