"""Sessions and API tokens: random tokens handed out once, only their SHA-256 stored."""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from dataclasses import dataclass

from kmood_lib.accounts.users import AccountError, User, set_password_hash
from kmood_lib.core.db import transaction, write_if_free
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import problem as text_problem

LAST_SEEN_RESOLUTION_MS = 60_000  # last-seen/last-used are written at most once a minute
API_TOKEN_PREFIX = "kmood_"
MAX_TOKEN_NAME = 100


def token_hash(token: str) -> str:
    """Tokens are high-entropy random strings, so a fast hash is the right one."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Session:
    id: int
    user: User
    csrf_token: str
    via: str | None = None  # how it began: "password" | "proxy" | "oidc" | "passkey"
    # when its person last proved who they are (a password, a passkey, the provider's
    # auth_time); None when nothing did (the sign-in proxy's sessions)
    authenticated_at: int | None = None


@dataclass(frozen=True)
class NewSession:
    token: str
    csrf_token: str
    expires_at: int
    id: int = 0


# The live sessions one account keeps; a new one past this ends one never used again since it
# was made (a client that dropped its cookie), else the one seen least recently: a client that
# never keeps its cookie cannot grow the table without bound, nor log out the person's phone.
MAX_SESSIONS_PER_USER = 50


def create_session(conn: sqlite3.Connection, user_id: int, now_ms: int, ttl_s: int,
                   via: str = "password", passkey_id: int | None = None,
                   authenticated_at: int | None = None) -> NewSession:
    """A new session. Made with a password or a passkey, its person proved who they are now;
    otherwise `authenticated_at` says when (the OpenID provider's auth_time), if anything."""
    if via in ("password", "passkey"):
        authenticated_at = now_ms
    token = secrets.token_urlsafe(32)
    csrf = secrets.token_urlsafe(32)
    expires = now_ms + ttl_s * 1000
    with transaction(conn):
        made = conn.execute(
            "INSERT INTO sessions (user_id, token_hash, csrf_token, created_at, expires_at,"
            " last_seen_at, via, passkey_id, authenticated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " RETURNING id",
            (user_id, token_hash(token), csrf, now_ms, expires, now_ms, via, passkey_id,
             authenticated_at),
        ).fetchall()[0][0]
        conn.execute(
            "DELETE FROM sessions WHERE user_id = ? AND id IN (SELECT id FROM sessions"
            " WHERE user_id = ? ORDER BY last_seen_at > created_at DESC, last_seen_at DESC,"
            " id DESC LIMIT -1 OFFSET ?)",
            (user_id, user_id, MAX_SESSIONS_PER_USER))
    return NewSession(token, csrf, expires, made)


_USER_COLUMNS = "u.id, u.username, u.timezone, u.is_admin, u.language"


def session_for_token(conn: sqlite3.Connection, token: str, now_ms: int, ttl_s: int
                      ) -> Session | None:
    """The live session behind a cookie; slides its expiry, writing at most once a minute."""
    row = conn.execute(
        f"SELECT s.id AS session_id, s.csrf_token, s.last_seen_at, s.via,"
        f" s.authenticated_at, {_USER_COLUMNS}"
        " FROM sessions s JOIN users u ON u.id = s.user_id"
        " WHERE s.token_hash = ? AND s.expires_at > ?",
        (token_hash(token), now_ms),
    ).fetchone()
    if row is None:
        return None
    if now_ms - row["last_seen_at"] >= LAST_SEEN_RESOLUTION_MS:  # skipped while busy or full
        write_if_free(
            conn,
            "UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id = ? AND last_seen_at < ?",
            (now_ms, now_ms + ttl_s * 1000, row["session_id"],
             now_ms - LAST_SEEN_RESOLUTION_MS + 1),
        )
    return Session(row["session_id"], User.from_row(row), row["csrf_token"], row["via"],
                   row["authenticated_at"])


def delete_session(conn: sqlite3.Connection, session_id: int) -> None:
    conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))


def delete_other_sessions(conn: sqlite3.Connection, user_id: int, keep_id: int | None) -> int:
    cur = conn.execute("DELETE FROM sessions WHERE user_id = ? AND id IS NOT ?", (user_id, keep_id))
    return cur.rowcount


def change_password(conn: sqlite3.Connection, user_id: int, password_hash: str, now_ms: int, *,
                    keep_session_id: int | None = None, revoke_tokens: bool = True) -> dict:
    """Set a new password (hashed beforehand) and end the other ways in, in one transaction:
    every session but `keep_session_id` (the user's own, when they change it themselves; an
    admin's reset keeps none) and, unless asked not to, every API token of the user."""
    with transaction(conn):
        set_password_hash(conn, user_id, password_hash, now_ms)
        ended = delete_other_sessions(conn, user_id, keep_session_id)
        revoked = conn.execute("UPDATE api_tokens SET revoked_at = ? WHERE user_id = ?"
                               " AND revoked_at IS NULL", (now_ms, user_id)
                               ).rowcount if revoke_tokens else 0
    return {"other_sessions_ended": ended, "api_tokens_revoked": revoked}


def delete_expired_sessions(conn: sqlite3.Connection, now_ms: int) -> int:
    return conn.execute("DELETE FROM sessions WHERE expires_at <= ?", (now_ms,)).rowcount


def clean_name(value: object, most: int) -> str:
    """A way in's name as a person gives it (an API token's, a passkey's): 1-`most`
    characters once the space around it is dropped, none of them control characters."""
    if not isinstance(value, str) or not value.strip() or len(value) > most:
        raise AccountError(Phrase("name must be 1-{max} characters", max=most), "name")
    wrong = text_problem(value, name=True)
    if wrong:
        raise AccountError(Phrase("name {problem}", problem=wrong), "name")
    return value.strip()


def create_api_token(conn: sqlite3.Connection, user_id: int, name: object, now_ms: int) -> dict:
    """A new named token; the only time the raw token is returned."""
    name = clean_name(name, MAX_TOKEN_NAME)
    token = API_TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = conn.execute(
        "INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES (?, ?, ?, ?)"
        " RETURNING id, name, created_at",
        (user_id, name.strip(), token_hash(token), now_ms),
    ).fetchall()[0]
    return {"id": row["id"], "name": row["name"], "token": token}


def note_use(conn: sqlite3.Connection, table: str, row_id: int, last_used_at: int | None,
             now_ms: int) -> None:
    """A way in (an API token, a linked identity) was used now: its last_used_at is written
    at most once a minute, and skipped while the database is busy or full."""
    if last_used_at is None or now_ms - last_used_at >= LAST_SEEN_RESOLUTION_MS:
        write_if_free(conn, f"UPDATE {table} SET last_used_at = ? WHERE id = ?", (now_ms, row_id))


def user_for_api_token(conn: sqlite3.Connection, token: str, now_ms: int) -> User | None:
    row = conn.execute(
        f"SELECT t.id AS token_id, t.last_used_at, {_USER_COLUMNS}"
        " FROM api_tokens t JOIN users u ON u.id = t.user_id"
        " WHERE t.token_hash = ? AND t.revoked_at IS NULL",
        (token_hash(token),),
    ).fetchone()
    if row is None:
        return None
    note_use(conn, "api_tokens", row["token_id"], row["last_used_at"], now_ms)
    return User.from_row(row)


def list_api_tokens(conn: sqlite3.Connection, user_id: int) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT id, name, created_at, last_used_at FROM api_tokens"
        " WHERE user_id = ? AND revoked_at IS NULL ORDER BY id",
        (user_id,),
    ).fetchall()


def revoke_api_token(conn: sqlite3.Connection, user_id: int, token_id: int, now_ms: int) -> bool:
    """Revoke one of the user's own tokens; False when there is no such live token of theirs."""
    cur = conn.execute(
        "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
        (now_ms, token_id, user_id),
    )
    return cur.rowcount == 1
