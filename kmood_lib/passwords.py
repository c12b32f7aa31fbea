"""Password hashing with hashlib.scrypt: per-password salt, parameters stored with the hash."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

_R, _P, _DKLEN = 8, 1, 32


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=dklen,
        maxmem=256 * n * r + 1024 * 1024,
    )


def hash_password(password: str, n: int) -> str:
    """`scrypt$n$r$p$salt$hash` so the cost can be raised later without breaking old hashes."""
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, n, _R, _P, _DKLEN)
    return f"scrypt${n}${_R}${_P}${_b64(salt)}${_b64(digest)}"


def verify_password(password: str, stored: str) -> bool:
    """Constant-time check of a password against a stored hash; a malformed hash never matches."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest, validate=True)
        actual = _scrypt(password, base64.b64decode(salt, validate=True),
                         int(n), int(r), int(p), len(expected))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


_DUMMY_HASH_CACHE: dict[int, str] = {}


def burn_equivalent_time(password: str, n: int) -> None:
    """Spend one verification's worth of work, so an unknown user answers like a wrong password."""
    if n not in _DUMMY_HASH_CACHE:
        _DUMMY_HASH_CACHE[n] = hash_password(secrets.token_hex(8), n)
    verify_password(password, _DUMMY_HASH_CACHE[n])


def needs_rehash(stored: str, n: int) -> bool:
    parts = stored.split("$")
    return len(parts) != 6 or parts[0] != "scrypt" or parts[1] != str(n)
