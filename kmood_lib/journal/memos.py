"""Voice memos of an entry (issue #26): audio as it came from a Daylio backup (or a k-mood
export), recognised by its first bytes, stored in SQLite beside the entry (migration 0023)
and served only to the entry's owner, to play in the browser."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from kmood_lib.core.blobs import BlobReader, open_blob
from kmood_lib.core.errors import NotFound, TooLarge, UnsupportedMedia
from kmood_lib.core.i18n import Phrase

MAX_BYTES = 32 * 1024 * 1024  # one memo (a long one: AAC at 64 kbit/s for an hour is 29 MB)
EXTENSIONS = {"audio/mp4": "m4a", "audio/mpeg": "mp3", "audio/ogg": "ogg", "audio/wav": "wav",
              "audio/3gpp": "3gp", "audio/amr": "amr", "audio/webm": "webm"}


@dataclass(frozen=True)
class Memo:
    sha256: str
    content_type: str
    data: bytes


def kind_of(data: bytes) -> str | None:
    """The audio type a file's first bytes say, or None: not audio this knows."""
    if data[4:8] == b"ftyp":
        return "audio/3gpp" if data[8:11] == b"3gp" else "audio/mp4"
    if data[:3] == b"ID3" or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    if data[:4] == b"OggS":
        return "audio/ogg"
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data[:5] == b"#!AMR":
        return "audio/amr"
    if data[:4] == b"\x1a\x45\xdf\xa3":
        return "audio/webm"
    return None


def prepare(data: bytes, name: str = "memo") -> Memo:
    if len(data) > MAX_BYTES:
        raise TooLarge(Phrase("{name} is {size} bytes; a memo may be {limit}", name=name,
                              size=len(data), limit=MAX_BYTES),
                       {"memo": Phrase("too large")})
    kind = kind_of(data)
    if kind is None:
        raise UnsupportedMedia(Phrase("{name} is not audio this server knows (M4A, MP3, Ogg,"
                                      " WAV, 3GP, AMR or WebM)", name=name),
                               {"memo": Phrase("not audio")})
    return Memo(hashlib.sha256(data).hexdigest(), kind, data)


def open_file(connect: Callable[[], sqlite3.Connection], user_id: int, memo_id: int
              ) -> tuple[str, str, BlobReader]:
    """(content type, ETag, a reader of the bytes) of one of the user's memos, read on a
    connection of the reader's own (blobs.open_blob): a memo is never copied into memory
    whole. The caller closes the reader."""
    found = open_blob(connect, "voice_memos", "data",
                      "SELECT m.id, m.content_type, m.sha256 FROM voice_memos m JOIN entries e"
                      " ON e.id = m.entry_id WHERE m.id = ? AND e.user_id = ?",
                      (memo_id, user_id))
    if found is None:
        raise NotFound("voice memo")
    row, reader = found
    return row[1], f'"{row[2][:32]}"', reader
