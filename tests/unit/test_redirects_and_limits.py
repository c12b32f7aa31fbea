"""Open redirects after login, and bodies refused before they are read (issue #9)."""

from __future__ import annotations

import pytest

from kmood_lib.web.login import safe_next
from kmood_lib.web.middleware import SECURITY_HEADERS
from tests.conftest import PASSWORD
from tests.wsgi import Client

# Known bypasses of "starts with one slash" checks: each could send a browser off-site.
OFF_SITE = [
    "//evil.com", "///evil.com", "/\\evil.com", "\\\\evil.com", "/\t/evil.com", "/\n/evil.com",
    "/\r\n/evil.com", "/%09/evil.com", "/%0a/evil.com", "/%0d%0a/evil.com", "/%2F/evil.com",
    "/%2f%2fevil.com", "/%5Cevil.com", "/%5C%5Cevil.com", "/%252F%252Fevil.com",
    "http://evil.com", "https:evil.com", "javascript:alert(1)", "data:text/html,x",
    " /evil", "evil.com", "/\u3000/evil.com", "/\x00/evil.com", "/.\\evil.com",
    "%2F%2Fevil.com", "/ /evil.com", "/%20/evil.com\n",
]


@pytest.mark.parametrize("target", OFF_SITE)
def test_safe_next_refuses_whatever_a_browser_could_resolve_off_site(target):
    assert safe_next(target) == "/"


@pytest.mark.parametrize("target", ["/", "/entries", "/entries?q=caf%C3%A9&mood=4,5",
                                    "/calendar?year=2026#top", "/a/b/c?next=%2Fx"])
def test_safe_next_keeps_paths_on_this_site(target):
    assert safe_next(target) == target


@pytest.mark.parametrize("target", ["/%09/evil.com", "/%0a/evil.com", "/%0d%0aX:y", "//evil.com"])
def test_a_logged_in_visit_to_login_never_redirects_off_site_or_fails(client_for, target):
    from urllib.parse import quote

    alice = client_for("alice")
    response = alice.get("/login?next=" + quote(target, safe=""))
    assert response.status == 303 and response.headers["Location"] == "/"


def test_logged_out_pages_send_to_login_with_the_page_percent_encoded(wsgi, make_user):
    make_user("alice")
    response = Client(wsgi).get("/caf%C3%A9?x=1")
    assert response.status in (303, 404)
    page = Client(wsgi).get("/")
    assert page.headers["Location"] == "/login?next=%2F"


def call_with_an_unreadable_body(wsgi, path: str, length: int) -> tuple[str, dict, bytes]:
    """Call the WSGI app with a Content-Length whose body raises if anything reads it."""
    import io
    from wsgiref.util import setup_testing_defaults

    class Unreadable(io.RawIOBase):
        def read(self, *args):
            raise AssertionError("the body was read")

    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": path, "QUERY_STRING": "",
               "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(length),
               "wsgi.input": Unreadable()}
    setup_testing_defaults(environ)
    seen = {}

    def start_response(status, headers, exc_info=None):
        seen["status"], seen["headers"] = status, dict(headers)

    body = b"".join(wsgi(environ, start_response))
    return seen["status"], seen["headers"], body


@pytest.mark.parametrize("path", ["/api/session", "/api/entries", "/api/tokens", "/login",
                                  "/setup", "/logout"])
def test_a_body_past_the_limit_is_refused_before_anything_reads_it(wsgi, path):
    status, headers, body = call_with_an_unreadable_body(wsgi, path, 40 * 1024 * 1024)
    assert status.startswith("413"), (path, status)
    if path.startswith("/api/"):
        assert headers["Content-Type"].startswith("application/json")
        assert b"payload_too_large" in body
    for name, value in SECURITY_HEADERS:
        assert headers[name] == value


def test_hashing_is_refused_with_503_when_every_slot_is_taken(services, wsgi, make_user):
    make_user("alice")
    hasher = services.hasher
    taken = 0
    while hasher._slots.acquire(blocking=False):  # fill every slot, as a flood would
        taken += 1
    try:
        response = Client(wsgi).login("alice", PASSWORD)
        assert response.status == 503 and response.headers["Retry-After"] == "1"
        assert response.json["error"]["code"] == "unavailable"
    finally:
        for _ in range(taken):
            hasher._slots.release()
    assert Client(wsgi).login("alice", PASSWORD).status == 201
