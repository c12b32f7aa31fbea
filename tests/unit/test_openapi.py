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


def request_schema(document: dict, path: str, method: str):
    """The JSON body schema of one operation, able to resolve its $refs."""
    import jsonschema_rs

    body = document["paths"][path][method]["requestBody"]["content"]["application/json"]
    return jsonschema_rs.Draft202012Validator({**body["schema"],
                                               "components": document["components"]})


def param_schema(document: dict, path: str, name: str):
    import jsonschema_rs

    found = next(p for p in document["paths"][path]["get"]["parameters"] if p["name"] == name)
    return jsonschema_rs.Draft202012Validator(found["schema"])


WRITES = [  # (path in the document, request path, method, body)
    ("/api/activities", "/api/activities", "post", {"name": ""}),
    ("/api/activities", "/api/activities", "post", {"name": "a", "group": ""}),
    ("/api/metrics", "/api/metrics", "post", {"name": ""}),
    ("/api/moods/{level}", "/api/moods/3", "patch", {"label": ""}),
    ("/api/reminders", "/api/reminders", "post", {"time": "", "channel": "webhook",
                                                  "url": "https://example.org/h"}),
    ("/api/reminders", "/api/reminders", "post", {"time": "24:00", "channel": "webhook",
                                                  "url": "https://example.org/h"}),
    ("/api/reminders", "/api/reminders", "post", {"time": "20:00", "channel": "webhook",
                                                  "url": ""}),
    ("/api/me", "/api/me", "patch", {"timezone": ""}),
    ("/api/reminders", "/api/reminders", "post", {"time": "20:00", "channel": "webhook",
                                                  "url": "https://example.org/h",
                                                  "weekdays": []}),
    ("/api/entries", "/api/entries", "post", {"mood": 3, "song": {"artist": "", "title": "t"}}),
]


def test_what_the_server_refuses_the_description_refuses_too(wsgi, client_for):
    from tests.wsgi import Client

    ann = client_for("ann")
    document = Client(wsgi).get("/api/openapi.json").json
    for i, (described, path, method, body) in enumerate(WRITES):
        response = ann.request(method.upper(), path, json_body=body)
        assert response.status == 422, (path, body, response.status)
        assert not request_schema(document, described, method).is_valid(body), (path, body)
        fixed = {**body, **{k: v for k, v in {"name": f"walk {i}", "label": "fine", "time": "20:00",
                                              "url": "https://example.org/h",
                                              "timezone": "Europe/Berlin", "weekdays": [1],
                                              "group": "outside"}.items() if k in body}}
        if "song" in body:
            fixed["song"] = {"artist": "a", "title": "t"}
        assert request_schema(document, described, method).is_valid(fixed), fixed
        assert ann.request(method.upper(), path, json_body=fixed).status in (200, 201), fixed
    year = param_schema(document, "/api/stats/calendar", "year")
    assert ann.get("/api/stats/calendar?year=0").status == 422 and not year.is_valid(0)
    assert ann.get("/api/stats/calendar?year=2026").status == 200 and year.is_valid(2026)
    for path in ("/api/entries", "/api/stats/summary", "/api/stats/weekday"):
        day = param_schema(document, path, "to")
        assert ann.get(path + "?to=").status == 200 and day.is_valid("")  # empty: no bound
        assert ann.get(path + "?to=2026-13-01").status == 422


def test_a_route_matches_its_pattern_exactly_not_before_a_line_feed(wsgi, client_for, conn):
    ann = client_for("ann")
    mbid = "11111111-1111-4111-8111-111111111111"
    song = ann.post("/api/entries", {"mood": 3, "song": {"artist": "A", "title": "T"}}).json
    conn.execute("INSERT INTO song_lookups (lookup_key, found, release_mbid, fetched_at)"
                 " SELECT lookup_key, 1, ?, 0 FROM songs WHERE entry_id = ?", (mbid, song["id"]))
    conn.execute("INSERT INTO covers (release_mbid, content_type, image, fetched_at)"
                 " VALUES (?, 'image/jpeg', x'ffd8ff', 0)", (mbid,))
    assert ann.get(f"/covers/{mbid}").status == 200
    for odd in ("\n", "\r", "\t", "\x00"):
        assert ann.get(f"/covers/{mbid}{odd}").status == 404, repr(odd)
    assert ann.get(f"/api/entries/{song['id']}\n").status == 404
