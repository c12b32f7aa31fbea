"""Photos of an entry (issue #26): checked, turned upright and re-encoded without any
metadata before a transaction begins, then stored in SQLite beside the entry (migration
0019), and served only to the entry's owner.

1. `prepare(data, limits)` decodes with Pillow: only JPEG (MPO too), PNG and WebP; the pixel
   count is checked from the header before anything is decoded (a decompression bomb is
   refused without being expanded); EXIF orientation is applied, colours are brought to sRGB,
   then everything else in the file (EXIF, GPS, XMP, colour profiles, comments) is left
   behind by re-encoding the pixels, the long side at most FULL_SIDE; a THUMB_SIDE thumbnail
   is made. A file that already holds nothing but its pixels is kept byte for byte.
2. `add(conn, ...)` writes prepared photos inside the caller's short transaction; the same
   upload given to the same entry twice is one photo (keyed by the upload's SHA-256).
"""

from __future__ import annotations

import functools
import hashlib
import io
import sqlite3
from dataclasses import dataclass

from PIL import Image, ImageCms, ImageOps

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
    # The guard against decompression bombs is the check of the header's size below, before
    # anything is decoded; Pillow's own (a process-wide 89 megapixels) would turn a large but
    # allowed panorama into "not an image".
    Image.MAX_IMAGE_PIXELS = None
    try:
        image = Image.open(io.BytesIO(data), formats=list(FORMATS))
        width, height = image.size
        kind = "JPEG" if image.format == "MPO" else image.format  # a phone's JPEG + depth map
    except Exception as exc:  # noqa: BLE001 - whatever a hostile file makes a decoder raise
        raise _unreadable(name, exc) from None
    if width * height > limits.max_pixels:
        raise TooLarge(f"{name} has {width} x {height} pixels; the limit is {limits.max_pixels}",
                       {"photo": f"more than {limits.max_pixels / 1e6:g} million pixels"})
    if kind not in FORMATS:
        raise _unreadable(name, ValueError(kind))
    try:
        keep = _clean(image, data, kind)
        if kind == "JPEG" and not keep:
            image.draft(None, (FULL_SIDE, FULL_SIDE))  # decode at 1/2, 1/4, 1/8 when it can
        image.load()
        if not keep:
            ImageOps.exif_transpose(image, in_place=True)
            image = _normalised(image)
            image.thumbnail((FULL_SIDE, FULL_SIDE), Image.Resampling.LANCZOS)
            kind_out, full = _encode(image, kind, JPEG_QUALITY)
        thumb = _normalised(image.copy())
        thumb.thumbnail((THUMB_SIDE, THUMB_SIDE), Image.Resampling.LANCZOS)
        thumb_type, thumb_bytes = _encode(thumb, kind, THUMB_QUALITY)
    except Exception as exc:  # noqa: BLE001 - a truncated or malformed image, found decoding
        raise _unreadable(name, exc) from None
    digest = hashlib.sha256(data).hexdigest()
    if keep:  # nothing to take away: kept as it came, no generation lost
        return Prepared(digest, FORMATS[kind], data, width, height, thumb_type, thumb_bytes)
    return Prepared(digest, kind_out, full, image.width, image.height, thumb_type, thumb_bytes)


def _unreadable(name: str, exc: Exception) -> UnsupportedMedia:
    return UnsupportedMedia(
        f"{name} is not a JPEG, PNG or WebP image this server can read"
        f" ({exc.__class__.__name__})", {"photo": "not a JPEG, PNG or WebP image"})


# What a file may say about itself and still be kept as it is: how to show its pixels, never
# who, where or with what it was taken (a colour profile can carry any text: converted away).
SAFE_INFO = {
    "JPEG": {"jfif", "jfif_version", "jfif_unit", "jfif_density", "dpi", "progressive",
             "progression", "adobe", "adobe_transform"},
    "PNG": {"dpi", "gamma", "srgb", "chromaticity", "transparency", "aspect"},
    "WEBP": {"loop", "duration", "background", "timestamp"},
}
SAFE_JPEG_SEGMENTS = {"APP0", "APP14"}  # JFIF, Adobe's colour flag
SAFE_MODES = {"JPEG": {"RGB", "L"}, "PNG": {"RGB", "RGBA", "L", "LA", "P"},
              "WEBP": {"RGB", "RGBA"}}


def _clean(image: Image.Image, data: bytes, kind: str) -> bool:
    """Whether a file holds nothing but its pixels and how to show them, in plain colours, is
    no larger than FULL_SIDE and is upright: then it is stored byte for byte (a k-mood export
    read back in is the same photo, not a second generation of it)."""
    if (image.format == "MPO" or max(image.size) > FULL_SIDE or len(image.getexif())
            or image.mode not in SAFE_MODES[kind] or not set(image.info) <= SAFE_INFO[kind]):
        return False
    if kind == "JPEG":
        return ({marker for marker, _ in getattr(image, "applist", [])} <= SAFE_JPEG_SEGMENTS
                and data.endswith(b"\xff\xd9"))  # nothing after the image
    if kind == "PNG":
        return data.endswith(b"IEND\xaeB`\x82")
    return int.from_bytes(data[4:8], "little") + 8 == len(data)  # WebP: RIFF holds it all


@functools.cache
def _srgb() -> ImageCms.ImageCmsProfile:
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


def _normalised(image: Image.Image) -> Image.Image:
    """The pixels in sRGB, as RGB(A) or L(A), carrying nothing else: a palette or a
    transparent colour becomes an alpha channel, a colour profile (which can carry any text)
    is applied to the pixels and dropped, CMYK becomes RGB."""
    info = image.info
    transparent = "transparency" in info or "A" in image.getbands()
    if image.mode not in ("RGB", "RGBA", "L", "LA", "CMYK"):
        image = image.convert("RGBA" if transparent else "RGB")
    elif transparent and image.mode in ("RGB", "L"):
        image = image.convert("RGBA" if image.mode == "RGB" else "LA")
    profile = info.get("icc_profile")
    if profile and image.mode in ("RGB", "RGBA", "CMYK"):
        alpha = image.getchannel("A") if image.mode == "RGBA" else None
        try:
            image = ImageCms.profileToProfile(image.convert("RGB") if alpha else image,
                                              io.BytesIO(profile), _srgb(), outputMode="RGB")
        except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
            pass  # a profile the colour engine cannot read: the pixels as they are
        if alpha is not None and image.mode == "RGB":
            image.putalpha(alpha)
    if image.mode == "CMYK":
        image = image.convert("RGB")
    image.info = {}
    return image


def _encode(image: Image.Image, kind: str, quality: int) -> tuple[str, bytes]:
    """The pixels in the upload's own format (a JPEG stays a JPEG; transparency stays in PNG
    or WebP), and nothing else: no EXIF, GPS, XMP, colour profile or comment."""
    out = io.BytesIO()
    if kind == "JPEG":
        image.convert("RGB" if image.mode != "L" else "L").save(out, "JPEG", quality=quality,
                                                                  optimize=True)
    elif kind == "WEBP":
        image.convert("RGBA" if "A" in image.getbands() else "RGB").save(out, "WEBP",
                                                                         quality=quality)
    else:
        image.save(out, "PNG", optimize=True)
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
