"""What pages cost to fetch (issue #23, Lighthouse): text over 1 KB is gzipped for a client
that accepts it, and static files have versioned URLs a browser may keep for a year."""

from __future__ import annotations

import gzip
import re

import pytest


@pytest.fixture
def alice(client_for):
    return client_for("alice")


def test_pages_and_json_are_gzipped_when_the_client_accepts_it(alice):
    plain = alice.get("/static/style.css")
    assert "Content-Encoding" not in plain.headers and plain.headers["Vary"] == "Accept-Encoding"
    packed = alice.request("GET", "/static/style.css", headers={"Accept-Encoding": "gzip, br"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.body) == plain.body
    assert int(packed.headers["Content-Length"]) == len(packed.body) < len(plain.body) / 2
    page = alice.request("GET", "/", headers={"Accept-Encoding": "gzip"})
    assert page.headers["Content-Encoding"] == "gzip"
    assert b"Log a mood" in gzip.decompress(page.body)
    openapi = alice.request("GET", "/api/openapi.json", headers={"Accept-Encoding": "gzip"})
    assert openapi.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(openapi.body).startswith(b"{")


@pytest.mark.parametrize("accept", ["identity", "gzip;q=0", "br", ""])
def test_nothing_is_gzipped_for_a_client_that_does_not_ask(alice, accept):
    response = alice.request("GET", "/", headers={"Accept-Encoding": accept} if accept else {})
    assert "Content-Encoding" not in response.headers and response.body.startswith(b"<!doctype")


def test_small_answers_and_images_are_sent_as_they_are(alice):
    small = alice.request("GET", "/api/me", headers={"Accept-Encoding": "gzip"})
    assert len(small.body) < 1024 and "Content-Encoding" not in small.headers
    icon = alice.request("GET", "/static/icons/icon-512.png", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in icon.headers and icon.body.startswith(b"\x89PNG")


def test_static_files_have_versioned_urls_cached_for_a_year(alice):
    page = alice.get("/").text
    css = re.search(r'href="(/static/style\.css\?v=[0-9a-f]{12})"', page).group(1)
    assert re.search(r'src="/static/js/log\.js\?v=[0-9a-f]{12}"', page)
    fresh = alice.get(css)
    assert fresh.status == 200
    assert fresh.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    stale = alice.get("/static/style.css?v=000000000000")
    assert stale.headers["Cache-Control"] == "public, max-age=3600"
    assert alice.get("/static/style.css").headers["Cache-Control"] == "public, max-age=3600"
