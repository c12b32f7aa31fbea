"""The `song_metadata` job kind: songs whose (artist, title) has no lookup recorded yet, or
whose release's cover has not been asked for. One MusicBrainz search per distinct pair of name
keys (`songs.lookup_key`), shared by every song with that pair; one cover per release, stored
in the database and served by k-mood itself (`/covers/<release_mbid>`).

MusicBrainz allows one request a second from the whole deployment (see `polite`). A match
scoring below KMOOD_MUSICBRAINZ_MIN_SCORE, and a release with no cover, are results recorded
so the sweep does not ask again; anything else that goes wrong is retried by the queue.
"""

from __future__ import annotations

import logging

from kmood_lib.core.db import transaction
from kmood_lib.enrich.kind import enrichment_kind
from kmood_lib.queue.polite import wait_for_slot
from kmood_lib.queue.sweeps import JobKind

log = logging.getLogger(__name__)

KIND = "song_metadata"

# The lookup key of songs still waiting for their lookup, or for their release's cover.
_STRANDED = (
    "SELECT s.lookup_key FROM songs s WHERE s.lookup_key IS NOT NULL{entry}"
    " AND NOT EXISTS (SELECT 1 FROM song_lookups l WHERE l.lookup_key = s.lookup_key"
    "  AND (l.release_mbid IS NULL"
    "   OR EXISTS (SELECT 1 FROM covers c WHERE c.release_mbid = l.release_mbid)))"
)
_KEYS = ("SELECT 'song:' || s.lookup_key AS key, json_object('lookup_key', s.lookup_key)"
         " AS payload FROM ({stranded}) s GROUP BY s.lookup_key")

def song_metadata_kind(config) -> JobKind:
    return enrichment_kind(KIND, config.enrich_songs, _KEYS, _STRANDED, lambda now_ms: (),
                           handle_song, one_entry=" AND s.entry_id = ?")


def handle_song(ctx) -> None:
    services, conn = ctx.services, ctx.conn
    key = str(ctx.payload["lookup_key"])
    lookup = conn.execute("SELECT found, release_mbid FROM song_lookups WHERE lookup_key = ?",
                          (key,)).fetchone()
    match = None
    if lookup is None:
        song = conn.execute("SELECT artist, title FROM songs WHERE lookup_key = ?"
                            " ORDER BY entry_id LIMIT 1", (key,)).fetchone()
        if song is None:  # every song with this key was removed meanwhile
            with ctx.completing():
                return
        wait_for_slot(ctx, "musicbrainz")
        match = services.musicbrainz.search(song["artist"], song["title"],
                                            services.config.musicbrainz_min_score)
        release = match and match["release_mbid"]
    else:
        release = lookup["release_mbid"]
    wants_cover = release is not None and conn.execute(
        "SELECT 1 FROM covers WHERE release_mbid = ?", (release,)).fetchone() is None
    try:
        cover = services.coverart.front(release) if wants_cover else None
    except Exception:
        if lookup is None:  # keep the lookup: the retry asks only for the cover
            with transaction(conn):
                record_lookup(conn, key, match, services.clock.now_ms())
        raise
    with ctx.completing() as conn:
        if lookup is None:
            record_lookup(conn, key, match, services.clock.now_ms())
        if wants_cover:
            conn.execute("INSERT OR IGNORE INTO covers (release_mbid, content_type, image,"
                         " fetched_at) VALUES (?, ?, ?, ?)",
                         (release, cover and cover[0], cover and cover[1],
                          services.clock.now_ms()))
    log.info("song %s: %s%s", key,
             "known" if lookup else (f"recording {match['recording_mbid']}" if match
                                     else "not found"),
             "" if not wants_cover else (", cover stored" if cover else ", no cover"))


def record_lookup(conn, key: str, match: dict | None, now_ms: int) -> None:
    m = match or {}
    conn.execute(
        "INSERT OR IGNORE INTO song_lookups (lookup_key, found, recording_mbid, release_mbid,"
        " release_title, release_date, length_ms, score, fetched_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (key, int(match is not None), m.get("recording_mbid"), m.get("release_mbid"),
         m.get("release_title"), m.get("release_date"), m.get("length_ms"), m.get("score"),
         now_ms))


def cover_of(conn, user_id: int, release_mbid: str) -> tuple[str, bytes] | None:
    """A stored cover, only for a user with a song on that release (no one else's listening
    shows through), as (content type, image)."""
    row = conn.execute(
        "SELECT c.content_type, c.image FROM covers c WHERE c.release_mbid = ?"
        " AND c.image IS NOT NULL AND EXISTS (SELECT 1 FROM song_lookups l"
        "  JOIN songs s ON s.lookup_key = l.lookup_key JOIN entries e ON e.id = s.entry_id"
        "  WHERE l.release_mbid = c.release_mbid AND e.user_id = ?)",
        (release_mbid, user_id)).fetchone()
    return None if row is None else (row["content_type"], bytes(row["image"]))
