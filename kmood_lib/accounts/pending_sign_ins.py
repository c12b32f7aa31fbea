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

# Sign-ins under way in all: anyone may begin one (the login page's button needs no account),
# so a client that begins thousands pushes out the oldest rather than growing the table.
MAX_PENDING = 5000
PER_BROWSER = 5  # a browser's own: tabs, a back button, a second try


@dataclass(frozen=True)
class Pending:
    kind: str
    user_id: int | None  # set when a signed-in person links a way in to their own account
    payload: dict


def new_browser_key() -> str:
    """The value of the cookie that binds a browser to the sign-ins it began."""
    return secrets.token_urlsafe(32)


def begin(conn: sqlite3.Connection, kind: str, browser_key: str, payload: dict, now_ms: int,
          ttl_s: int, user_id: int | None = None) -> str:
    """Keep `payload` for the browser holding `browser_key`; returns the handle (the OpenID
    request's `state`) it comes back with. Expired sign-ins go, and past the caps the oldest."""
    handle = secrets.token_urlsafe(32)
    browser = token_hash(browser_key)
    with transaction(conn):
        conn.execute("DELETE FROM pending_sign_ins WHERE expires_at <= ?", (now_ms,))
        conn.execute(
            "INSERT INTO pending_sign_ins (kind, handle_hash, browser_hash, user_id, payload,"
            " created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (kind, token_hash(handle), browser, user_id, json.dumps(payload), now_ms,
             now_ms + ttl_s * 1000))
        conn.execute("DELETE FROM pending_sign_ins WHERE browser_hash = ? AND id NOT IN (SELECT"
                     " id FROM pending_sign_ins WHERE browser_hash = ? ORDER BY id DESC LIMIT ?)",
                     (browser, browser, PER_BROWSER))
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
