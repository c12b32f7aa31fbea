"""Users: creation (the first one is an admin), lookup, settings and password changes."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from kmood_lib.accounts.passwords import PasswordHasher
from kmood_lib.core.db import transaction
from kmood_lib.core.errors import DomainError
from kmood_lib.core.i18n import N_, Phrase
from kmood_lib.core.text import has_surrogate, name_key
from kmood_lib.core.text import problem as text_problem

USERNAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MAX_USERNAME_LENGTH = 64
MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024
MAX_MOOD_LABEL = 32

# The five mood labels a new account starts with. A migration's trigger writes them in English
# when the account is made; one made in another language (the setup page, the household page)
# gets them in that language at once. A person's own labels are never changed afterwards.
DEFAULT_MOOD_LABELS = {5: N_("rad"), 4: N_("good"), 3: N_("meh"), 2: N_("bad"),
                       1: N_("awful")}


def default_mood_labels(gettext: Callable[[str], str]) -> dict[int, str]:
    """The default labels in a language (a Translator's gettext); one that would not fit a
    label stays English."""
    said = {}
    for level, english in DEFAULT_MOOD_LABELS.items():
        label = gettext(english).strip()
        said[level] = label if 0 < len(label) <= MAX_MOOD_LABEL and label.isprintable() else english
    return said


class AccountError(DomainError):
    """A request about an account that cannot be honoured; `field` names what was wrong and
    `status` the answer (409 for a taken name or the last admin, 404 once setup is done)."""

    def __init__(self, message: str, field: str | None = None, status: int = 422):
        super().__init__(message, {field: message} if field else None)
        self.field = field
        self.status = status


@dataclass(frozen=True)
class User:
    id: int
    username: str
    timezone: str
    is_admin: bool
    language: str | None = None  # the pages' language they chose; None: their browser's

    @classmethod
    def from_row(cls, row) -> User:
        return cls(row["id"], row["username"], row["timezone"], bool(row["is_admin"]),
                   row["language"])


def validate_username(username: object) -> str:
    if not isinstance(username, str) or not USERNAME_RE.match(username):
        raise AccountError(
            Phrase("username must be 1-64 letters, digits, '.', '_' or '-', starting with a"
                   " letter or digit"),
            "username",
        )
    return username


def validate_password(password: object, field: str = "password") -> str:
    if not isinstance(password, str) or not (
        MIN_PASSWORD_LENGTH <= len(password) <= MAX_PASSWORD_LENGTH
    ):
        raise AccountError(Phrase("password must be {min} to {max} characters",
                                  min=MIN_PASSWORD_LENGTH, max=MAX_PASSWORD_LENGTH), field)
    if has_surrogate(password):
        raise AccountError(Phrase("password must be valid Unicode"), field)
    return password


def validate_timezone(name: object, field: str = "timezone") -> str:
    if (not isinstance(name, str) or not name or len(name) > 64 or not name.isascii()
            or not name.isprintable() or name.startswith(("/", "."))):
        raise AccountError(Phrase("timezone must be an IANA name such as Europe/Berlin"), field)
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise AccountError(Phrase("unknown timezone {name}; use an IANA name such as"
                                  " Europe/Berlin", name=repr(name)), field) from None
    return name


# The password_hash of an account made at a first sign-in through a proxy or provider: no
# password matches it (authenticate never even compares), until an admin sets one.
NO_PASSWORD = "!"


def create_user(
    conn: sqlite3.Connection,
    username: str,
    password: str | None,
    *,
    now_ms: int,
    hasher: PasswordHasher,
    timezone: str = "UTC",
    admin: bool = False,
    only_if_no_users: bool = False,
    mood_labels: dict[int, str] | None = None,
    identity: tuple[str, str, str] | None = None,
    email: str | None = None,
) -> User:
    """Insert a user; the first user is always an admin. `only_if_no_users` guards /setup.
    `mood_labels` (default_mood_labels in the language the account is made in) replace the
    English defaults the new account starts with; without them it keeps those. A password of
    None: an account without one, made for the `identity` (method, issuer, subject) linked to
    it in the same transaction. `email`: the account's address, if given (validate_email)."""
    validate_username(username)
    email = validate_email(email)
    if password is not None or identity is None:
        validate_password(password)
    validate_timezone(timezone)
    password_hash = NO_PASSWORD if password is None else hasher.hash(password)  # slow: unlocked
    with transaction(conn):
        has_users = conn.execute("SELECT EXISTS (SELECT 1 FROM users)").fetchone()[0]
        if has_users and only_if_no_users:
            raise AccountError(Phrase("setup is finished: a user already exists"), None,
                               status=404)
        try:
            row = conn.execute(
                "INSERT INTO users (username, username_key, password_hash, timezone, is_admin,"
                " created_at, updated_at, email) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " RETURNING id, username, timezone, is_admin, language",
                (username, name_key(username), password_hash, timezone,
                 int(admin or not has_users), now_ms, now_ms, email),
            ).fetchall()[0]
        except sqlite3.IntegrityError:
            if email is not None and email_holder(conn, email) is not None:
                raise AccountError(EMAIL_TAKEN, "email", 409) from None
            raise AccountError(Phrase("username {name} is taken", name=repr(username)),
                               "username", 409) from None
        for level, label in (mood_labels or {}).items():
            conn.execute("UPDATE mood_labels SET label = ? WHERE user_id = ? AND level = ?"
                         " AND label IS NOT ?", (label, row["id"], level, label))
        if identity is not None:
            try:
                conn.execute("INSERT INTO identities (user_id, method, issuer, subject,"
                             " created_at) VALUES (?, ?, ?, ?, ?)", (row["id"], *identity, now_ms))
            except sqlite3.IntegrityError:  # linked to another account a moment ago
                raise AccountError(Phrase("{subject} is already linked to an account",
                                          subject=repr(identity[2])), None, 409) from None
    return User.from_row(row)


def count_users(conn: sqlite3.Connection) -> int:
    return conn.execute("SELECT count(*) FROM users").fetchone()[0]


def get_user(conn: sqlite3.Connection, user_id: int) -> User | None:
    row = conn.execute(
        "SELECT id, username, timezone, is_admin, language FROM users WHERE id = ?", (user_id,)
    ).fetchone()
    return User.from_row(row) if row else None


def authenticate(conn: sqlite3.Connection, username: str, password: str,
                 hasher: PasswordHasher) -> User | None:
    """The user if the password matches; an unknown user costs the same time as a wrong password.
    HasherBusy escapes when every hashing slot is taken."""
    row = conn.execute(
        "SELECT id, username, timezone, is_admin, language, password_hash FROM users"
        " WHERE username_key = ?", (name_key(username),),
    ).fetchone()
    if row is None or row["password_hash"] == NO_PASSWORD:
        hasher.burn(password)
        return None
    if not hasher.verify(password, row["password_hash"]):
        return None
    if hasher.needs_rehash(row["password_hash"]):  # cost raised since: upgrade quietly
        conn.execute("UPDATE users SET password_hash = ? WHERE id = ? AND password_hash = ?",
                     (hasher.hash(password), row["id"], row["password_hash"]))
    return User.from_row(row)


def profile(conn: sqlite3.Connection, user_id: int) -> dict:
    row = conn.execute(
        "SELECT id, username, timezone, is_admin, listenbrainz_user, lastfm_user, language,"
        " email, created_at"
        " FROM users WHERE id = ?", (user_id,),
    ).fetchone()
    return {
        "id": row["id"], "username": row["username"], "timezone": row["timezone"],
        "is_admin": bool(row["is_admin"]), "listenbrainz_user": row["listenbrainz_user"],
        "lastfm_user": row["lastfm_user"], "language": row["language"], "email": row["email"],
    }


MAX_EMAIL = 254
_EMAIL_RE = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")
EMAIL_TAKEN = Phrase("this email address is another account's")


def validate_email(value: object) -> str | None:
    """An email address as typed (space around it dropped), or None for none: one @, a dot in
    the domain, at most 254 characters, no control characters."""
    if value is None or value == "":
        return None
    if (not isinstance(value, str) or len(value.strip()) > MAX_EMAIL
            or not _EMAIL_RE.fullmatch(value.strip())
            or text_problem(value.strip(), name=True)):
        raise AccountError(Phrase("must be an email address such as ann@example.org, or empty"),
                           "email")
    return value.strip()


def email_holder(conn: sqlite3.Connection, email: str) -> int | None:
    """The account that has this address (ASCII case aside), if one has."""
    row = conn.execute("SELECT id FROM users WHERE lower(email) = lower(?) AND email IS NOT NULL",
                       (email,)).fetchone()
    return row["id"] if row else None


_INTEGRATION_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
SETTINGS_FIELDS = ("timezone", "listenbrainz_user", "lastfm_user", "language")


def validate_settings(changes: dict, languages: tuple[str, ...] = ()) -> dict:
    """Check a PATCH /api/me body (`language` one of `languages`, or null for the browser's);
    raise AccountError with every bad field named."""
    errors = {}
    unknown = sorted(set(changes) - set(SETTINGS_FIELDS))
    for name in unknown:
        errors[name] = Phrase("unknown or read-only field")
    clean = {}
    if "timezone" in changes:
        try:
            clean["timezone"] = validate_timezone(changes["timezone"])
        except AccountError as exc:
            errors["timezone"] = exc.message
    for name in ("listenbrainz_user", "lastfm_user"):
        if name in changes:
            value = changes[name]
            if value is None or value == "":
                clean[name] = None
            elif isinstance(value, str) and _INTEGRATION_RE.match(value):
                clean[name] = value
            else:
                errors[name] = Phrase("must be a username of 1-64 letters, digits, '.', '_',"
                                      " '-' or null")
    if "language" in changes:
        value = changes["language"]
        if value is None or value == "":
            clean["language"] = None
        elif isinstance(value, str) and value in languages:
            clean["language"] = value
        else:
            errors["language"] = Phrase("must be one of {codes} or null",
                                        codes=", ".join(languages))
    if errors:
        exc = AccountError(Phrase("invalid settings"))
        exc.fields = errors
        raise exc
    return clean


def update_settings(conn: sqlite3.Connection, user_id: int, clean: dict, now_ms: int) -> None:
    if not clean:
        return
    assignments = ", ".join(f"{name} = ?" for name in clean)  # names come from SETTINGS_FIELDS
    conn.execute(f"UPDATE users SET {assignments}, updated_at = ? WHERE id = ?",
                 (*clean.values(), now_ms, user_id))


def set_email(conn: sqlite3.Connection, user_id: int, email: object, now_ms: int) -> str | None:
    """An admin sets an account's email address (or clears it). Only an admin: single sign-on
    may link a first sign-in by it (KMOOD_SSO_LINK_BY_EMAIL), so a member who could claim
    another person's address could have that person's sign-in land in their own account."""
    clean = validate_email(email)
    try:
        conn.execute("UPDATE users SET email = ?, updated_at = ? WHERE id = ?",
                     (clean, now_ms, user_id))
    except sqlite3.IntegrityError:
        raise AccountError(EMAIL_TAKEN, "email", 409) from None
    return clean


def set_password_hash(conn: sqlite3.Connection, user_id: int, password_hash: str,
                      now_ms: int) -> None:
    """Store a hash made beforehand with PasswordHasher.hash (slow: never under the write lock)."""
    conn.execute("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?",
                 (password_hash, now_ms, user_id))


def list_users(conn: sqlite3.Connection) -> list[dict]:
    """Every account with how much it holds, for the admin's household page and the CLI."""
    rows = conn.execute(
        "SELECT u.id, u.username, u.timezone, u.is_admin, u.created_at, u.email,"
        " (SELECT count(*) FROM entries e WHERE e.user_id = u.id) AS entries"
        " FROM users u ORDER BY u.username_key").fetchall()
    return [dict(row) | {"is_admin": bool(row["is_admin"])} for row in rows]


def find_user(conn: sqlite3.Connection, username: str) -> User | None:
    row = conn.execute("SELECT id, username, timezone, is_admin, language FROM users"
                       " WHERE username_key = ?", (name_key(username),)).fetchone()
    return User.from_row(row) if row else None


def holdings(conn: sqlite3.Connection, user_id: int) -> dict[str, int]:
    """What deleting an account removes, counted, so the confirmation can name it."""
    row = conn.execute(
        "SELECT (SELECT count(*) FROM entries WHERE user_id = ?) AS entries,"
        " (SELECT count(*) FROM activities WHERE user_id = ?) AS activities,"
        " (SELECT count(*) FROM metrics WHERE user_id = ?) AS metrics,"
        " (SELECT count(*) FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL) AS tokens",
        (user_id,) * 4).fetchone()
    return dict(row)


def delete_user(conn: sqlite3.Connection, user_id: int) -> bool:
    """Delete an account and everything it holds (entries, vocabularies, sessions, tokens: the
    foreign keys cascade). The last admin cannot be deleted."""
    with transaction(conn):
        row = conn.execute("SELECT is_admin FROM users WHERE id = ?", (user_id,)).fetchone()
        if row is None:
            return False
        if row["is_admin"] and conn.execute(
                "SELECT count(*) FROM users WHERE is_admin = 1").fetchone()[0] == 1:
            raise AccountError(Phrase("this is the only admin; make someone else an admin"
                                      " first"), "username", 409)
        conn.execute("DELETE FROM users WHERE id = ?", (user_id,))
    return True
