"""Photos of an entry (issues #26, #36): checked, turned upright and cleaned before a
transaction begins, stored once per person in SQLite (migration 0026), served only to their owner.

1. `prepare(source, limits)` reads an upload (a file or bytes) with Pillow: only JPEG (MPO
   too), PNG and WebP. The pixel count is checked from the header before anything is decoded;
   then the memory the decoding will take is worked out from the header
   (photo_pixels.decode_cost) and reserved from the process's MemoryBudget, so the server's
   peak memory is bounded whatever arrives at once. A JPEG is decoded at the size kept
   (libjpeg's DCT scaling); any image is brought down to FULL_SIDE in horizontal strips, so
   besides the decoded image only a strip and the result are ever in memory. Animated images
   keep their first frame.
2. What is stored holds the pixels and the few parts needed to show them: a file that is
   upright, in plain colours and no larger than FULL_SIDE is rebuilt from an allow-list of its
   segments or chunks (journal.image_files: nothing is re-encoded, no generation lost);
   anything else is re-encoded from its pixels. A THUMB_SIDE thumbnail is made either way.
3. `add(conn, ...)` writes prepared photos inside the caller's short transaction: a photo's
   bytes are kept once per person (photo_files by the upload's SHA-256), however many entries
   show it, and count against the storage quota (journal.storage).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

from PIL import Image, PngImagePlugin

from kmood_lib.core.blobs import BlobReader, open_blob
from kmood_lib.core.budget import MemoryBudget
from kmood_lib.core.errors import NotFound, TooLarge, UnsupportedMedia, ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.journal import image_files, photo_pixels, storage
from kmood_lib.journal.photo_pixels import FORMATS, decode_cost, fitted, keepable

CHUNK = 64 * 1024

# Text in a PNG is never kept; Pillow still reads it at open, up to these sizes (its defaults,
# 1 MB a chunk and 64 MB in all, would let a small file hold 64 MB per request before decoding).
PngImagePlugin.MAX_TEXT_CHUNK = 256 * 1024
PngImagePlugin.MAX_TEXT_MEMORY = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    max_bytes: int  # one photo as uploaded
    per_entry: int  # photos on one entry
    max_pixels: int  # width x height as the file says
    budget: MemoryBudget | None = None  # memory decoding may take, the whole process together
    quota_bytes: int = 0  # photos and voice memos of one person (0: no quota)


DEFAULT_LIMITS = Limits(32 * 1024 * 1024, 6, 200_000_000)  # the KMOOD_PHOTO_* defaults


def limits_of(config, budget: MemoryBudget | None) -> Limits:
    """The limits KMOOD_PHOTO_*, _PHOTOS_PER_ENTRY and _STORAGE_QUOTA_BYTES set."""
    return Limits(config.photo_max_bytes, config.photos_per_entry, config.photo_max_pixels,
                  budget, config.storage_quota_bytes)


@dataclass(frozen=True)
class Prepared(photo_pixels.Encoded):
    """A photo ready to store: the cleaned full-size copy and its thumbnail (as encoded), and
    its upload's hash, by which a person keeps it once."""

    sha256: str = ""

    @property
    def stored_bytes(self) -> int:
        return len(self.data) + len(self.thumb)

    @classmethod
    def of(cls, digest: str, encoded: photo_pixels.Encoded) -> Prepared:
        return cls(**vars(encoded), sha256=digest)


def prepare(source: BinaryIO | bytes, limits: Limits, name: str = "photo") -> Prepared:
    """One uploaded file -> a Prepared photo, or a clear refusal (413, 415, 503) naming `name`."""
    upload = io.BytesIO(source) if isinstance(source, bytes | bytearray) else source
    size = upload.seek(0, io.SEEK_END)
    if size > limits.max_bytes:
        raise TooLarge(Phrase("{name} is {size} bytes; the limit is {limit}", name=name,
                              size=size, limit=limits.max_bytes),
                       {"photo": Phrase("larger than {n} MB",
                                        n=limits.max_bytes // (1024 * 1024))})
    digest = _sha256(upload)
    with _reserved(limits, 2 * size + PngImagePlugin.MAX_TEXT_MEMORY, name) as held:
        image, kind = _opened(upload, limits, name)
        try:
            declared, keep = image.size, keepable(image, kind)
            if kind == "JPEG" and not keep:  # decoded at 1/2, 1/4 or 1/8 when that still covers
                image.draft(None, fitted(*declared))
            held.grow_to(decode_cost(image, kind, size, declared, keep, _multiscan(upload, kind)))
            if keep:
                upload.seek(0)
                kept = _rebuilt(upload.read(), kind)
                if kept is not None:
                    return Prepared.of(digest, photo_pixels.as_it_is(kept, kind))
            return Prepared.of(digest, photo_pixels.reencoded(image, kind, declared))
        except (TooLarge, UnsupportedMedia):
            raise
        except Exception as exc:  # noqa: BLE001 - a truncated or malformed image, found decoding
            raise _unreadable(name, exc) from None
        finally:
            image.close()


def _sha256(upload: BinaryIO) -> str:
    digest = hashlib.sha256()
    upload.seek(0)
    while chunk := upload.read(CHUNK):
        digest.update(chunk)
    return digest.hexdigest()


def _opened(upload: BinaryIO, limits: Limits, name: str) -> tuple[Image.Image, str]:
    """The image's header read (nothing decoded yet), its pixel count and format checked."""
    # The guard against decompression bombs is the check of the header's size below, before
    # anything is decoded; Pillow's own (a process-wide 89 megapixels) would turn a large but
    # allowed panorama into "not an image".
    Image.MAX_IMAGE_PIXELS = None
    upload.seek(0)
    try:
        image = Image.open(upload, formats=list(FORMATS))
        width, height = image.size
        kind = "JPEG" if image.format == "MPO" else image.format  # a phone's JPEG + depth map
    except Exception as exc:  # noqa: BLE001 - whatever a hostile file makes a decoder raise
        raise _unreadable(name, exc) from None
    if width * height > limits.max_pixels:
        image.close()
        raise TooLarge(Phrase("{name} has {width} x {height} pixels; the limit is {limit}",
                              name=name, width=width, height=height, limit=limits.max_pixels),
                       {"photo": Phrase("more than {n} million pixels",
                                        n=f"{limits.max_pixels / 1e6:g}")})
    if kind not in FORMATS:
        image.close()
        raise _unreadable(name, ValueError(kind))
    return image, kind


def _unreadable(name: str, exc: Exception) -> UnsupportedMedia:
    return UnsupportedMedia(
        Phrase("{name} is not a JPEG, PNG or WebP image this server can read ({error})",
               name=name, error=exc.__class__.__name__),
        {"photo": Phrase("not a JPEG, PNG or WebP image")})


class Unbounded:
    """No budget to keep to: reservations that hold nothing."""

    def grow_to(self, wanted: int) -> None:
        pass


def _reserved(limits: Limits, wanted: int, name: str):
    """The budget's reservation, or none when there is no budget (a tool's own process)."""
    if limits.budget is None:
        return contextlib.nullcontext(Unbounded())
    return limits.budget.reserve(wanted, name, "photo")


def _multiscan(upload: BinaryIO, kind: str) -> bool:
    if kind != "JPEG":
        return False
    upload.seek(0)
    return image_files.jpeg_buffers_coefficients(upload)


# --- kept as it is, rebuilt from its parts ----------------------------------------------------

def _rebuilt(data: bytes, kind: str) -> bytes | None:
    try:
        return image_files.REBUILD[kind](data)
    except ValueError:
        return None  # laid out in a way the rebuild does not follow: re-encoded instead


# --- stored ---------------------------------------------------------------------------------

def check_entry(conn: sqlite3.Connection, user_id: int, entry_id: int) -> None:
    """NotFound unless the entry is the user's (before anything is read or decoded)."""
    if not conn.execute("SELECT 1 FROM entries WHERE id = ? AND user_id = ?",
                        (entry_id, user_id)).fetchone():
        raise NotFound("entry")


def add(conn: sqlite3.Connection, user_id: int, entry_id: int, prepared: list[Prepared],
        limits: Limits, now_ms: int) -> list[int]:
    """Store prepared photos after the entry's own, in the caller's transaction; the ids in
    order (a photo the entry already has is that photo's id, not a copy). Bytes the person
    already has on another entry are not stored again."""
    check_entry(conn, user_id, entry_id)
    have = dict(conn.execute("SELECT sha256, id FROM photos WHERE entry_id = ?", (entry_id,)))
    new = [p for p in {p.sha256: p for p in prepared}.values() if p.sha256 not in have]
    if len(have) + len(new) > limits.per_entry:
        raise TooLarge(Phrase("an entry holds at most {n} photos", n=limits.per_entry),
                       {"photo": Phrase("at most {n} photos on an entry", n=limits.per_entry)})
    stored = storage.photo_hashes(conn, user_id, [p.sha256 for p in new])
    storage.check_quota(conn, user_id, limits.quota_bytes,
                        sum(p.stored_bytes for p in new if p.sha256 not in stored))
    position = conn.execute("SELECT coalesce(max(position), 0) FROM photos WHERE entry_id = ?",
                            (entry_id,)).fetchone()[0]
    for photo in new:
        position += 1
        have[photo.sha256] = conn.execute(
            "INSERT INTO photos (entry_id, position, sha256, width, height, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (entry_id, position, photo.sha256, photo.width, photo.height, now_ms)).fetchone()[0]
        conn.executemany(
            "INSERT INTO photo_files (user_id, sha256, size, content_type, data)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, sha256, size) DO NOTHING",
            [(user_id, photo.sha256, "full", photo.content_type, photo.data),
             (user_id, photo.sha256, "thumb", photo.thumb_type, photo.thumb)])
    return [have[p.sha256] for p in prepared]


def _owned(conn: sqlite3.Connection, user_id: int, photo_id: int) -> sqlite3.Row:
    row = conn.execute("SELECT p.id, p.entry_id, p.position FROM photos p JOIN entries e"
                       " ON e.id = p.entry_id WHERE p.id = ? AND e.user_id = ?",
                       (photo_id, user_id)).fetchone()
    if row is None:
        raise NotFound("photo")
    return row


def remove(conn: sqlite3.Connection, user_id: int, photo_id: int) -> int:
    """Delete one of the user's photos; the entry it was on."""
    row = _owned(conn, user_id, photo_id)
    conn.execute("DELETE FROM photos WHERE id = ?", (photo_id,))
    return row[1]


def reorder(conn: sqlite3.Connection, user_id: int, entry_id: int, order: list[int]) -> None:
    """Put the entry's photos in this order: every one of them, each once."""
    check_entry(conn, user_id, entry_id)
    have = {r[0] for r in conn.execute("SELECT id FROM photos WHERE entry_id = ?", (entry_id,))}
    if len(order) != len(set(order)) or set(order) != have:
        raise ValidationError({"order": Phrase("must list each of the entry's photos once")})
    conn.executemany("UPDATE photos SET position = ? WHERE id = ?",
                     [(i + 1, photo_id) for i, photo_id in enumerate(order)])


def move_earlier(conn: sqlite3.Connection, user_id: int, photo_id: int) -> int:
    """Swap a photo with the one before it (the first stays first); the entry's id."""
    row = _owned(conn, user_id, photo_id)
    order = [r[0] for r in conn.execute("SELECT id FROM photos WHERE entry_id = ?"
                                        " ORDER BY position, id", (row[1],))]
    at = order.index(photo_id)
    if at > 0:
        order[at - 1], order[at] = order[at], order[at - 1]
        reorder(conn, user_id, row[1], order)
    return row[1]


@dataclass(frozen=True)
class StoredFile:
    """Where one of a person's photos lies at a size: its row in photo_files (to stream it
    with blob I/O), type, length and ETag."""

    rowid: int
    content_type: str
    length: int
    etag: str


_FILE = ("SELECT f.rowid, f.content_type, length(f.data), p.sha256 FROM photos p"
         " JOIN entries e ON e.id = p.entry_id"
         " JOIN photo_files f ON f.user_id = e.user_id AND f.sha256 = p.sha256 AND f.size = ?"
         " WHERE p.id = ? AND e.user_id = ?")


def _stored(row, size: str) -> StoredFile:
    return StoredFile(row[0], row[1], row[2], f'"{row[3][:32]}-{size}"')


def file_of(conn: sqlite3.Connection, user_id: int, photo_id: int, size: str) -> StoredFile:
    """One of the user's photos at a size ("full" or "thumb"), without reading its bytes."""
    row = conn.execute(_FILE, (size, photo_id, user_id)).fetchone()
    if row is None:
        raise NotFound("photo")
    return _stored(row, size)


def open_file(connect: Callable[[], sqlite3.Connection], user_id: int, photo_id: int,
              size: str) -> tuple[StoredFile, BlobReader]:
    """One of the user's photos at a size and a reader of its bytes, on a connection of the
    reader's own in one read transaction (blobs.open_blob); the caller closes the reader."""
    found = open_blob(connect, "photo_files", "data", _FILE, (size, photo_id, user_id))
    if found is None:
        raise NotFound("photo")
    row, reader = found
    return _stored(row, size), reader


def read_file(conn: sqlite3.Connection, stored: StoredFile) -> bytes:
    """A stored file's bytes (an export writes them whole; pages stream them)."""
    return bytes(conn.execute("SELECT data FROM photo_files WHERE rowid = ?",
                              (stored.rowid,)).fetchone()[0])
