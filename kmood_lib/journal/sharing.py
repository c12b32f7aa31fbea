"""Shared reports (SPEC §15): a link that shows one report of a person's journal, and nothing
else, to whoever holds it for a while.

1. What the link shows is fixed when it is made: the days (`date_from`..`date_to`), whether the
   entries (and their photos) are in it, and the language it was made in.
2. The link is `<id>.<secret>`: the id finds the row, the secret (32 random bytes, 256 bits)
   proves the holder was given it. Only the secret's SHA-256 is stored, and it is compared in
   constant time, so neither the database nor the time an answer takes gives it away.
3. Revoking deletes the row: the link is unknown (404) at once. An expired one stays, listed
   as expired to its owner, and answers 410 until the owner removes it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import date

from kmood_lib.accounts.auth import clean_name
from kmood_lib.core.db import write_if_free
from kmood_lib.core.errors import DomainError, NotFound, ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.validation import MAX_YEAR, MIN_YEAR, parse_local_date

DAY_MS = 86_400_000
EXPIRY_DAYS = (1, 7, 30, 90)  # the choices offered; any whole number of days between is taken
MAX_NAME = 100
MAX_LINKS = 50  # live and expired links one person keeps
# The link as it appears in a URL: the row id, a dot, the secret (base64url of 32 bytes).
LINK = re.compile(r"([1-9][0-9]{0,17})\.([A-Za-z0-9_-]{43})")


class LinkGone(DomainError):
    """A shared link past its expiry: it was real, and is no more (410)."""

    status = 410


@dataclass(frozen=True)
class Contents:
    """What a report shows: its days, and whether its entries and their photos are in it."""

    date_from: str
    date_to: str
    with_entries: bool = False
    with_photos: bool = False

    @classmethod
    def checked(cls, date_from: object, date_to: object, with_entries: bool = False,
                with_photos: bool = False) -> Contents:
        """Refuses dates that are not days, or that run backwards; photos come only with the
        entries they belong to."""
        errors: dict[str, str] = {}
        days = {}
        for name, value in (("from", date_from), ("to", date_to)):
            try:
                if not isinstance(value, str):
                    raise ValidationError({name: Phrase("must be a date YYYY-MM-DD")})
                days[name] = parse_local_date(value, name)
                if not MIN_YEAR <= int(days[name][:4]) <= MAX_YEAR:
                    raise ValidationError({name: Phrase("years run from {first} to {last}",
                                                        first=MIN_YEAR, last=MAX_YEAR)})
            except ValidationError as exc:
                errors.update(exc.fields)
        if not errors and days["from"] > days["to"]:
            errors["to"] = Phrase("must not be before from")
        if errors:
            raise ValidationError(errors)
        return cls(days["from"], days["to"], bool(with_entries),
                   bool(with_entries) and bool(with_photos))

    @property
    def days(self) -> int:
        return (date.fromisoformat(self.date_to) - date.fromisoformat(self.date_from)).days + 1


@dataclass(frozen=True)
class SharedReport:
    id: int
    user_id: int
    name: str
    contents: Contents
    language: str | None
    created_at: int
    expires_at: int
    opened_count: int
    last_opened_at: int | None

    @classmethod
    def from_row(cls, row) -> SharedReport:
        return cls(row["id"], row["user_id"], row["name"],
                   Contents(row["date_from"], row["date_to"], bool(row["with_entries"]),
                            bool(row["with_photos"])),
                   row["language"], row["created_at"], row["expires_at"], row["opened_count"],
                   row["last_opened_at"])

    def expired(self, now_ms: int) -> bool:
        return now_ms >= self.expires_at


def _digest(secret: str) -> str:
    """Secrets are 256 random bits, so a fast hash is the right one."""
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def expiry_days(value: object) -> int:
    """How many days a new link lasts: a whole number from 1 to 90."""
    raw = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 3
            and EXPIRY_DAYS[0] <= int(raw) <= EXPIRY_DAYS[-1]):
        raise ValidationError({"expires": Phrase("must be {first} to {last} days",
                                                 first=EXPIRY_DAYS[0], last=EXPIRY_DAYS[-1])})
    return int(raw)


def make_link(conn: sqlite3.Connection, user_id: int, name: object, contents: Contents,
              days: int, language: str | None, now_ms: int) -> tuple[SharedReport, str]:
    """A new link to the report `contents` describes, for `days` days: the row and the link's
    text (`<id>.<secret>`), which is never stored and so shown only this once. One statement:
    a person keeps at most MAX_LINKS links, and the count is checked where the row is added."""
    name = clean_name(name, MAX_NAME)
    secret = secrets.token_urlsafe(32)
    row = conn.execute(
        "INSERT INTO shared_reports (user_id, secret_hash, name, date_from, date_to,"
        " with_entries, with_photos, language, created_at, expires_at)"
        " SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"
        " WHERE (SELECT count(*) FROM shared_reports WHERE user_id = ?) < ? RETURNING *",
        (user_id, _digest(secret), name, contents.date_from, contents.date_to,
         int(contents.with_entries), int(contents.with_photos), language, now_ms,
         now_ms + days * DAY_MS, user_id, MAX_LINKS)).fetchone()
    if row is None:
        raise ValidationError({"name": Phrase(
            "you keep {n} links already: remove one under Settings → Sharing first",
            n=MAX_LINKS)})
    return SharedReport.from_row(row), f"{row['id']}.{secret}"


def open_link(conn: sqlite3.Connection, link: str, now_ms: int) -> SharedReport:
    """The shared report a link names: NotFound for anything but a live link's exact text
    (a wrong secret, another link's id, a revoked link), LinkGone past its expiry."""
    found = LINK.fullmatch(link)
    row = found and conn.execute("SELECT * FROM shared_reports WHERE id = ?",
                                 (int(found.group(1)),)).fetchone()
    # compared whether or not a row was found, so a missing id takes as long as a wrong secret
    expected = row["secret_hash"] if row else _digest("-" * 43)
    given = _digest(found.group(2)) if found else ""
    if not (hmac.compare_digest(expected, given) and row):
        raise NotFound("shared report")
    shared = SharedReport.from_row(row)
    if shared.expired(now_ms):
        raise LinkGone(Phrase("This shared report has expired; ask for a new link."))
    return shared


def count_opening(conn: sqlite3.Connection, shared: SharedReport, now_ms: int) -> None:
    """The report was shown: its count and last opening, written only if the database is
    free this moment (a busy one neither fails the page nor makes it wait)."""
    write_if_free(conn, "UPDATE shared_reports SET opened_count = opened_count + 1,"
                        " last_opened_at = ? WHERE id = ?", (now_ms, shared.id))


def list_links(conn: sqlite3.Connection, user_id: int) -> list[SharedReport]:
    """A person's links, the newest first."""
    return [SharedReport.from_row(row) for row in conn.execute(
        "SELECT * FROM shared_reports WHERE user_id = ? ORDER BY id DESC", (user_id,))]


def revoke_link(conn: sqlite3.Connection, user_id: int, link_id: int) -> None:
    """The link ends now (and is gone from the list): whoever holds it gets 404."""
    if not conn.execute("DELETE FROM shared_reports WHERE id = ? AND user_id = ?",
                        (link_id, user_id)).rowcount:
        raise NotFound("shared report")


def photo_in_report(conn: sqlite3.Connection, shared: SharedReport, photo_id: int) -> None:
    """NotFound unless the report shows the photo: its entries and photos are in it, and the
    photo is on one of the owner's entries within its days."""
    c = shared.contents
    if not (c.with_photos and conn.execute(
            "SELECT 1 FROM photos p JOIN entries e ON e.id = p.entry_id WHERE p.id = ?"
            " AND e.user_id = ? AND e.local_date BETWEEN ? AND ?",
            (photo_id, shared.user_id, c.date_from, c.date_to)).fetchone()):
        raise NotFound("photo")
