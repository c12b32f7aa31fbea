"""What a person's photos and voice memos take in the database, and the storage quota
(KMOOD_STORAGE_QUOTA_BYTES) they are kept within: a photo's bytes count once however many
entries show it (photo_files are kept once per person, migration 0026)."""

from __future__ import annotations

import json
import sqlite3

from kmood_lib.core.errors import TooLarge
from kmood_lib.core.i18n import Phrase


class QuotaExceeded(TooLarge):
    """More than the person's storage quota would be in use."""


def used_bytes(conn: sqlite3.Connection, user_id: int) -> int:
    """Bytes of the person's photos (each size once) and voice memos. length() of a BLOB
    reads its size from the row's header, never the bytes."""
    return conn.execute(
        "SELECT (SELECT coalesce(sum(length(data)), 0) FROM photo_files WHERE user_id = ?)"
        " + (SELECT coalesce(sum(length(m.data)), 0) FROM voice_memos m"
        "    JOIN entries e ON e.id = m.entry_id WHERE e.user_id = ?)",
        (user_id, user_id)).fetchone()[0]


def photo_hashes(conn: sqlite3.Connection, user_id: int, hashes: list[str]) -> set[str]:
    """Which of these uploads' hashes the person already has stored."""
    if not hashes:
        return set()
    return {row[0] for row in conn.execute(
        "SELECT DISTINCT sha256 FROM photo_files WHERE user_id = ?"
        " AND sha256 IN (SELECT value FROM json_each(?))", (user_id, json.dumps(hashes)))}


def check_quota(conn: sqlite3.Connection, user_id: int, quota_bytes: int, adding: int) -> None:
    """QuotaExceeded (413) when `adding` more bytes would take the person past their quota
    (0: none)."""
    if not quota_bytes or adding <= 0:
        return
    used = used_bytes(conn, user_id)
    if used + adding > quota_bytes:
        left = max(0, quota_bytes - used)
        raise QuotaExceeded(
            Phrase("this would take your photos and voice memos past your storage quota of"
                   " {quota} ({used} used, {left} left; this needs {needed}): remove some"
                   " photos, or ask the admin to raise {setting}", quota=megabytes(quota_bytes),
                   used=megabytes(used), left=megabytes(left), needed=megabytes(adding),
                   setting="KMOOD_STORAGE_QUOTA_BYTES"),
            {"photo": Phrase("over the storage quota of {quota}", quota=megabytes(quota_bytes))})


def summary(conn: sqlite3.Connection, user_id: int, quota_bytes: int) -> dict:
    """What Settings shows: bytes used, the quota (None: no quota) and what is left."""
    used = used_bytes(conn, user_id)
    return {"used_bytes": used, "quota_bytes": quota_bytes or None,
            "left_bytes": max(0, quota_bytes - used) if quota_bytes else None}


def megabytes(n: int) -> str:
    """A size as people read it: 640 kB, 3.2 MB, 52 MB."""
    if n < 1_000_000:
        return f"{n / 1000:.0f} kB"
    return f"{n / 1_000_000:.1f} MB" if n < 10_000_000 else f"{n / 1_000_000:.0f} MB"


class Allowance:
    """What is left of a person's quota while an import stages their files, taken file by
    file; a photo they already have takes nothing (it is stored once)."""

    def __init__(self, conn: sqlite3.Connection, user_id: int, quota_bytes: int) -> None:
        self.conn, self.user_id, self.quota = conn, user_id, quota_bytes
        self.left = max(0, quota_bytes - used_bytes(conn, user_id)) if quota_bytes else None
        self.seen: set[str] = set()

    @property
    def full(self) -> str:
        return f"the storage quota of {megabytes(self.quota)} is reached"

    def take(self, size: int, photo_sha256: str | None = None) -> bool:
        """Whether `size` more bytes fit; if so they are counted."""
        if self.left is None:
            return True
        if photo_sha256 is not None and (photo_sha256 in self.seen or photo_hashes(
                self.conn, self.user_id, [photo_sha256])):
            return True
        if size > self.left:
            return False
        self.left -= size
        if photo_sha256 is not None:
            self.seen.add(photo_sha256)
        return True
