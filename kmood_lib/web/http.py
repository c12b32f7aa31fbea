"""HTTP plumbing shared by every route module: JSON bodies, JSON errors, security headers."""

from __future__ import annotations

import html
import json
import logging

import bottle

log = logging.getLogger(__name__)

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; "
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
ERROR_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 409: "conflict", 413: "payload_too_large",
    415: "unsupported_media_type", 422: "invalid", 429: "too_many_requests",
    500: "internal_error", 503: "unavailable",
}


class ApiError(bottle.HTTPResponse):
    """A JSON error answer: `{"error": {"code", "message", "fields"}}`."""

    def __init__(self, status: int, message: str, fields: dict | None = None,
                 code: str | None = None, headers: dict | None = None):
        body = {"error": {"code": code or ERROR_CODES.get(status, "error"), "message": message,
                          "fields": fields or {}}}
        super().__init__(json.dumps(body), status, headers)
        self.content_type = "application/json"


def json_response(data, status: int = 200, headers: dict | None = None) -> bottle.HTTPResponse:
    response = bottle.HTTPResponse(json.dumps(data, ensure_ascii=False), status, headers)
    response.content_type = "application/json"
    return response


def is_json_path(path: str) -> bool:
    return path == "/api" or path.startswith("/api/") or path == "/metrics"


def read_json(request: bottle.BaseRequest, max_bytes: int):
    """The request's JSON body: 415 without a JSON Content-Type, 413 if too large, 400 if malformed."""
    content_type = (request.content_type or "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise ApiError(415, "send the body as JSON with Content-Type: application/json")
    length = request.content_length  # -1 when unknown (chunked): read up to the limit
    if length > max_bytes:
        raise ApiError(413, f"body larger than {max_bytes} bytes")
    raw = request.environ["wsgi.input"].read(max_bytes + 1 if length < 0 else length)
    if len(raw) > max_bytes:
        raise ApiError(413, f"body larger than {max_bytes} bytes")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ApiError(400, f"malformed JSON: {exc}") from None


def read_json_object(request: bottle.BaseRequest, max_bytes: int) -> dict:
    data = read_json(request, max_bytes)
    if not isinstance(data, dict):
        raise ApiError(400, "the JSON body must be an object")
    return data


def error_page(res: bottle.HTTPError) -> str:
    """Bottle's own errors (404, 405, 413, 500...): JSON under /api, a plain page elsewhere."""
    status = res.status_code
    if status >= 500:
        log.error("unhandled error on %s %s", bottle.request.method, bottle.request.path,
                  exc_info=getattr(res, "exception", None) and (
                      type(res.exception), res.exception, res.exception.__traceback__))
        message = "internal error; the server log has the details"
    else:
        message = str(res.body) if isinstance(res.body, str) and res.body else res.status_line
    if is_json_path(bottle.request.path):
        bottle.response.content_type = "application/json"
        return json.dumps({"error": {"code": ERROR_CODES.get(status, "error"),
                                     "message": message, "fields": {}}})
    bottle.response.content_type = "text/html; charset=utf-8"
    return (f"<!doctype html><title>{status}</title><h1>{html.escape(res.status_line)}</h1>"
            f"<p>{html.escape(message)}</p><p><a href=\"/\">k-mood</a></p>")


def with_security_headers(app):
    """WSGI middleware: every response, errors included, carries the security headers."""

    def wrapped(environ, start_response):
        def start(status, headers, exc_info=None):
            present = {name.lower() for name, _ in headers}
            extra = [(n, v) for n, v in SECURITY_HEADERS if n.lower() not in present]
            return start_response(status, headers + extra, exc_info)

        return app(environ, start)

    return wrapped
