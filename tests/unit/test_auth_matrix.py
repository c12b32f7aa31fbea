"""Every route, generated from the app's own route table, refuses strangers unless allowlisted."""

import re

import pytest

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
}


def concrete(rule: str) -> str:
    rule = re.sub(r"<[^>]*:id>", "1", rule)
    rule = re.sub(r"<[^>]*:path>", "style.css", rule)
    rule = re.sub(r"<[^>]*:mbid>", "11111111-1111-4111-8111-111111111111", rule)
    rule = re.sub(r"<[^>]*:token>", "A" * 24, rule)
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
