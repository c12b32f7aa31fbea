"""Password hashing with hashlib.scrypt: per-password salt, parameters stored with the hash,
run on a small fixed pool of threads so parallel logins cannot pin the server's memory."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor

from kmood_lib.core.errors import Busy
from kmood_lib.core.i18n import Phrase

_R, _P, _DKLEN = 8, 1, 32
HASH_THREADS = 2  # scrypt needs 128*n*r bytes (16 MiB at n=2**14) per hash in flight
MAX_PENDING = 8  # hashes running or waiting; past that a login is answered 503 at once


class HasherBusy(Busy):
    """Every hashing slot is taken: answer 503 with Retry-After instead of queueing forever."""

    def __init__(self):
        super().__init__(Phrase("the server is busy checking other passwords; try again in a"
                                " moment"), 1)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=dklen,
        maxmem=256 * n * r + 1024 * 1024,
    )


def _hash(password: str, n: int) -> str:
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, n, _R, _P, _DKLEN)
    return f"scrypt${n}${_R}${_P}${_b64(salt)}${_b64(digest)}"


def _verify(password: str, stored: str) -> bool:
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


class PasswordHasher:
    """scrypt at cost `n` on HASH_THREADS threads.

    Each hash allocates 16 MiB at the default cost and glibc keeps every thread's arena once
    used, so hashing inside eight request threads left ~160 MB resident for good; two hashing
    threads bound that. When MAX_PENDING hashes are already running or waiting, HasherBusy
    is raised at once, so request threads never pile up behind an unauthenticated flood.
    """

    def __init__(self, n: int, threads: int = HASH_THREADS, max_pending: int = MAX_PENDING):
        self.n = n
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="scrypt")
        self._slots = threading.BoundedSemaphore(max_pending)
        self._dummy: str | None = None

    def _run(self, fn, *args):
        if not self._slots.acquire(blocking=False):
            raise HasherBusy()
        try:
            future = self._pool.submit(fn, *args)
        except BaseException:
            self._slots.release()
            raise
        future.add_done_callback(lambda _: self._slots.release())
        return future.result()

    def hash(self, password: str) -> str:
        """`scrypt$n$r$p$salt$hash` so the cost can be raised later without breaking old hashes."""
        return self._run(_hash, password, self.n)

    def verify(self, password: str, stored: str) -> bool:
        """Constant-time check against a stored hash; a malformed hash never matches."""
        return self._run(_verify, password, stored)

    def burn(self, password: str) -> None:
        """Spend one verification's worth of work, so an unknown user answers like a wrong
        password."""
        if self._dummy is None:
            self._dummy = self.hash(secrets.token_hex(8))
        self.verify(password, self._dummy)

    def needs_rehash(self, stored: str) -> bool:
        parts = stored.split("$")
        return len(parts) != 6 or parts[0] != "scrypt" or parts[1] != str(self.n)

    def close(self) -> None:
        self._pool.shutdown(wait=False)
