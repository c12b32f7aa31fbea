"""An uploaded file kept between its dry-run report and the person's confirm (the upload
page): at most one per person, for a day; the file itself is read only when it is imported.
Its reports keep their Phrases (portability.counted), for the page to say them."""

from __future__ import annotations

import json
import secrets

from kmood_lib.core.db import transaction
from kmood_lib.portability.counted import keepable, restored

PENDING_TTL_MS = 24 * 3600 * 1000


def stash_upload(conn, user_id: int, data: bytes, mood_map: dict[str, int], preview: dict,
                 now_ms: int) -> str:
    """Keep an uploaded file, read once already (`preview` is its dry-run report), between
    that report and the user's confirm. A user has at most one pending import: a new upload
    replaces the last. Returns its token."""
    token = secrets.token_urlsafe(18)
    with transaction(conn):
        conn.execute("DELETE FROM pending_imports WHERE created_at < ? OR user_id = ?",
                     (now_ms - PENDING_TTL_MS, user_id))
        rowid = conn.execute(
            "INSERT INTO pending_imports (token, user_id, data, mood_map, preview, created_at)"
            " VALUES (?, ?, zeroblob(?), ?, ?, ?) RETURNING rowid",
            (token, user_id, len(data), json.dumps(mood_map), json.dumps(keepable(preview)),
             now_ms)
        ).fetchall()[0][0]
        if data:  # written into its pages as it is, not copied whole first
            with conn.blobopen("pending_imports", "data", rowid) as blob:
                blob.write(data)
    return token


def stashed_upload(conn, user_id: int, token: str) -> dict | None:
    """{"mood_map", "preview", "report"} of this user's pending upload, or None; the file
    itself is read only by `stashed_file`, when it is imported."""
    row = conn.execute("SELECT mood_map, preview, report FROM pending_imports WHERE token = ?"
                       " AND user_id = ?", (token, user_id)).fetchone()
    if row is None:
        return None
    return {"mood_map": json.loads(row["mood_map"]),
            "preview": restored(json.loads(row["preview"])) if row["preview"] else None,
            "report": restored(json.loads(row["report"])) if row["report"] else None}


def stashed_file(conn, user_id: int, token: str) -> bytes:
    row = conn.execute("SELECT data FROM pending_imports WHERE token = ? AND user_id = ?",
                       (token, user_id)).fetchone()
    return row["data"] if row is not None else b""


def finish_upload(conn, user_id: int, token: str, report: dict) -> None:
    """Keep the result to show, drop the file."""
    conn.execute("UPDATE pending_imports SET data = x'', report = ? WHERE token = ?"
                 " AND user_id = ?", (json.dumps(keepable(report)), token, user_id))


def drop_upload(conn, user_id: int, token: str) -> bool:
    """Cancel a pending import: the file goes; False when there was none of this user's."""
    return conn.execute("DELETE FROM pending_imports WHERE token = ? AND user_id = ?",
                        (token, user_id)).rowcount == 1
