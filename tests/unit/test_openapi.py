"""/api/openapi.json describes exactly the JSON API the app serves."""

import re


def api_routes(wsgi) -> set[tuple[str, str]]:
    routes = set()
    for route in wsgi.bottle.routes:
        if route.rule.startswith("/api/"):
            path = re.sub(r"<(\w+)(:[^>]*)?>", lambda m: "{" + m.group(1) + "}", route.rule)
            path = re.sub(r"\{\w*id\}", "{id}", path)
            routes.add((route.method.lower(), path))
    return routes


def test_every_api_route_is_described_and_nothing_else(wsgi):
    from tests.wsgi import Client

    document = Client(wsgi).get("/api/openapi.json").json
    assert document["openapi"].startswith("3.1")
    described = {(method, path) for path, ops in document["paths"].items() for method in ops}
    assert described == api_routes(wsgi)


def test_every_schema_reference_resolves(wsgi):
    from tests.wsgi import Client

    text = Client(wsgi).get("/api/openapi.json").text
    document = Client(wsgi).get("/api/openapi.json").json
    for name in re.findall(r'#/components/schemas/(\w+)', text):
        assert name in document["components"]["schemas"], name


def test_writes_document_their_replay_csrf_and_body_answers(wsgi):
    from tests.wsgi import Client

    paths = Client(wsgi).get("/api/openapi.json").json["paths"]
    create = paths["/api/entries"]["post"]["responses"]
    assert {"200", "201", "400", "403", "413", "415", "422"} <= set(create)
    for path, ops in paths.items():
        for method, op in ops.items():
            if method in ("post", "patch", "delete") and op.get("security") != []:
                assert "403" in op["responses"], (method, path)
    entry = Client(wsgi).get("/api/openapi.json").json["components"]["schemas"]["Entry"]
    song = Client(wsgi).get("/api/openapi.json").json["components"]["schemas"]["Song"]
    assert "MusicBrainz" in song["properties"]["metadata"]["description"]
    assert "cover_url" in str(song["properties"]["metadata"])
    assert "unavailable" in entry["properties"]["weather"]["description"]
