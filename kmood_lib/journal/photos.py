"""Photos of an entry (issue #26): checked, turned upright and re-encoded without any
metadata before a transaction begins, then stored in SQLite beside the entry (migration
0019), and served only to the entry's owner.

1. `prepare(data, limits)` decodes with Pillow: only JPEG, PNG and WebP; the pixel count is
   checked from the header before anything is decoded (a decompression bomb is refused
   without being expanded); EXIF orientation is applied, then everything else in the file
   (EXIF, GPS, XMP, ICC profiles, comments) is left behind by re-encoding the pixels; the
   long side is brought down to FULL_SIDE and a THUMB_SIDE thumbnail is made.
2. `add(conn, ...)` writes prepared photos inside the caller's short transaction; the same
   upload given to the same entry twice is one photo (keyed by the upload's SHA-256).
"""

from __future__ import annotations

import hashlib
import io
import sqlite3
import warnings
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError

from kmood_lib.core.errors import NotFound, TooLarge, UnsupportedMedia, ValidationError

FORMATS = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}
FULL_SIDE, THUMB_SIDE = 2560, 400
JPEG_QUALITY, THUMB_QUALITY = 88, 80


@dataclass(frozen=True)
class Limits:
    max_bytes: int  # one photo as uploaded
    per_entry: int  # photos on one entry
    max_pixels: int  # width x height as the file says


DEFAULT_LIMITS = Limits(15 * 1024 * 1024, 6, 40_000_000)  # the KMOOD_PHOTO_* defaults


@dataclass(frozen=True)
class Prepared:
    """A photo ready to store: the cleaned full-size copy, its thumbnail, its upload's hash."""

    sha256: str
    content_type: str
    data: bytes
    width: int
    height: int
    thumb_type: str
    thumb: bytes


def prepare(data: bytes, limits: Limits, name: str = "photo") -> Prepared:
    """One uploaded file -> a Prepared photo, or a clear refusal (413, 415) naming `name`."""
    if len(data) > limits.max_bytes:
        raise TooLarge(f"{name} is {len(data)} bytes; the limit is {limits.max_bytes}",
                       {"photo": f"larger than {limits.max_bytes // (1024 * 1024)} MB"})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=list(FORMATS))
            width, height = image.size
            if width * height > limits.max_pixels:
                raise TooLarge(f"{name} has {width} x {height} pixels; the limit is"
                               f" {limits.max_pixels}", {"photo": "too many pixels"})
            kind = image.format
            image.load()
            upright = ImageOps.exif_transpose(image)
    except (UnidentifiedImageError, Image.DecompressionBombError,
            Image.DecompressionBombWarning, OSError, SyntaxError, ValueError) as exc:
        raise UnsupportedMedia(
            f"{name} is not a JPEG, PNG or WebP image this server can read ({exc.__class__.__name__})",
            {"photo": "not a JPEG, PNG or WebP image"}) from None
    thumb_type, thumb_bytes = _encode(_fit(upright, THUMB_SIDE), kind, THUMB_QUALITY)
    if _clean(image, data, kind):  # nothing to take away: kept as it came, no generation lost
        return Prepared(hashlib.sha256(data).hexdigest(), FORMATS[kind], data, width, height,
                        thumb_type, thumb_bytes)
    full = _fit(upright, FULL_SIDE)
    content_type, encoded = _encode(full, kind, JPEG_QUALITY)
    return Prepared(hashlib.sha256(data).hexdigest(), content_type, encoded, full.width,
                    full.height, thumb_type, thumb_bytes)


# What a file may say about itself and still be kept as it is: how to show its pixels, never
# who, where or with what it was taken.
SAFE_INFO = {
    "JPEG": {"jfif", "jfif_version", "jfif_unit", "jfif_density", "dpi", "icc_profile",
             "progressive", "progression", "adobe", "adobe_transform"},
    "PNG": {"icc_profile", "dpi", "gamma", "srgb", "chromaticity", "transparency", "aspect"},
    "WEBP": {"icc_profile", "loop", "duration", "background", "timestamp"},
}
SAFE_JPEG_SEGMENTS = {"APP0", "APP2", "APP14"}  # JFIF, the ICC profile, Adobe's colour flag


def _clean(image: Image.Image, data: bytes, kind: str) -> bool:
    """Whether a file holds nothing but its pixels and how to show them, is no larger than
    FULL_SIDE and is upright: then it is stored byte for byte (a k-mood export read back in
    is the same photo, not a second generation of it)."""
    if max(image.size) > FULL_SIDE or len(image.getexif()) or not set(image.info) <= SAFE_INFO[
            kind]:
        return False
    if kind == "JPEG":
        return ({marker for marker, _ in getattr(image, "applist", [])} <= SAFE_JPEG_SEGMENTS
                and data.endswith(b"\xff\xd9"))  # nothing after the image
    if kind == "PNG":
        return data.endswith(b"IEND\xaeB`\x82")
    return int.from_bytes(data[4:8], "little") + 8 == len(data)  # WebP: RIFF holds it all


def _fit(image: Image.Image, side: int) -> Image.Image:
    """A copy whose long side is at most `side` pixels, carrying nothing but its pixels and
    its colour profile (so a wide-gamut phone photo keeps its colours)."""
    copy = image.copy()
    copy.thumbnail((side, side), Image.Resampling.LANCZOS)
    profile = image.info.get("icc_profile")
    copy.info = {"icc_profile": profile} if isinstance(profile, bytes) else {}
    return copy


def _encode(image: Image.Image, kind: str, quality: int) -> tuple[str, bytes]:
    """The pixels in the upload's own format (a JPEG stays a JPEG; transparency stays in PNG
    or WebP), with the colour profile and nothing else: no EXIF, GPS, XMP or comment."""
    out, profile = io.BytesIO(), image.info.get("icc_profile")
    extra = {"icc_profile": profile} if profile else {}
    if kind == "JPEG":
        image.convert("RGB").save(out, "JPEG", quality=quality, optimize=True, **extra)
    elif kind == "WEBP":
        mode = "RGBA" if "A" in image.getbands() or "transparency" in image.info else "RGB"
        image.convert(mode).save(out, "WEBP", quality=quality, **extra)
    else:
        if image.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I;16"):
            image = image.convert("RGBA")
        image.save(out, "PNG", optimize=True, **extra)
    return FORMATS[kind], out.getvalue()


def check_entry(conn: sqlite3.Connection, user_id: int, entry_id: int) -> None:
    """NotFound unless the entry is the user's (before anything is read or decoded)."""
    if not conn.execute("SELECT 1 FROM entries WHERE id = ? AND user_id = ?",
                        (entry_id, user_id)).fetchone():
        raise NotFound("entry")


def add(conn: sqlite3.Connection, user_id: int, entry_id: int, prepared: list[Prepared],
        limits: Limits, now_ms: int) -> list[int]:
    """Store prepared photos after the entry's own, in the caller's transaction; the ids in
    order (a photo the entry already has is that photo's id, not a copy)."""
    check_entry(conn, user_id, entry_id)
    have = dict(conn.execute("SELECT sha256, id FROM photos WHERE entry_id = ?", (entry_id,)))
    new = [p for p in {p.sha256: p for p in prepared}.values() if p.sha256 not in have]
    if len(have) + len(new) > limits.per_entry:
        raise TooLarge(f"an entry holds at most {limits.per_entry} photos",
                       {"photo": f"at most {limits.per_entry} photos on an entry"})
    position = conn.execute("SELECT coalesce(max(position), 0) FROM photos WHERE entry_id = ?",
                            (entry_id,)).fetchone()[0]
    for photo in new:
        position += 1
        have[photo.sha256] = conn.execute(
            "INSERT INTO photos (entry_id, position, sha256, width, height, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (entry_id, position, photo.sha256, photo.width, photo.height, now_ms)).fetchone()[0]
        conn.executemany(
            "INSERT INTO photo_files (photo_id, size, content_type, data) VALUES (?, ?, ?, ?)",
            [(have[photo.sha256], "full", photo.content_type, photo.data),
             (have[photo.sha256], "thumb", photo.thumb_type, photo.thumb)])
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
        raise ValidationError({"order": "must list each of the entry's photos once"})
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


def of_entries(conn: sqlite3.Connection, entry_ids: list[int]) -> dict[int, list[dict]]:
    """Each entry's photos in order, as the entry JSON shows them."""
    found: dict[int, list[dict]] = {}
    if not entry_ids:
        return found
    marks = ",".join("?" * len(entry_ids))
    for photo_id, entry_id, width, height in conn.execute(
            f"SELECT id, entry_id, width, height FROM photos WHERE entry_id IN ({marks})"
            " ORDER BY entry_id, position, id", entry_ids):
        found.setdefault(entry_id, []).append(json_of(photo_id, width, height))
    return found


def json_of(photo_id: int, width: int, height: int) -> dict:
    return {"id": photo_id, "url": f"/photos/{photo_id}", "thumb_url": f"/photos/{photo_id}/thumb",
            "width": width, "height": height}


def file_of(conn: sqlite3.Connection, user_id: int, photo_id: int, size: str
            ) -> tuple[str, bytes, str]:
    """(content type, bytes, ETag) of one of the user's photos at a size."""
    row = conn.execute(
        "SELECT f.content_type, f.data, p.sha256 FROM photo_files f JOIN photos p"
        " ON p.id = f.photo_id JOIN entries e ON e.id = p.entry_id"
        " WHERE f.photo_id = ? AND f.size = ? AND e.user_id = ?",
        (photo_id, size, user_id)).fetchone()
    if row is None:
        raise NotFound("photo")
    return row[0], bytes(row[1]), f'"{row[2][:32]}-{size}"'
