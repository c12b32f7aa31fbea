"""A Web Push service on 127.0.0.1 that checks what a real one checks, and browsers made by
the test that decrypt what it carries.

The service (RFC 8030/8292): a POST to a subscription's endpoint needs `Authorization: vapid
t=<JWT>, k=<public key>` whose ES256 signature holds against `k`, with `aud` the endpoint's
origin, `exp` within 24 hours of now and a `sub`; `Content-Encoding: aes128gcm`; and a `TTL`.
Anything wrong is refused (400/401/403) and noted in `problems`. What passes is decrypted with
the subscription's private key and auth secret, as the browser would (RFC 8291), and kept in
`received`. `answers[token]` scripts what an endpoint answers next (a 410, a 429 with
Retry-After), one reply per push.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from tests.fakes import QuietServer

# A browser's keys for a subscription nothing is ever pushed to (lists, refusals, fuzzing).
SOME_KEYS = {"p256dh": "BHIfqngcSmR50oyOiooJeSNnDvB7Q_TLjyKhy-goIhFl_udmKdQyJioWHB0G2shqd7jwJ5"
                       "MZVLD_EVk3oQmSmks", "auth": "A6BTNNuEjaFGSanTsgD3eQ"}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """One browser's subscription: its P-256 key pair and auth secret, as PushManager makes."""

    token: str
    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self, label: str = "Firefox on Android") -> dict:
        """What `PushSubscription.toJSON()` gives, and the label the app adds."""
        public = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                    serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)}, "label": label}


class PushService:
    def __init__(self, now=time.time):
        self.now = now  # the clock the JWT's exp is checked against (the test's own)
        self.browsers: dict[str, Browser] = {}
        self.answers: dict[str, list[tuple[int, dict]]] = {}
        self.received: list[dict] = []  # {"token", "headers", "message"}
        self.problems: list[str] = []
        self.keys_seen: set[str] = set()  # the VAPID public keys pushes were signed with
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                status, headers = service.take(self.path, dict(self.headers), body)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)

    def __enter__(self) -> PushService:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def browser(self) -> Browser:
        token = b64url(os.urandom(12))
        made = Browser(token, f"{self.url}/push/{token}")
        self.browsers[token] = made
        return made

    def refuse(self, why: str, status: int) -> tuple[int, dict]:
        self.problems.append(why)
        return status, {}

    def take(self, path: str, headers: dict, body: bytes) -> tuple[int, dict]:
        """Check a push as a push service would, then decrypt and keep it."""
        headers = {name.lower(): value for name, value in headers.items()}
        token = path.rsplit("/", 1)[-1]
        browser = self.browsers.get(token)
        if not path.startswith("/push/") or browser is None:
            return 404, {}
        with self.lock:
            scripted = self.answers.get(token)
            if scripted:
                return scripted.pop(0)
        why = self.vapid_problem(headers.get("authorization", ""))
        if why:
            return self.refuse(why, 401 if "signature" in why else 403)
        if headers.get("content-encoding") != "aes128gcm":
            return self.refuse(f"Content-Encoding {headers.get('content-encoding')!r}", 400)
        if not (headers.get("ttl") or "").isdigit():
            return self.refuse("no TTL", 400)
        try:
            plain = http_ece.decrypt(body, private_key=browser.key, auth_secret=browser.auth,
                                     version="aes128gcm")
        except Exception as exc:  # what the browser would drop
            return self.refuse(f"cannot decrypt: {exc}", 400)
        self.received.append({"token": token, "headers": headers,
                              "message": json.loads(plain)})
        return 201, {"Location": f"{self.url}/message/{len(self.received)}"}

    def vapid_problem(self, authorization: str) -> str | None:
        """What is wrong with the VAPID header, or None (RFC 8292 §3)."""
        scheme, _, params = authorization.partition(" ")
        fields = dict(part.strip().split("=", 1) for part in params.split(",") if "=" in part)
        if scheme.lower() != "vapid" or not {"t", "k"} <= set(fields):
            return f"not a vapid Authorization: {authorization[:40]!r}"
        try:
            head, claims, signature = fields["t"].split(".")
            header = json.loads(unb64url(head))
            payload = json.loads(unb64url(claims))
            key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(),
                                                               unb64url(fields["k"]))
            raw = unb64url(signature)
            der = encode_dss_signature(int.from_bytes(raw[:32], "big"),
                                       int.from_bytes(raw[32:], "big"))
            key.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return "the JWT's signature does not hold against k"
        except (ValueError, KeyError, TypeError) as exc:
            return f"an unreadable JWT: {exc}"
        if header.get("alg") != "ES256":
            return f"alg {header.get('alg')!r}"
        if payload.get("aud") != self.url:
            return f"aud {payload.get('aud')!r} is not {self.url}"
        exp = payload.get("exp")
        if not isinstance(exp, int) or not self.now() < exp <= self.now() + 24 * 3600:
            return f"exp {exp!r} is not within 24 h of now"
        if not payload.get("sub"):
            return "no sub"
        self.keys_seen.add(fields["k"])
        return None
