"""Cover Art Archive: a release's front cover, 250 px. It answers with a redirect to the image
on another host (followed here), or 404 when the release has no cover."""

from __future__ import annotations

import time

from kmood_lib.upstream.http import UpstreamError, exchange

TIMEOUT_S = 30
MAX_IMAGE_BYTES = 2 * 1024 * 1024
# What each accepted image type starts with: the body must agree with its Content-Type.
SIGNATURES = {"image/jpeg": (b"\xff\xd8\xff",), "image/png": (b"\x89PNG\r\n\x1a\n",),
              "image/gif": (b"GIF87a", b"GIF89a"), "image/webp": (b"RIFF",)}


class CoverArt:
    def __init__(self, base_url: str, user_agent: str, timeout_s: float = TIMEOUT_S):
        self.base_url = base_url
        self.user_agent = user_agent
        self.timeout_s = timeout_s

    def front(self, release_mbid: str) -> tuple[str, bytes] | None:
        """(content type, image bytes), or None when the release has no cover (a result)."""
        answer = exchange("GET", f"{self.base_url}/release/{release_mbid}/front-250",
                          user_agent=self.user_agent, deadline=time.monotonic() + self.timeout_s,
                          headers={"Accept": ", ".join(SIGNATURES)},
                          max_bytes=MAX_IMAGE_BYTES, follow_redirects=True)
        if answer.status == 404:
            return None
        if answer.status != 200:
            raise UpstreamError(f"Cover Art Archive answered HTTP {answer.status}",
                                answer.status)
        kind = answer.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind not in SIGNATURES:
            raise UpstreamError(f"Cover Art Archive answered {kind or 'no Content-Type'},"
                                f" not an image")
        body = answer.body
        if not body.startswith(SIGNATURES[kind]) or (
                kind == "image/webp" and body[8:12] != b"WEBP"):
            raise UpstreamError(f"Cover Art Archive answered a body that is not {kind}")
        return kind, body
