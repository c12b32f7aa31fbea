"""A small in-process client for the WSGI app: real request parsing, a cookie jar, JSON helpers."""

from __future__ import annotations

import io
import json
import urllib.parse
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from wsgiref.util import setup_testing_defaults


@dataclass
class Response:
    status: int
    headers: dict
    body: bytes
    set_cookies: list[str] = field(default_factory=list)

    @property
    def json(self):
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


class Client:
    """Cookies persist between calls like a browser's; `csrf` is sent as X-CSRF-Token when set."""

    def __init__(self, wsgi, remote_addr: str = "127.0.0.1"):
        self.wsgi = wsgi
        self.cookies: dict[str, str] = {}
        self.csrf: str | None = None
        self.bearer: str | None = None
        self.remote_addr = remote_addr

    def request(self, method: str, path: str, json_body=None, body: bytes | None = None,
                content_type: str | None = None, headers: dict | None = None,
                form: dict | None = None) -> Response:
        if json_body is not None:
            body, content_type = json.dumps(json_body).encode(), content_type or "application/json"
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            content_type = "application/x-www-form-urlencoded"
        path, _, query = path.partition("?")
        environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query,
                   "REMOTE_ADDR": self.remote_addr, "wsgi.input": io.BytesIO(body or b""),
                   "CONTENT_LENGTH": str(len(body or b""))}
        if content_type:
            environ["CONTENT_TYPE"] = content_type
        all_headers = dict(headers or {})
        if self.cookies:
            all_headers.setdefault("Cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if self.csrf and method in ("POST", "PUT", "PATCH", "DELETE"):
            all_headers.setdefault("X-CSRF-Token", self.csrf)
        if self.bearer:
            all_headers.setdefault("Authorization", f"Bearer {self.bearer}")
        for name, value in all_headers.items():
            environ["HTTP_" + name.upper().replace("-", "_")] = value
        setup_testing_defaults(environ)
        captured = {}

        def start_response(status, response_headers, exc_info=None):
            captured["status"] = int(status.split()[0])
            captured["headers"] = response_headers

        chunks = self.wsgi(environ, start_response)
        data = b"".join(chunks)
        if hasattr(chunks, "close"):
            chunks.close()
        set_cookies = [v for k, v in captured["headers"] if k.lower() == "set-cookie"]
        for raw in set_cookies:
            for name, morsel in SimpleCookie(raw).items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        return Response(captured["status"], {k: v for k, v in captured["headers"]}, data,
                        set_cookies)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, json_body=None, **kw):
        return self.request("POST", path, json_body=json_body, **kw)

    def patch(self, path, json_body=None, **kw):
        return self.request("PATCH", path, json_body=json_body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def login(self, username: str, password: str) -> Response:
        response = self.post("/api/session", {"username": username, "password": password})
        if response.status == 201:
            self.csrf = response.json["csrf_token"]
        return response
