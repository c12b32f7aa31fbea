"""The WSGI middleware around the app: security headers on every response (and `no-store`
where a route says nothing about caching), and gzip for text bodies."""

from __future__ import annotations

import gzip

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; object-src 'none'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
]
UNCACHED = ("Cache-Control", "no-store")


def with_security_headers(app):
    """WSGI middleware: every response, errors included, carries the security headers, and
    one that says nothing about caching is not kept (`no-store`): what is behind a login is
    private unless its route says how it may be kept."""

    def wrapped(environ, start_response):
        def start(status, headers, exc_info=None):
            present = {name.lower() for name, _ in headers}
            extra = [(n, v) for n, v in [*SECURITY_HEADERS, UNCACHED] if n.lower() not in present]
            return start_response(status, headers + extra, exc_info)

        return app(environ, start)

    return wrapped


COMPRESS_MIN_BYTES = 1024
COMPRESSIBLE = ("text/", "application/json", "application/javascript",
                "application/manifest+json", "image/svg+xml")


def accepts_gzip(environ) -> bool:
    """Whether Accept-Encoding lists gzip (not with q=0)."""
    for part in environ.get("HTTP_ACCEPT_ENCODING", "").split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            return params.replace(" ", "").lower() not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def _close(body) -> None:
    if hasattr(body, "close"):
        body.close()


def with_compression(app):
    """WSGI middleware: a text response over COMPRESS_MIN_BYTES is sent gzipped to a client
    that accepts it (waitress compresses nothing); `Vary: Accept-Encoding` either way. Any
    other body (audio, images, a download) is passed on as it came, unread: a streamed memo
    stays streamed, and the server closes it."""

    def wrapped(environ, start_response):
        captured = {}

        def start(status, headers, exc_info=None):
            captured.update(status=status, headers=headers, exc_info=exc_info)
            return lambda data: None  # the old write(): not used by Bottle

        chunks = app(environ, start)
        if captured and not _content_type(captured["headers"]).startswith(COMPRESSIBLE):
            try:
                start_response(captured["status"], captured["headers"], captured["exc_info"])
            except BaseException:
                _close(chunks)
                raise
            return chunks
        try:
            body = b"".join(chunks)
        finally:
            _close(chunks)
        status, headers = captured["status"], list(captured["headers"])
        names = {name.lower(): value for name, value in headers}
        if _content_type(headers).startswith(COMPRESSIBLE):
            headers.append(("Vary", "Accept-Encoding"))
            if (len(body) > COMPRESS_MIN_BYTES and "content-encoding" not in names
                    and accepts_gzip(environ) and environ.get("REQUEST_METHOD") != "HEAD"):
                body = gzip.compress(body, compresslevel=6)
                headers = [(n, v) for n, v in headers if n.lower() != "content-length"]
                headers += [("Content-Encoding", "gzip"), ("Content-Length", str(len(body)))]
        start_response(status, headers, captured["exc_info"])
        return [body]

    return wrapped


def _content_type(headers: list[tuple[str, str]]) -> str:
    return next((value for name, value in headers if name.lower() == "content-type"), "").lower()
