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


def png_pixels(data: bytes) -> tuple[int, int, list[list[tuple[int, ...]]]]:
    """Width, height and rows of pixels of an 8-bit RGB or RGBA PNG (no interlacing)."""
    import struct
    import zlib

    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0
    step = 3 if colour == 2 else 4
    raw, stride, rows, previous = zlib.decompress(idat), width * step, [], bytearray(width * step)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up, corner = previous[i], previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                guess = left + up - corner
                near = min((abs(guess - left), left), (abs(guess - up), up),
                           (abs(guess - corner), corner), key=lambda pair: pair[0])[1]
                line[i] = (line[i] + near) & 255
        rows.append([tuple(line[x:x + step]) for x in range(0, stride, step)])
        previous = line
    return width, height, rows


def test_the_manifest_has_maskable_icons_full_bleed_with_the_face_in_the_safe_circle(alice):
    """A launcher cuts its own shape out of a maskable icon: no corners baked in (every pixel
    opaque, the corners the theme colour) and nothing but background outside the central
    circle of radius 40%."""
    manifest = alice.get("/manifest.webmanifest").json
    maskable = [icon for icon in manifest["icons"] if icon.get("purpose") == "maskable"]
    assert {icon["sizes"] for icon in maskable} == {"192x192", "512x512"}
    for icon in maskable:
        width, height, rows = png_pixels(alice.get(icon["src"]).body)
        assert f"{width}x{height}" == icon["sizes"]
        background = rows[0][0][:3]
        assert background == (0x35, 0x53, 0xd9)
        outside = [(x, y) for y, row in enumerate(rows) for x, pixel in enumerate(row)
                   if (x + .5 - width / 2) ** 2 + (y + .5 - height / 2) ** 2 > (.4 * width) ** 2
                   and (pixel[:3] != background or pixel[3:] not in ((), (255,)))]
        assert outside == [], (icon["src"], outside[:5])
