"""HTTP plumbing shared by every route module: JSON answers and errors, Bottle's own error
pages, and reading what a request sent (headers, cookies, JSON, query strings, forms, files).
The WSGI middleware around the app is in middleware.py."""

from __future__ import annotations

import html
import json
import logging
import math
import re
import urllib.parse

import bottle

from kmood_lib.core.i18n import N_, Phrase, Translator
from kmood_lib.core.text import TextError, decode_utf8, has_surrogate
from kmood_lib.journal.entry_json import dumps

log = logging.getLogger(__name__)

ERROR_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 409: "conflict", 410: "gone", 413: "payload_too_large",
    415: "unsupported_media_type", 422: "invalid", 429: "too_many_requests",
    500: "internal_error", 503: "unavailable", 507: "insufficient_storage",
}


class ApiError(bottle.HTTPResponse):
    """A JSON error answer: `{"error": {"code", "message", "fields"}}`."""

    def __init__(self, status: int, message: str, fields: dict | None = None,
                 code: str | None = None, headers: dict | None = None,
                 extra: dict | None = None):
        body = {"error": {"code": code or ERROR_CODES.get(status, "error"), "message": message,
                          "fields": fields or {}}, **(extra or {})}
        super().__init__(dumps(body), status, headers)
        self.content_type = "application/json"
        self.message, self.fields = message, fields or {}

    def as_page(self) -> bottle.HTTPError:
        """The same answer for a page (HTML) route: status, message and headers kept."""
        detail = "; ".join(f"{name}: {text}" for name, text in self.fields.items())
        page = bottle.HTTPError(self.status_code, self.message + (f" ({detail})" if detail else ""))
        for name, value in self.headerlist:
            if name.lower() not in ("content-type", "content-length"):
                page.set_header(name, value)
        return page


def json_response(data, status: int = 200, headers: dict | None = None) -> bottle.HTTPResponse:
    return json_text_response(dumps(data), status, headers)


def json_text_response(text: str, status: int = 200, headers: dict | None = None
                       ) -> bottle.HTTPResponse:
    """A body that is JSON text already (an entry page built in SQLite)."""
    response = bottle.HTTPResponse(text, status, headers)
    response.content_type = "application/json"
    return response


def header(request: bottle.BaseRequest, name: str) -> str | None:
    """A request header as text, or None when it was not sent. WSGI hands headers over as
    Latin-1; they are read as the UTF-8 they were sent in, strictly: bytes that are not UTF-8
    are a 400 naming the header (Bottle's own reader lets the UnicodeError through: a 500)."""
    raw = request.environ.get("HTTP_" + name.upper().replace("-", "_"))
    if raw is None:
        return None
    try:
        return raw.encode("latin-1").decode("utf-8")
    except UnicodeError:
        raise ApiError(400, f"the {name} header is not valid UTF-8",
                       {name: "not valid UTF-8"}) from None


def cookie(request: bottle.BaseRequest, name: str) -> str | None:
    """The value of one of k-mood's own cookies, found whatever its neighbours hold: another
    app on the same host may set cookies that a strict parser gives up on (JSON, spaces,
    quotes, non-ASCII), and giving up there would log the person out. The first one sent wins
    (a browser sends the most specific path first); only a printable ASCII value counts."""
    for part in request.environ.get("HTTP_COOKIE", "").split(";"):
        key, sep, value = part.partition("=")
        if sep and key.strip() == name:
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            if value and value.isascii() and value.isprintable():
                return value
    return None


def is_json_path(path: str) -> bool:
    return path == "/api" or path.startswith("/api/") or path == "/metrics"


MAX_JSON_DEPTH = 32
_INT64 = 2**63


def read_body(request: bottle.BaseRequest, max_bytes: int) -> bytes:
    """The raw request body, read once and kept in the environ: 413 past `max_bytes`."""
    environ = request.environ
    if "kmood.body" not in environ:
        length = request.content_length  # -1 when unknown: read up to the limit
        if length > max_bytes:
            raise ApiError(413, f"body larger than {max_bytes} bytes")
        raw = environ["wsgi.input"].read(max_bytes + 1 if length < 0 else length)
        if len(raw) > max_bytes:
            raise ApiError(413, f"body larger than {max_bytes} bytes")
        environ["kmood.body"] = raw
    return environ["kmood.body"]


def media_type(request: bottle.BaseRequest) -> str:
    """The body's Content-Type without its parameters, lower-cased ("" when none was sent)."""
    return (request.content_type or "").split(";")[0].strip().lower()


def read_json(request: bottle.BaseRequest, max_bytes: int):
    """The request's JSON body: 415 without a JSON Content-Type, 413 if too large, 400 if
    malformed (duplicate keys and nesting deeper than MAX_JSON_DEPTH included), 422 naming the
    field for text that is not valid Unicode or a number that is not finite or out of range."""
    if media_type(request) != "application/json":
        raise ApiError(415, "send the body as JSON with Content-Type: application/json")
    return parse_json(read_body(request, max_bytes))


def _object(pairs: list[tuple[str, object]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        duplicate = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"duplicate key {_printable(duplicate)!r}")
    return obj


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def parse_json(raw: bytes):
    """Bytes -> JSON value under the rules of read_json."""
    try:
        text = decode_utf8(raw, "the body")
        data = json.loads(text, object_pairs_hook=_object, parse_constant=float)
    except RecursionError:
        raise ApiError(400, f"malformed JSON: nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:  # TextError, JSONDecodeError, duplicate keys, huge int literals
        raise ApiError(400, f"malformed JSON: {exc}") from None
    check_json_values(data)
    return data


def check_json_values(data) -> None:
    """Walk the parsed body without recursion; refuse what could never be stored and read back."""
    fields: dict[str, str] = {}
    stack = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict) or isinstance(value, list):
            if depth >= MAX_JSON_DEPTH:
                raise ApiError(400, f"malformed JSON: nested deeper than {MAX_JSON_DEPTH} levels")
            if isinstance(value, dict):
                for key, item in value.items():
                    where = f"{path}.{_printable(key)}" if path else _printable(key)
                    if has_surrogate(key):
                        fields.setdefault(where, "field name must be valid Unicode")
                    stack.append((item, where, depth + 1))
            else:
                stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value))
        elif isinstance(value, str):
            if has_surrogate(value):
                fields.setdefault(path or "body", "must be valid Unicode (it holds a lone surrogate)")
        elif isinstance(value, float):
            if not math.isfinite(value):
                fields.setdefault(path or "body", "must be a finite number")
        elif isinstance(value, int) and not isinstance(value, bool):
            if not -_INT64 <= value < _INT64:
                fields.setdefault(path or "body", "number out of range")
    if fields:
        raise ApiError(422, "invalid input: " + ", ".join(sorted(fields)), fields)


def read_json_object(request: bottle.BaseRequest, max_bytes: int) -> dict:
    data = read_json(request, max_bytes)
    if not isinstance(data, dict):
        raise ApiError(400, "the JSON body must be an object")
    return data


def json_body(request: bottle.BaseRequest, config) -> dict:
    """A JSON route's body: an object within KMOOD_MAX_BODY_BYTES (read_json's rules)."""
    return read_json_object(request, config.max_body_bytes)


class Params(dict):
    """Decoded query or form parameters: `params[name]` is the last value sent, `getall` all."""

    def __init__(self, pairs: list[tuple[str, str]]):
        super().__init__(pairs)
        self._all: dict[str, list[str]] = {}
        for name, value in pairs:
            self._all.setdefault(name, []).append(value)

    def getall(self, name: str) -> list[str]:
        return list(self._all.get(name, ()))


def parse_urlencoded(raw: bytes, what: str) -> Params:
    """`a=1&b=caf%C3%A9` -> Params, decoding every name and value as UTF-8 (never Latin-1);
    a value that is not valid UTF-8 is a 400 naming it."""
    pairs, errors = [], {}
    for part in raw.split(b"&"):
        if not part:
            continue
        name_raw, _, value_raw = part.partition(b"=")
        name_bytes = urllib.parse.unquote_to_bytes(name_raw.replace(b"+", b" "))
        value_bytes = urllib.parse.unquote_to_bytes(value_raw.replace(b"+", b" "))
        try:
            name = decode_utf8(name_bytes, f"a {what} name")
        except TextError as exc:
            errors[name_bytes.decode("utf-8", "replace")] = str(exc)
            continue
        try:
            pairs.append((name, decode_utf8(value_bytes, f"{what} {name}")))
        except TextError as exc:
            errors[name] = str(exc)
    if errors:
        raise ApiError(400, f"{what}s must be UTF-8: " + ", ".join(sorted(errors)), errors)
    return Params(pairs)


def query_params(request: bottle.BaseRequest) -> Params:
    """The query string decoded as UTF-8 (Bottle's own `request.query` decodes it as Latin-1)."""
    environ = request.environ
    if "kmood.query" not in environ:
        try:
            raw = environ.get("QUERY_STRING", "").encode("latin-1")
        except UnicodeEncodeError:
            raise ApiError(400, "the query string must be percent-encoded UTF-8") from None
        environ["kmood.query"] = parse_urlencoded(raw, "query parameter")
    return environ["kmood.query"]


def is_multipart(request: bottle.BaseRequest) -> bool:
    return media_type(request) == "multipart/form-data"


def form_params(request: bottle.BaseRequest, max_bytes: int) -> Params:
    """A posted form's fields decoded as UTF-8 (url-encoded or multipart, files left out)."""
    environ = request.environ
    if "kmood.form" not in environ:
        content_type = media_type(request)
        if content_type == "application/x-www-form-urlencoded":
            environ["kmood.form"] = parse_urlencoded(read_body(request, max_bytes), "form field")
        elif content_type == "multipart/form-data":
            environ["kmood.form"] = multipart(request)[0]
        else:
            environ["kmood.form"] = Params([])
    return environ["kmood.form"]


class Files:
    """A multipart form's files, left where Bottle put them (parts past 100 KB in temporary
    files): `get(name)` reads one whole (the last sent under that name), `all(name)` hands out
    the file objects, each at its start, to be read one at a time."""

    def __init__(self, uploads: list[tuple[str, bottle.FileUpload]]):
        self.uploads = uploads

    def get(self, name: str) -> bytes | None:
        found = [upload for field, upload in self.uploads if field == name]
        if not found:
            return None
        found[-1].file.seek(0)
        return found[-1].file.read()

    def all(self, name: str) -> list:
        """Every non-empty file sent under `name`, in order (an input left empty sends an
        empty part, which is not a file)."""
        chosen = []
        for field, upload in self.uploads:
            if field == name and upload.file.seek(0, 2) > 0:
                upload.file.seek(0)
                chosen.append(upload.file)
        return chosen


def multipart(request: bottle.BaseRequest) -> tuple[Params, Files]:
    """A multipart form's fields (Bottle decodes them as UTF-8, strictly) and its files; the
    body size was checked by the auth plugin before anything was read.

    Any other body is not read here: it carries no files, and its fields are form_params's
    (Bottle would read a url-encoded body first, as Latin-1, and leave nothing for it)."""
    environ = request.environ
    if not is_multipart(request):
        return Params([]), Files([])
    if "kmood.multipart" not in environ:
        try:
            fields = list(request.forms.allitems())
            files = Files(list(request.files.allitems()))
        except UnicodeError:
            raise ApiError(400, "a multipart form field is not UTF-8 text") from None
        except bottle.MultipartError as exc:
            raise ApiError(400, f"unreadable multipart form: {exc}") from None
        for name, value in fields:
            if has_surrogate(name) or has_surrogate(value):
                raise ApiError(400, f"form field {name!r} is not valid Unicode")
        environ["kmood.multipart"] = (Params(fields), files)
    return environ["kmood.multipart"]


def uploaded_files(request: bottle.BaseRequest, name: str) -> list:
    """Every file sent under `name`, in order (a file input with `multiple`), as file objects;
    none for a form that is not multipart (a url-encoded form carries no files: multipart()
    leaves its body to form_params)."""
    return multipart(request)[1].all(name)


# An error page's heading: the status's reason phrase, in the person's language.
REASONS = {
    400: N_("Bad Request"), 401: N_("Unauthorized"), 403: N_("Forbidden"), 404: N_("Not Found"),
    405: N_("Method Not Allowed"), 409: N_("Conflict"), 410: N_("Gone"),
    413: N_("Request Entity Too Large"), 415: N_("Unsupported Media Type"),
    422: N_("Unprocessable Entity"), 429: N_("Too Many Requests"),
    500: N_("Internal Server Error"), 503: N_("Service Unavailable"),
    507: N_("Insufficient Storage"),
}
INTERNAL_ERROR = N_("internal error; the server log has the details")
# What the page says for the framework's own refusals, whose English names the path or method.
NO_SUCH_PAGE = N_("There is no page at this address.")
NO_SUCH_METHOD = N_("This address does not take that kind of request.")


SHARED_SECRET = re.compile(r"^(/shared/[0-9]+\.)[^/]+")


def logged_path(path: str) -> str:
    """A request's path as a log line may show it: a shared report's secret left out."""
    return SHARED_SECRET.sub(r"\1…", path)


def error_page(res: bottle.HTTPError, words: Translator | None = None) -> str:
    """Bottle's own errors (404, 405, 413, 500...) and the pages' refusals: JSON under /api
    (English, with its stable code), elsewhere a plain page in `words`' language (English when
    the request's cannot be known). A message that is a Phrase says itself in that language."""
    status = res.status_code
    if status >= 500:
        log.error("unhandled error on %s %s", bottle.request.method,
                  logged_path(bottle.request.path),
                  exc_info=getattr(res, "exception", None) and (
                      type(res.exception), res.exception, res.exception.__traceback__))
        message = INTERNAL_ERROR
    else:
        message = res.body if isinstance(res.body, str) and res.body else res.status_line
    if is_json_path(bottle.request.path):
        bottle.response.content_type = "application/json"
        return dumps({"error": {"code": ERROR_CODES.get(status, "error"), "message": str(message),
                                "fields": {}}})
    bottle.response.content_type = "text/html; charset=utf-8"
    say = words.gettext if words is not None else str
    if not isinstance(message, Phrase) and status == 404 and message.startswith("Not found"):
        message = NO_SUCH_PAGE  # the router's (with the path) or the request plugin's
    elif not isinstance(message, Phrase) and status == 405 and message == "Method not allowed.":
        message = NO_SUCH_METHOD
    heading = (f'<span translate="no">{status}</span> {html.escape(say(REASONS[status]))}'
               if status in REASONS else f'<span translate="no">{html.escape(res.status_line)}</span>')
    lang, direction = (words.html_lang, words.direction) if words is not None else ("en", "ltr")
    return (f'<!doctype html><html lang="{lang}" dir="{direction}"><meta charset="utf-8">'
            f"<title>{status}</title><h1>{heading}</h1>"
            f"<p>{html.escape(say(message))}</p><p><a href=\"/\">k-mood</a></p>")
