"""GET JSON from an upstream within one total deadline, with an identifying User-Agent.

urllib's timeout applies per socket operation, so a server trickling one byte at a time could
hold a request for many times that timeout. Here the request runs on a helper thread and the
caller waits at most until the deadline; past it the socket is shut down, which ends the
helper's blocked read at once.
"""

from __future__ import annotations

import email.utils
import http.client
import ipaddress
import json
import math
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass

from kmood_lib.core.text import usable

MAX_RESPONSE_BYTES = 4 * 1024 * 1024


class UpstreamError(Exception):
    """An upstream could not answer usefully: transport error, timeout, HTTP error, bad JSON."""

    def __init__(self, message: str, status: int | None = None, retry_after_s: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s


class RefusedAddress(Exception):
    """The host resolves to an address this request may not go to (loopback, private...)."""


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to the address vetted beforehand; the host name stays for the Host header."""

    address: str = ""

    def connect(self):
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """As _PinnedHTTP, with TLS verified against the host name (SNI too), not the address."""

    address: str = ""

    def connect(self):
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


# IPv6 ranges whose last 32 bits are an IPv4 address that a host may route to: deprecated
# IPv4-compatible addresses (::a.b.c.d) and NAT64's well-known and local-use prefixes.
_CARRY_IPV4 = [ipaddress.ip_network(n) for n in ("::/96", "64:ff9b::/96", "64:ff9b:1::/48")]


def is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Global, and so is any IPv4 address it carries: IPv4-mapped, IPv4-compatible, NAT64,
    6to4 and Teredo addresses count as global to `ipaddress` even when what they reach is
    loopback or a private network."""
    if not address.is_global:
        return False
    if address.version == 6:
        carried = [address.ipv4_mapped, address.sixtofour, address.teredo and address.teredo[1]]
        carried += [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
                    for net in _CARRY_IPV4 if address in net]
        return all(inner.is_global for inner in carried if inner)
    return True


def public_address(host: str, port: int) -> str:
    """Resolve once and vet every address: a name that resolves to any loopback, link-local or
    private address is refused (so DNS rebinding cannot slip one in); the first is used."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = [info[4][0] for info in found]
    for address in addresses:
        if not is_public(ipaddress.ip_address(address.split("%")[0])):
            raise RefusedAddress(f"{host} resolves to {address}, a private or local address")
    return addresses[0]


def _connection(url: str, timeout: float, public_only: bool = False
                ) -> tuple[http.client.HTTPConnection, str]:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UpstreamError(f"not an http(s) URL: {url}")
    https = parts.scheme == "https"
    if public_only:
        cls = _PinnedHTTPS if https else _PinnedHTTP
    else:
        cls = http.client.HTTPSConnection if https else http.client.HTTPConnection
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    return cls(parts.hostname, parts.port, timeout=timeout), target


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]  # names lower-cased
    body: bytes
    url: str  # where the answer came from, after any redirects


REDIRECTS = (301, 302, 303, 307, 308)
MAX_REDIRECTS = 5


def exchange(method: str, url: str, *, user_agent: str, deadline: float,
             headers: dict | None = None, payload: bytes | None = None,
             max_bytes: int = MAX_RESPONSE_BYTES, follow_redirects: bool = False,
             public_only: bool = False) -> Answer:
    """Send one request (following up to MAX_REDIRECTS redirects of a GET when asked), all
    within `deadline` (a time.monotonic() value). Raises UpstreamError for transport trouble,
    a body over `max_bytes`, 429 and 5xx; any other status is returned for the caller to read.
    `public_only` connects only to a vetted public address (see public_address)."""
    for _ in range(MAX_REDIRECTS + 1):
        answer = _exchange_once(method, url, user_agent, deadline, headers or {}, payload,
                                max_bytes, public_only)
        location = answer.headers.get("location")
        if not (follow_redirects and answer.status in REDIRECTS and location):
            return answer
        url = urllib.parse.urljoin(url, location)
    raise UpstreamError(f"{_host(url)}: more than {MAX_REDIRECTS} redirects")


def _exchange_once(method: str, url: str, user_agent: str, deadline: float, headers: dict,
                   payload: bytes | None, max_bytes: int, public_only: bool = False) -> Answer:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise UpstreamError("deadline passed before the request started")
    conn, target = _connection(url, remaining, public_only)
    all_headers = {"User-Agent": user_agent, **headers}
    outcome: dict = {}

    def work():
        try:
            if public_only:  # resolved here, so the deadline covers a slow DNS answer too
                conn.address = public_address(conn.host, conn.port)
            conn.request(method, target, body=payload, headers=all_headers)
            response = conn.getresponse()
            data = response.read(max_bytes + 1)
            outcome["result"] = (response.status, dict(
                (name.lower(), value) for name, value in response.getheaders()), data)
        except BaseException as exc:  # reported to the caller's thread
            outcome["error"] = exc

    helper = threading.Thread(target=work, name="upstream-request", daemon=True)
    helper.start()
    helper.join(max(0.0, deadline - time.monotonic()))
    # The socket's own timeout is the time left, so a helper that timed out just before the
    # join gave up has met the same deadline, and says so in the same words.
    timed_out = isinstance(outcome.get("error"), TimeoutError)
    if helper.is_alive() or timed_out:
        _abort(conn)
        raise UpstreamError(f"no complete answer from {_host(url)} within the deadline")
    conn.close()
    if "error" in outcome:
        exc = outcome["error"]
        if isinstance(exc, RefusedAddress):
            raise UpstreamError(f"refused: {exc}") from None
        raise UpstreamError(f"{_host(url)}: {type(exc).__name__}: {exc}") from None
    status, answer_headers, data = outcome["result"]
    if len(data) > max_bytes:
        raise UpstreamError(f"{_host(url)}: response larger than {max_bytes} bytes")
    if status == 429 or status >= 500:
        raise UpstreamError(f"{_host(url)} answered HTTP {status}", status,
                            _retry_after(answer_headers.get("retry-after"),
                                         answer_headers.get("date")))
    return Answer(status, answer_headers, data, url)


def request_json(method: str, url: str, *, user_agent: str, deadline: float,
                 headers: dict | None = None, body: dict | None = None,
                 expect_json: bool = True):
    """Send one request and return (status, parsed JSON or None); raise UpstreamError.

    4xx answers other than 429 are returned, not raised (the caller decides what 404 means).
    """
    all_headers = {"Accept": "application/json", **(headers or {})}
    payload = None
    if body is not None:
        payload = json.dumps(body).encode("utf-8")
        all_headers["Content-Type"] = "application/json"
    answer = exchange(method, url, user_agent=user_agent, deadline=deadline,
                      headers=all_headers, payload=payload)
    if not expect_json:
        return answer.status, None
    try:
        document = json.loads(answer.body.decode("utf-8")) if answer.body else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise UpstreamError(f"{_host(url)} answered HTTP {answer.status} with a body that is"
                            f" not JSON", answer.status) from None
    return answer.status, usable_json(document)


def usable_json(document):
    """Every text in an upstream's JSON (keys too) through the text rules, so what it says can
    be stored and shown: a lone surrogate, legal in JSON, would make every save of it fail."""
    def clean(value):
        return usable(value) if isinstance(value, str) else value

    root = [clean(document)]
    stack = [root]
    while stack:
        node = stack.pop()
        pairs = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        if isinstance(node, dict):
            node.clear()
        for key, value in pairs:
            value = clean(value)
            node[clean(key)] = value
            if isinstance(value, (dict, list)):
                stack.append(value)
    return root[0]


def get_json(url: str, *, user_agent: str, deadline: float, headers: dict | None = None):
    return request_json("GET", url, user_agent=user_agent, deadline=deadline, headers=headers)


def _abort(conn: http.client.HTTPConnection) -> None:
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    conn.close()


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc


def _retry_after(value: str | None, date: str | None = None,
                 now: float | None = None) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP date (RFC 9110), the date
    taken against the answer's own `Date` when it has one (so a server whose clock differs
    from ours still means the delay it says), else against ours. Anything else — NaN,
    infinity, a negative number, words, a date already past — is no delay."""
    if value is None:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        seconds = float(text)
    else:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:
            return None
        sent = _http_date(date)
        seconds = when.timestamp() - (sent if sent is not None else
                                      time.time() if now is None else now)
    return seconds if math.isfinite(seconds) and seconds > 0 else None


def _http_date(value: str | None) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(value.strip()) if value else None
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return when.timestamp() if when is not None and when.tzinfo is not None else None


def with_query(base: str, path: str, params: dict) -> str:
    return f"{base}{path}?{urllib.parse.urlencode(params)}"
