"""Failed-login throttling per username and per client address, kept in the database.

Subjects are stored as a short hash of the username's name key or of the address, so a
client sending megabyte usernames cannot grow the table (or the WAL) by more than a row.

Each attempt reserves a failure row under BEGIN IMMEDIATE *before* the password is checked, so
parallel attempts (threads or processes) all count; a successful login removes its reservation.
"""

from __future__ import annotations

import hashlib
import math
import sqlite3

from kmood_lib.core.db import transaction
from kmood_lib.core.errors import TooMany
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import name_key


class Throttled(TooMany):
    """Too many failed logins; try again after `retry_after_s` seconds."""

    def __init__(self, retry_after_s: int):
        super().__init__(Phrase("too many failed logins; try again later"), retry_after_s)


def _digest(text: str) -> str:
    """What is stored for a subject: a fixed-size hash, never the (arbitrarily long) text sent."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _user_subject(username: str) -> str:
    return _digest(name_key(username.strip()))


def _subjects(username: str, address: str) -> list[tuple[str, str]]:
    return [("user", _user_subject(username)), ("addr", _digest(address))]


def reserve_attempt(conn: sqlite3.Connection, username: str, address: str, now_ms: int,
                    max_failures: int, window_s: int, max_failures_per_address: int
                    ) -> list[int]:
    """Raise Throttled if the username or the address is over its limit (each has its own:
    one address may be a whole household behind NAT); otherwise record the attempt."""
    return _reserve(conn, _subjects(username, address),
                    {"user": max_failures, "addr": max_failures_per_address}, now_ms, window_s)


def reserve_address_attempt(conn: sqlite3.Connection, address: str, now_ms: int,
                            window_s: int, max_failures_per_address: int) -> list[int]:
    """reserve_attempt() for a sign-in that names nobody until it succeeds (single sign-on's
    return from the provider): only the address is counted."""
    return _reserve(conn, [("addr", _digest(address))], {"addr": max_failures_per_address},
                    now_ms, window_s)


def _reserve(conn: sqlite3.Connection, subjects: list[tuple[str, str]], limits: dict[str, int],
             now_ms: int, window_s: int) -> list[int]:
    since = now_ms - window_s * 1000
    with transaction(conn):
        for scope, subject in subjects:
            rows = conn.execute(
                "SELECT at FROM login_failures WHERE scope = ? AND subject = ? AND at > ?"
                " ORDER BY at DESC LIMIT ?",
                (scope, subject, since, limits[scope]),
            ).fetchall()
            if len(rows) >= limits[scope]:
                # The oldest counted failure leaves the window first.
                wait_ms = rows[-1]["at"] + window_s * 1000 - now_ms
                raise Throttled(max(1, math.ceil(wait_ms / 1000)))
        return [
            conn.execute(
                "INSERT INTO login_failures (scope, subject, at) VALUES (?, ?, ?) RETURNING id",
                (scope, subject, now_ms),
            ).fetchall()[0][0]
            for scope, subject in subjects
        ]


def release(conn: sqlite3.Connection, reserved: list[int]) -> None:
    """The attempt succeeded: its reservation is no failure."""
    conn.executemany("DELETE FROM login_failures WHERE id = ?", [(i,) for i in reserved])


def login_succeeded(conn: sqlite3.Connection, username: str, reserved: list[int]) -> None:
    """Drop this attempt's reservation and the username's earlier failures."""
    with transaction(conn):
        conn.executemany("DELETE FROM login_failures WHERE id = ?", [(i,) for i in reserved])
        conn.execute("DELETE FROM login_failures WHERE scope = 'user' AND subject = ?",
                     (_user_subject(username),))


def prune_failures(conn: sqlite3.Connection, now_ms: int, window_s: int) -> int:
    return conn.execute("DELETE FROM login_failures WHERE at <= ?",
                        (now_ms - window_s * 1000,)).rowcount
