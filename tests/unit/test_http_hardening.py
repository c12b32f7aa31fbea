"""Errors under /api are JSON (the framework's own included), pages' errors are pages in the
person's language; every response is hardened."""

import html

import bottle
import pytest

from kmood_lib.web.middleware import SECURITY_HEADERS
from tests.wsgi import Client


@pytest.mark.parametrize("method,path,status", [
    ("GET", "/api/does-not-exist", 404),
    ("PUT", "/api/session", 405),
    ("GET", "/api/tokens/not-a-number", 404),
])
def test_framework_errors_under_api_are_json(wsgi, method, path, status):
    response = Client(wsgi).request(method, path)
    assert response.status == status
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json["error"]["code"]


def test_malformed_json_is_400_and_a_non_json_body_is_415(wsgi, make_user):
    make_user("alice")
    client = Client(wsgi)
    bad = client.request("POST", "/api/session", body=b"{nope", content_type="application/json")
    assert bad.status == 400 and bad.json["error"]["code"] == "bad_request"
    form = client.request("POST", "/api/session", body=b"username=a", content_type="text/plain")
    assert form.status == 415 and form.json["error"]["code"] == "unsupported_media_type"
    array = client.request("POST", "/api/session", body=b"[1]", content_type="application/json")
    assert array.status == 400


def test_a_body_over_the_limit_is_413_json(config, clock, make_user):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi

    wsgi = make_wsgi(bootstrap(config.with_overrides(max_body_bytes=2048), clock=clock))
    big = b'{"username": "' + b"a" * 4096 + b'", "password": "x"}'
    response = Client(wsgi).request("POST", "/api/session", body=big,
                                    content_type="application/json")
    assert response.status == 413 and response.json["error"]["code"] == "payload_too_large"


def test_html_errors_stay_html(wsgi):
    response = Client(wsgi).get("/no/such/page")
    assert response.status == 404 and response.headers["Content-Type"].startswith("text/html")


@pytest.fixture
def pseudo_wsgi(config, clock):
    """The app with the pseudo-language en-XA, on the same database as the other fixtures."""
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi

    services = bootstrap(config.with_overrides(pseudo_languages=True), clock=clock)
    yield make_wsgi(services)
    services.hasher.close()


def test_an_error_page_is_in_the_persons_language_and_a_json_error_stays_english(
        pseudo_wsgi, make_user):
    from kmood_lib.core.i18n import pseudo
    from tests.conftest import PASSWORD
    from tests.plain_words import plain_words

    stranger = Client(pseudo_wsgi).get("/no/such/page", headers={"Accept-Language": "en-XA"})
    assert stranger.status == 404 and '<html lang="en-XA"' in stranger.text
    assert plain_words(stranger.text) == []
    make_user("ann")
    ann = Client(pseudo_wsgi)
    assert ann.login("ann", PASSWORD).status == 201
    assert ann.patch("/api/me", {"language": "en_XA"}).status == 200
    for path in ("/no/such/page", "/entries/999999/edit"):  # no route; a route's NotFound
        page = ann.get(path)
        assert page.status == 404 and '<html lang="en-XA"' in page.text, path
        assert plain_words(page.text) == [], path
    assert pseudo("There is no page at this address.") in html.unescape(
        ann.get("/no/such/page").text)
    api = ann.get("/api/no/such/thing")
    assert api.json["error"] == {"code": "not_found", "message": "Not found: '/api/no/such/thing'",
                                 "fields": {}}
    english = Client(pseudo_wsgi).get("/no/such/page").text
    assert '<html lang="en"' in english and "404</span> Not Found</h1>" in english
    assert "There is no page at this address." in english


def test_every_response_carries_the_security_headers_even_a_crash(services):
    from kmood_lib.web.app import make_app
    from kmood_lib.web.middleware import with_security_headers

    app = make_app(services)

    @app.get("/api/boom", auth="public")
    def boom():
        raise RuntimeError("secret internals")

    wsgi = with_security_headers(app)
    for path in ("/healthz", "/api/boom", "/nope", "/login"):
        response = Client(wsgi).get(path)
        for name, value in SECURITY_HEADERS:
            assert response.headers[name] == value, (path, name)
    crash = Client(wsgi).get("/api/boom")
    assert crash.status == 500 and b"secret internals" not in crash.body
    assert b"Traceback" not in crash.body
    assert "frame-ancestors 'none'" in dict(SECURITY_HEADERS)["Content-Security-Policy"]
    assert "unsafe-inline" not in dict(SECURITY_HEADERS)["Content-Security-Policy"]


def test_routes_declare_a_known_auth_level(services):
    from kmood_lib.web.app import make_app

    app = make_app(services)
    with pytest.raises(ValueError, match="auth must be"):
        app.route("/api/typo", callback=lambda: "x", auth="pubic")
        app.router.match({"PATH_INFO": "/api/typo", "REQUEST_METHOD": "GET"})[0].call()
    assert isinstance(app, bottle.Bottle)


def test_asking_a_url_encoded_form_for_its_files_leaves_its_fields_to_be_read():
    """The photos' reader may ask first: a url-encoded body has no files and is not read for
    them (Bottle would read it as Latin-1 and leave nothing), so its fields are all there,
    decoded as UTF-8, for the form that asks next (#36 6c)."""
    import io

    from kmood_lib.web.http import form_params, multipart, uploaded_files

    body = b"mood=4&note=caf%C3%A9"
    request = bottle.BaseRequest({
        "REQUEST_METHOD": "POST", "CONTENT_TYPE": "application/x-www-form-urlencoded",
        "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body)})
    assert uploaded_files(request, "photo") == []
    fields, files = multipart(request)
    assert fields == {} and files.get("file") is None
    assert form_params(request, 1024) == {"mood": "4", "note": "café"}
