"""The ways into an account besides its password (SPEC §14): the user name a trusted sign-in
proxy vouches for, each linked to one account. Linked once — by an admin in Household, or at
a first sign-in when the deployment lets newcomers in (KMOOD_SSO_AUTO_CREATE) — an identity
is then found by exactly what the proxy says, never matched to an account by its name."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from kmood_lib.accounts import users
from kmood_lib.accounts.auth import note_use
from kmood_lib.accounts.users import AccountError, User
from kmood_lib.core.db import transaction
from kmood_lib.core.errors import Conflict, NotFound
from kmood_lib.core.i18n import Phrase

log = logging.getLogger(__name__)

PROXY = "proxy"  # method; a deployment has one sign-in proxy, so its issuer is ""
OIDC = "oidc"  # method; the issuer is the OpenID provider's, the subject its `sub`
MAX_SUBJECT = 255
MAX_GROUPS = 1000


SUBJECT_RULE = Phrase("a user name of 1-{n} characters, without line breaks or spaces around it",
                      n=MAX_SUBJECT)


@dataclass(frozen=True)
class Newcomers:
    """What a first sign-in by an identity no account holds may do: make an account (a member;
    an admin's when in `admin_group`), only for people in `member_group` when one is set."""

    auto_create: bool = False
    member_group: str = ""
    admin_group: str = ""
    link_by_email: bool = False  # a verified address links the account that has it

    @classmethod
    def from_config(cls, config) -> Newcomers:
        return cls(config.sso_auto_create, config.sso_member_group, config.sso_admin_group,
                   config.sso_link_by_email)


@dataclass(frozen=True)
class Unlinked:
    """A sign-in the proxy vouched for that no account holds and that may not make one: said
    to the person (and in the log) with why."""

    subject: str
    reason: str  # "not linked" | "not in the group" | "name taken" | "name invalid"
    method: str = PROXY


def clean_subject(value: object) -> str | None:
    """What a proxy or an admin names an identity by: 1-255 characters, none of them control
    characters, no space around it; else None."""
    if (not isinstance(value, str) or not value or len(value) > MAX_SUBJECT
            or value != value.strip()
            or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF
                   for c in value)):
        return None
    return value


def groups_of(value: str | None) -> frozenset[str]:
    """A groups header (`admins, family`) as a set of names, at most MAX_GROUPS of them."""
    if not value:
        return frozenset()
    return frozenset(g.strip() for g in value.split(",", MAX_GROUPS)[:MAX_GROUPS] if g.strip())


def user_for(conn: sqlite3.Connection, method: str, issuer: str, subject: str, now_ms: int
             ) -> User | None:
    """The account linked to the identity; notes when it was last used (once a minute)."""
    row = conn.execute(
        "SELECT i.id AS identity_id, i.last_used_at, u.id, u.username, u.timezone, u.is_admin,"
        " u.language FROM identities i JOIN users u ON u.id = i.user_id"
        " WHERE i.method = ? AND i.issuer = ? AND i.subject = ?", (method, issuer, subject)
    ).fetchone()
    if row is None:
        return None
    note_use(conn, "identities", row["identity_id"], row["last_used_at"], now_ms)
    return User.from_row(row)


def sign_in(conn: sqlite3.Connection, method: str, issuer: str, subject: str,
            groups: frozenset[str], newcomers: Newcomers, now_ms: int,
            mood_labels: Callable[[], dict[int, str]], name: str | None = None,
            verified_email: str | None = None) -> tuple[User | None, Unlinked | None]:
    """The account the identity signs in to: the one linked to it; else, when `newcomers`
    links by email, the account with `verified_email` (an address the provider has verified),
    linked now unless it is linked to another identity of this method already; else one made
    now if `newcomers` allows it (named `name`, else as the identity, with the default mood
    labels `mood_labels` gives); else None and why not."""
    user = user_for(conn, method, issuer, subject, now_ms)
    if user is not None:
        return user, None
    if newcomers.link_by_email and verified_email:
        user = _link_by_email(conn, method, issuer, subject, verified_email, now_ms)
        if user is not None:
            return user, None

    def refused(reason: str) -> tuple[None, Unlinked]:
        return None, Unlinked(subject, reason, method)

    if not newcomers.auto_create:
        return refused("not linked")
    if newcomers.member_group and newcomers.member_group not in groups:
        return refused("not in the group")
    username = subject if name is None and method == PROXY else name
    try:
        users.validate_username(username or "")
    except AccountError:
        return refused("name invalid")
    admin = bool(newcomers.admin_group) and newcomers.admin_group in groups
    if newcomers.admin_group and not admin and users.count_users(conn) == 0:
        return refused("not in the group")  # the first account is the admin's
    try:
        made = users.create_user(conn, username, None, now_ms=now_ms, hasher=None, admin=admin,
                                 mood_labels=mood_labels(), identity=(method, issuer, subject))
        user_for(conn, method, issuer, subject, now_ms)  # used now: its first sign-in
    except AccountError:  # the name is taken: by another account, or by this one a moment ago
        user = user_for(conn, method, issuer, subject, now_ms)
        return (user, None) if user is not None else refused("name taken")
    return made, None


def _link_by_email(conn: sqlite3.Connection, method: str, issuer: str, subject: str,
                   email: str, now_ms: int) -> User | None:
    """Link the identity to the account that has this address, if that account has no
    identity of this method yet (one way in per method: an address never moves a link)."""
    holder = users.email_holder(conn, email)
    if holder is None or subject_of(conn, holder, method) is not None:
        return None
    try:
        link(conn, holder, method, issuer, subject, now_ms)
    except (Conflict, NotFound, AccountError):  # linked a moment ago, or gone
        return user_for(conn, method, issuer, subject, now_ms)
    user = user_for(conn, method, issuer, subject, now_ms)
    if user is not None:
        log.info("sign-in method=%s linked user=%s by the verified email address", method,
                 user.username)
    return user


def link(conn: sqlite3.Connection, user_id: int, method: str, issuer: str, subject: object,
         now_ms: int) -> int:
    """An admin links an identity to an account (one per way in: a person has one name at
    the proxy); refused when another account holds it."""
    clean = clean_subject(subject)
    if clean is None:
        raise AccountError(SUBJECT_RULE, "subject")
    with transaction(conn):
        held = conn.execute("SELECT subject FROM identities WHERE user_id = ? AND method = ?"
                            " AND issuer = ?", (user_id, method, issuer)).fetchone()
        if held is not None:
            if held["subject"] == clean:  # linked already: nothing to change
                return conn.execute("SELECT id FROM identities WHERE user_id = ? AND method = ?"
                                    " AND issuer = ?", (user_id, method, issuer)).fetchone()[0]
            said = Phrase("this account is already linked to {subject}: unlink that first",
                          subject=repr(held["subject"]))
            raise Conflict(said, {"subject": said})
        try:
            return conn.execute(
                "INSERT INTO identities (user_id, method, issuer, subject, created_at)"
                " VALUES (?, ?, ?, ?, ?) RETURNING id", (user_id, method, issuer, clean, now_ms)
            ).fetchall()[0][0]
        except sqlite3.IntegrityError:  # held by an account (or the account is gone)
            holder = conn.execute(
                "SELECT u.username FROM identities i JOIN users u ON u.id = i.user_id"
                " WHERE i.method = ? AND i.issuer = ? AND i.subject = ?",
                (method, issuer, clean)).fetchone()
    if holder is None:
        raise NotFound("account")
    said = Phrase("{subject} is already linked to {name}", subject=repr(clean),
                  name=holder["username"])
    raise Conflict(said, {"subject": said})


def unlink(conn: sqlite3.Connection, user_id: int, identity_id: int, now_ms: int
           ) -> int | None:
    """Drop one of the account's identities and end what it let in: the account's sessions
    (they would outlive the link for KMOOD_SESSION_TTL_S) and its API tokens (made by whoever
    the link let in). How many sessions ended; None if there is no such identity."""
    with transaction(conn):
        if not conn.execute("DELETE FROM identities WHERE id = ? AND user_id = ?",
                            (identity_id, user_id)).rowcount:
            return None
        conn.execute("UPDATE api_tokens SET revoked_at = ? WHERE user_id = ?"
                     " AND revoked_at IS NULL", (now_ms, user_id))
        return conn.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,)).rowcount


def unlink_all(conn: sqlite3.Connection, user_id: int, method: str, now_ms: int) -> int | None:
    """unlink() for the account's identity of `method` (the command line's way)."""
    row = conn.execute("SELECT id FROM identities WHERE user_id = ? AND method = ?",
                       (user_id, method)).fetchone()
    return None if row is None else unlink(conn, user_id, row["id"], now_ms)


def subject_of(conn: sqlite3.Connection, user_id: int, method: str) -> str | None:
    """What the account's identity of `method` is called there, if it has one."""
    row = conn.execute("SELECT subject FROM identities WHERE user_id = ? AND method = ?",
                       (user_id, method)).fetchone()
    return row["subject"] if row else None


def by_user(conn: sqlite3.Connection) -> dict[int, list[dict]]:
    """Every account's linked identities, oldest first, for the household page."""
    out: dict[int, list[dict]] = {}
    for row in conn.execute("SELECT id, user_id, method, issuer, subject, created_at,"
                            " last_used_at FROM identities ORDER BY user_id, id"):
        out.setdefault(row["user_id"], []).append(dict(row))
    return out
