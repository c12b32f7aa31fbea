"""Passkeys (SPEC §14): WebAuthn credentials an account signs in with instead of its password.

The relying party is k-mood at KMOOD_PUBLIC_URL (its host is the RP ID, its origin the only
one a ceremony may come from). Registration and sign-in are two steps each: options with a
new challenge (kept as a sign-in under way: single-use, short-lived, bound to the browser),
then the browser's answer, verified by py_webauthn against that challenge, the RP ID and the
origin; a sign-in also against the credential's public key and signature counter. py_webauthn
(requirements-sso.txt) is imported when passkeys are on (KMOOD_PASSKEYS), not before.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import urllib.parse
from dataclasses import dataclass

from kmood_lib.accounts.auth import note_use
from kmood_lib.accounts.users import NO_PASSWORD, User
from kmood_lib.core.db import transaction
from kmood_lib.core.errors import Conflict, SignInRefused
from kmood_lib.core.i18n import Phrase

MAX_NAME = 64
MAX_PER_USER = 20  # a person's phones, laptops and keys, with room to spare
MAX_CREDENTIAL_ID = 1023  # bytes (WebAuthn's own limit)
MAX_PUBLIC_KEY = 2048  # bytes of COSE key: RSA-4096 fits, with room
TRANSPORTS = {"usb", "nfc", "ble", "internal", "hybrid", "smart-card"}
CHALLENGE_TTL_S = 300  # time to answer the browser's prompt
TIMEOUT_MS = 120_000  # how long the browser offers it


@dataclass(frozen=True)
class Passkey:
    id: int
    user_id: int
    public_key: bytes
    sign_count: int
    last_used_at: int | None


def user_handle(conn: sqlite3.Connection, user_id: int) -> bytes:
    """The random handle the account's passkeys keep for it, made at its first passkey."""
    handle = secrets.token_bytes(32)
    conn.execute("UPDATE users SET passkey_user_id = ? WHERE id = ? AND passkey_user_id IS NULL",
                 (handle, user_id))
    return conn.execute("SELECT passkey_user_id FROM users WHERE id = ?",
                        (user_id,)).fetchone()[0]


def list_passkeys(conn: sqlite3.Connection, user_id: int) -> list[dict]:
    return [dict(row) for row in conn.execute(
        "SELECT id, name, created_at, last_used_at FROM passkeys WHERE user_id = ? ORDER BY id",
        (user_id,))]


def credential_ids(conn: sqlite3.Connection, user_id: int) -> list[bytes]:
    return [row[0] for row in conn.execute(
        "SELECT credential_id FROM passkeys WHERE user_id = ?", (user_id,))]


def add_passkey(conn: sqlite3.Connection, user_id: int, name: str, credential_id: bytes,
                public_key: bytes, sign_count: int, transports: list[str], now_ms: int) -> int:
    with transaction(conn):
        held = conn.execute("SELECT count(*) FROM passkeys WHERE user_id = ?",
                            (user_id,)).fetchone()[0]
        if held >= MAX_PER_USER:
            said = Phrase("at most {n} passkeys per account: remove one first", n=MAX_PER_USER)
            raise Conflict(said, {"name": said})
        try:
            return conn.execute(
                "INSERT INTO passkeys (user_id, credential_id, public_key, sign_count, name,"
                " transports, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (user_id, credential_id, public_key, sign_count, name, json.dumps(transports),
                 now_ms)).fetchall()[0][0]
        except sqlite3.IntegrityError:
            said = Phrase("this passkey is registered already")
            raise Conflict(said, {"name": said}) from None


def find(conn: sqlite3.Connection, credential_id: bytes) -> tuple[Passkey, User, bytes] | None:
    """The passkey with this credential id, its account, and the account's handle."""
    row = conn.execute(
        "SELECT p.id AS passkey_id, p.public_key, p.sign_count, p.last_used_at,"
        " u.id, u.username, u.timezone, u.is_admin, u.language, u.passkey_user_id"
        " FROM passkeys p JOIN users u ON u.id = p.user_id WHERE p.credential_id = ?",
        (credential_id,)).fetchone()
    if row is None:
        return None
    return (Passkey(row["passkey_id"], row["id"], row["public_key"], row["sign_count"],
                    row["last_used_at"]), User.from_row(row), row["passkey_user_id"])


def used(conn: sqlite3.Connection, passkey: Passkey, sign_count: int, now_ms: int) -> bool:
    """Note a sign-in: the counter moves on only forwards (one statement: two sign-ins with
    the same counter at once cannot both pass); False if another got there first."""
    if sign_count == 0 and passkey.sign_count == 0:  # an authenticator that keeps no counter
        note_use(conn, "passkeys", passkey.id, passkey.last_used_at, now_ms)
        return True
    return conn.execute("UPDATE passkeys SET sign_count = ?, last_used_at = ? WHERE id = ?"
                        " AND sign_count < ?", (sign_count, now_ms, passkey.id,
                                                sign_count)).rowcount == 1


def ways_in(conn: sqlite3.Connection, user_id: int, methods: tuple[str, ...] = (),
            passkeys_on: bool = True) -> dict[str, int]:
    """What the account can sign in with now: a password (0/1), passkeys (when they are on),
    and identities of the sign-in `methods` this server has on (a proxy's, the provider's)."""
    marks = ",".join("?" * len(methods))
    row = conn.execute(
        "SELECT password_hash != ? AS password,"
        " (SELECT count(*) FROM passkeys WHERE user_id = u.id) AS passkeys,"
        f" (SELECT count(*) FROM identities WHERE user_id = u.id AND method IN ({marks}))"
        " AS identities FROM users u WHERE u.id = ?", (NO_PASSWORD, *methods, user_id)
    ).fetchone()
    return {"password": row["password"], "passkeys": row["passkeys"] if passkeys_on else 0,
            "identities": row["identities"]}


def remove_passkey(conn: sqlite3.Connection, user_id: int, passkey_id: int,
                   password_login: bool, methods: tuple[str, ...],
                   keep_session_id: int | None = None) -> bool:
    """Remove one of the account's passkeys and end the sessions it signed in (a lost phone
    is signed out; not `keep_session_id`, the browser removing it), unless it is the account's
    last way in (no password that may be used, no other passkey, no linked sign-in of
    `methods`); False if there is no such passkey."""
    with transaction(conn):
        if not conn.execute("SELECT 1 FROM passkeys WHERE id = ? AND user_id = ?",
                            (passkey_id, user_id)).fetchone():
            return False
        left = ways_in(conn, user_id, methods)
        if (left["passkeys"] <= 1 and not left["identities"]
                and not (left["password"] and password_login)):
            said = Phrase("this passkey is your only way in: set a password or add another"
                          " passkey first")
            raise Conflict(said, {"passkey": said})
        conn.execute("DELETE FROM passkeys WHERE id = ? AND user_id = ?", (passkey_id, user_id))
        conn.execute("DELETE FROM sessions WHERE passkey_id = ? AND user_id = ? AND id IS NOT ?",
                     (passkey_id, user_id, keep_session_id))
    return True


def turn_password_off(conn: sqlite3.Connection, user_id: int, now_ms: int,
                      methods: tuple[str, ...]) -> None:
    """The account signs in without its password from now on: only with a passkey or a linked
    sign-in of `methods`, which it must have."""
    with transaction(conn):
        left = ways_in(conn, user_id, methods)
        if not left["passkeys"] and not left["identities"]:
            said = Phrase("add a passkey (or link single sign-on) before turning the password"
                          " off")
            raise Conflict(said, {"password": said})
        conn.execute("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?",
                     (NO_PASSWORD, now_ms, user_id))


class RelyingParty:
    """k-mood as a WebAuthn relying party at `public_url`: ceremonies' options and the
    verification of the browser's answers (py_webauthn, imported here)."""

    def __init__(self, public_url: str, name: str = "k-mood"):
        import webauthn
        from webauthn.helpers import exceptions, structs

        parts = urllib.parse.urlsplit(public_url)
        self.rp_id = parts.hostname  # lower-cased, as browsers send it
        default = {"https": 443, "http": 80}[parts.scheme]
        self.origin = f"{parts.scheme}://{self.rp_id}" + (
            f":{parts.port}" if parts.port not in (None, default) else "")
        self.name = name
        self._webauthn, self._structs, self._errors = webauthn, structs, exceptions

    def registration_options(self, handle: bytes, username: str,
                             existing: list[bytes]) -> tuple[str, bytes]:
        """(options as JSON for the browser, the challenge to keep)."""
        structs = self._structs
        options = self._webauthn.generate_registration_options(
            rp_id=self.rp_id, rp_name=self.name, user_id=handle, user_name=username,
            timeout=TIMEOUT_MS,
            authenticator_selection=structs.AuthenticatorSelectionCriteria(
                resident_key=structs.ResidentKeyRequirement.REQUIRED,
                user_verification=structs.UserVerificationRequirement.REQUIRED),
            exclude_credentials=[structs.PublicKeyCredentialDescriptor(id=c) for c in existing])
        return self._webauthn.options_to_json(options), options.challenge

    def verify_registration(self, credential: object, challenge: bytes):
        """The new credential (id, public key, counter), or SignInRefused. The authenticator
        must have verified its user (a screen lock, a PIN): a passkey may be the only way in."""
        try:
            made = self._webauthn.verify_registration_response(
                credential=credential, expected_challenge=challenge,
                expected_rp_id=self.rp_id, expected_origin=self.origin,
                require_user_verification=True)
        except (self._errors.WebAuthnException, ValueError, TypeError, KeyError) as exc:
            raise SignInRefused(f"registration: {exc}"[:300]) from None
        if len(made.credential_id) > MAX_CREDENTIAL_ID:
            raise SignInRefused("registration: a credential id longer than WebAuthn allows")
        if len(made.credential_public_key) > MAX_PUBLIC_KEY:
            raise SignInRefused("registration: a public key larger than any k-mood accepts")
        return made

    def sign_in_options(self) -> tuple[str, bytes]:
        """Options for a discoverable sign-in: any passkey the browser holds for k-mood."""
        options = self._webauthn.generate_authentication_options(
            rp_id=self.rp_id, timeout=TIMEOUT_MS,
            user_verification=self._structs.UserVerificationRequirement.REQUIRED)
        return self._webauthn.options_to_json(options), options.challenge

    def verify_sign_in(self, credential: object, challenge: bytes, passkey: Passkey):
        try:
            return self._webauthn.verify_authentication_response(
                credential=credential, expected_challenge=challenge,
                expected_rp_id=self.rp_id, expected_origin=self.origin,
                credential_public_key=passkey.public_key,
                credential_current_sign_count=passkey.sign_count,
                require_user_verification=True)
        except (self._errors.WebAuthnException, ValueError, TypeError, KeyError) as exc:
            raise SignInRefused(f"sign-in: {exc}"[:300]) from None

    def parse_sign_in(self, credential: object) -> tuple[bytes, bytes | None]:
        """The credential id (raw) and user handle an answer names, before it is verified."""
        try:
            parsed = self._webauthn.helpers.parse_authentication_credential_json(credential)
        except (self._errors.WebAuthnException, ValueError, TypeError, KeyError) as exc:
            raise SignInRefused(f"sign-in: {exc}"[:300]) from None
        return parsed.raw_id, parsed.response.user_handle
