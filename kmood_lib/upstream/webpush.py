"""Web Push (RFC 8030) with VAPID (RFC 8292) and an encrypted payload (RFC 8291, aes128gcm):
one POST to the push service a browser subscribed with, through k-mood's own outbound client
(one deadline, the public-address guard); py-vapid signs the JWT and http-ece encrypts, both
imported only when a push is made or a key is needed. No retries here: the queue retries."""

from __future__ import annotations

import base64
import binascii
import json
import os
import time
import urllib.parse
from dataclasses import dataclass

from kmood_lib.upstream.http import UpstreamError, exchange

TTL_S = 4 * 3600  # a reminder the phone gets four hours late is still worth showing once
JWT_LIFETIME_S = 12 * 3600  # push services refuse one that lives past 24 h
EXCERPT = 200


class PushGone(UpstreamError):
    """The push service no longer knows the subscription (404 or 410): forget it."""


class PushRefused(UpstreamError):
    """The push service refused this push for good (a 4xx other than 408, 413, 425 and 429:
    a key it does not take, a subscription that is not one): trying again will not help."""


RETRIED = (408, 413, 425)  # besides 429 and 5xx, which `exchange` raises itself


@dataclass(frozen=True)
class Pushed:
    status: int
    excerpt: str


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_bytes(text: str) -> bytes:
    """Base64url with or without padding -> bytes; ValueError for anything else."""
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def is_public_key(raw: bytes) -> bool:
    """Whether `raw` is a point on P-256, uncompressed (a browser's p256dh key)."""
    from cryptography.hazmat.primitives.asymmetric import ec

    if raw[:1] != b"\x04":
        return False
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        return False
    return True


def new_private_pem() -> str:
    """A new VAPID key pair (P-256), as the private key's PEM."""
    from py_vapid import Vapid02

    vapid = Vapid02()
    vapid.generate_keys()
    return vapid.private_pem().decode("ascii")


class Vapid:
    """The installation's VAPID key: its public key for the browsers (applicationServerKey),
    and the signed Authorization header for each push service."""

    def __init__(self, private_pem: str, subject: str):
        from cryptography.hazmat.primitives import serialization
        from py_vapid import Vapid02

        self.key = Vapid02.from_pem(private_pem.encode("ascii"))
        self.subject = subject
        self.public_key = b64url(self.key.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))

    def authorization(self, endpoint: str, now_s: float) -> str:
        from py_vapid import VapidException

        parts = urllib.parse.urlsplit(endpoint)
        claims = {"aud": f"{parts.scheme}://{parts.netloc}", "sub": self.subject,
                  "exp": int(now_s) + JWT_LIFETIME_S}
        try:
            return self.key.sign(claims)["Authorization"]
        except VapidException as exc:
            raise PushRefused(f"cannot sign for {parts.hostname}: {exc}") from None


def encrypt(payload: bytes, p256dh: str, auth: str) -> bytes:
    """The payload encrypted to the browser's key (aes128gcm, a fresh key and salt each)."""
    import http_ece
    from cryptography.hazmat.primitives.asymmetric import ec

    return http_ece.encrypt(payload, salt=os.urandom(16),
                            private_key=ec.generate_private_key(ec.SECP256R1()),
                            dh=b64url_bytes(p256dh), auth_secret=b64url_bytes(auth),
                            version="aes128gcm")


def push(vapid: Vapid, endpoint: str, p256dh: str, auth: str, message: dict, *, topic: str,
         user_agent: str, timeout_s: float, now_s: float, public_only: bool,
         urgency: str = "normal") -> Pushed:
    """One encrypted message; raises PushGone (404, 410), UpstreamError for anything else
    that is not 2xx (transport, a refused address; 429 and 5xx carry their Retry-After)."""
    host = urllib.parse.urlsplit(endpoint).hostname
    try:
        body = encrypt(json.dumps(message, ensure_ascii=False).encode("utf-8"), p256dh, auth)
        answer = exchange("POST", endpoint, user_agent=user_agent,
                          deadline=time.monotonic() + timeout_s,
                          headers={"Authorization": vapid.authorization(endpoint, now_s),
                                   "Content-Encoding": "aes128gcm",
                                   "Content-Type": "application/octet-stream",
                                   "TTL": str(TTL_S), "Urgency": urgency, "Topic": topic},
                          payload=body, max_bytes=64 * 1024, public_only=public_only)
    except (ValueError, TypeError) as exc:  # keys or an address no push can be made with
        raise PushRefused(f"{host}: this device's subscription cannot be used ({exc})"
                          ) from None
    excerpt = answer.body[:EXCERPT].decode("utf-8", "replace")
    if answer.status in (404, 410):
        raise PushGone(f"{host} no longer knows this device (HTTP {answer.status})",
                       answer.status)
    if not 200 <= answer.status < 300:
        refused = UpstreamError if answer.status in RETRIED else PushRefused
        raise refused(f"{host} answered HTTP {answer.status}: {excerpt}", answer.status)
    return Pushed(answer.status, excerpt)
