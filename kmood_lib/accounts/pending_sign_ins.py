"""Sign-ins under way: what a browser was handed when it set out (an OpenID Connect request's
state, nonce and PKCE verifier), kept until it comes back. Each is taken once (one DELETE ...
RETURNING, so two arrivals of the same answer cannot both use it), only within its lifetime,
and only by the browser that began it. Stored are hashes of the handle and of the browser's
cookie, never either itself: a copy of the database cannot finish anyone's sign-in."""

from __future__ import annotations

import json
import secrets
import sqlite3
from dataclasses import dataclass

from kmood_lib.accounts.auth import token_hash
from kmood_lib.core.db import transaction

# Sign-ins under way: anyone may begin one (the login page's button needs no account), so each
# browser keeps its latest few (tabs, a back button, a second try), each client address its
# latest PER_ADDRESS (a household behind one address signs in a few at a time; a client that
# drops its cookie to begin thousands pushes out only its own), and past MAX_PENDING in all
# (thousands of addresses) the oldest go rather than the table growing.
MAX_PENDING = 10000
PER_BROWSER = 5
PER_ADDRESS = 30


@dataclass(frozen=True)
class Pending:
    kind: str
    user_id: int | None  # set when a signed-in person links a way in to their own account
    payload: dict


def new_browser_key() -> str:
    """The value of the cookie that binds a browser to the sign-ins it began."""
    return secrets.token_urlsafe(32)


def is_browser_key(value: str | None) -> bool:
    """Whether a cookie's value is one new_browser_key() makes (anything else is replaced)."""
    return bool(value) and len(value) == 43 and all(
        c.isascii() and (c.isalnum() or c in "-_") for c in value)


def begin(conn: sqlite3.Connection, kind: str, browser_key: str, address: str, payload: dict,
          now_ms: int, ttl_s: int, user_id: int | None = None) -> str:
    """Keep `payload` for the browser holding `browser_key` (at `address`); returns the
    handle (the OpenID request's `state`) it comes back with. Expired sign-ins go, and past
    the caps the oldest."""
    handle = secrets.token_urlsafe(32)
    browser, place = token_hash(browser_key), token_hash(address)
    with transaction(conn):
        conn.execute("DELETE FROM pending_sign_ins WHERE expires_at <= ?", (now_ms,))
        conn.execute(
            "INSERT INTO pending_sign_ins (kind, handle_hash, browser_hash, address_hash,"
            " user_id, payload, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (kind, token_hash(handle), browser, place, user_id, json.dumps(payload), now_ms,
             now_ms + ttl_s * 1000))
        for column, value, keep in (("browser_hash", browser, PER_BROWSER),
                                    ("address_hash", place, PER_ADDRESS)):
            conn.execute(f"DELETE FROM pending_sign_ins WHERE {column} = ? AND id NOT IN"
                         f" (SELECT id FROM pending_sign_ins WHERE {column} = ?"
                         f" ORDER BY id DESC LIMIT ?)", (value, value, keep))
        conn.execute("DELETE FROM pending_sign_ins WHERE id IN (SELECT id FROM pending_sign_ins"
                     " ORDER BY id DESC LIMIT -1 OFFSET ?)", (MAX_PENDING,))
    return handle


def take(conn: sqlite3.Connection, handle: str, browser_key: str, now_ms: int,
         kinds: tuple[str, ...]) -> Pending | None:
    """The sign-in `handle` names, used up now whoever presents it; None unless it is one of
    `kinds`, still live and was begun by this browser."""
    if not handle or len(handle) > 200:
        return None
    row = conn.execute(
        "DELETE FROM pending_sign_ins WHERE handle_hash = ?"
        " RETURNING kind, browser_hash, user_id, payload, expires_at", (token_hash(handle),)
    ).fetchall()  # to the end: the statement is done, its write lock released
    row = row[0] if row else None
    if (row is None or row["kind"] not in kinds or row["expires_at"] <= now_ms
            or not browser_key or len(browser_key) > 200
            or not secrets.compare_digest(row["browser_hash"], token_hash(browser_key))):
        return None
    return Pending(row["kind"], row["user_id"], json.loads(row["payload"]))


def prune(conn: sqlite3.Connection, now_ms: int) -> int:
    return conn.execute("DELETE FROM pending_sign_ins WHERE expires_at <= ?",
                        (now_ms,)).rowcount
