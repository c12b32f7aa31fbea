"""Photos of an entry (issues #26, #36): checked, turned upright and cleaned before a
transaction begins, stored once per person in SQLite (migration 0026), served only to their owner.

1. `prepare(source, limits)` reads an upload (a file or bytes) with Pillow: only JPEG (MPO
   too), PNG and WebP. The pixel count is checked from the header before anything is decoded;
   then the memory the decoding will take is worked out from the header (`decode_cost`) and
   reserved from the process's MemoryBudget, so the server's peak memory is bounded whatever
   arrives at once. A JPEG is decoded at the size kept (libjpeg's DCT scaling); any image is
   brought down to FULL_SIDE in horizontal strips (`_downscaled`), so besides the decoded
   image only a strip and the result are ever in memory. Animated images keep their first
   frame.
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
import functools
import hashlib
import io
import math
import sqlite3
from dataclasses import dataclass
from typing import BinaryIO

from PIL import Image, ImageCms, PngImagePlugin

from kmood_lib.core.budget import MemoryBudget
from kmood_lib.core.errors import NotFound, TooLarge, UnsupportedMedia, ValidationError
from kmood_lib.journal import image_files, storage

FORMATS = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}
FULL_SIDE, THUMB_SIDE = 2560, 400
JPEG_QUALITY, THUMB_QUALITY = 88, 80
STRIP_BYTES = 4 * 1024 * 1024  # the decoded rows brought down at a time
REDUCING_GAP = 2.0  # as Pillow's thumbnail(): a box reduce first, then Lanczos over >= 2x
CHUNK = 64 * 1024
SLACK = 8 * 1024 * 1024  # Pillow's and the codecs' own buffers, Python's objects

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
class Prepared:
    """A photo ready to store: the cleaned full-size copy, its thumbnail, its upload's hash."""

    sha256: str
    content_type: str
    data: bytes
    width: int
    height: int
    thumb_type: str
    thumb: bytes

    @property
    def stored_bytes(self) -> int:
        return len(self.data) + len(self.thumb)


def prepare(source: BinaryIO | bytes, limits: Limits, name: str = "photo") -> Prepared:
    """One uploaded file -> a Prepared photo, or a clear refusal (413, 415, 503) naming `name`."""
    upload = io.BytesIO(source) if isinstance(source, bytes | bytearray) else source
    size = upload.seek(0, io.SEEK_END)
    if size > limits.max_bytes:
        raise TooLarge(f"{name} is {size} bytes; the limit is {limits.max_bytes}",
                       {"photo": f"larger than {limits.max_bytes // (1024 * 1024)} MB"})
    digest = _sha256(upload)
    with _reserved(limits, 2 * size + PngImagePlugin.MAX_TEXT_MEMORY, name) as held:
        image, kind = _opened(upload, limits, name)
        try:
            declared, keep = image.size, _keepable(image, kind)
            if kind == "JPEG" and not keep:  # decoded at 1/2, 1/4 or 1/8 when that still covers
                image.draft(None, fitted(*declared))
            held.grow_to(decode_cost(image, kind, size, declared, keep, _multiscan(upload, kind)))
            if keep:
                upload.seek(0)
                kept = _rebuilt(upload.read(), kind)
                if kept is not None:
                    return _kept(kept, kind, digest)
            return _reencoded(image, kind, declared, digest)
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
        raise TooLarge(f"{name} has {width} x {height} pixels; the limit is {limits.max_pixels}",
                       {"photo": f"more than {limits.max_pixels / 1e6:g} million pixels"})
    if kind not in FORMATS:
        image.close()
        raise _unreadable(name, ValueError(kind))
    return image, kind


def _unreadable(name: str, exc: Exception) -> UnsupportedMedia:
    return UnsupportedMedia(
        f"{name} is not a JPEG, PNG or WebP image this server can read"
        f" ({exc.__class__.__name__})", {"photo": "not a JPEG, PNG or WebP image"})


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


# --- what decoding costs ----------------------------------------------------------------------

def fitted(width: int, height: int, side: int = FULL_SIDE) -> tuple[int, int]:
    """The size kept: at most `side` on the long side, the proportions kept."""
    if max(width, height) <= side:
        return width, height
    scale = side / max(width, height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def _pixel_bytes(mode: str) -> int:
    """Bytes a pixel takes in Pillow's memory (RGB is stored in four)."""
    return 1 if mode in ("1", "L", "P") else 2 if mode.startswith("I;16") else 4


def decode_cost(image: Image.Image, kind: str, file_bytes: int, declared: tuple[int, int],
                keep: bool, multiscan: bool) -> int:
    """Bytes of memory reading this image will take at its highest, from its header alone.

    1. A JPEG is decoded at the DCT scale draft() set (`image.size`); a progressive or
       multi-scan one also makes libjpeg hold every coefficient of the full-size image (2
       bytes a sample). Pillow also holds a pointer to each row.
    2. A WebP is decoded whole by libwebp, whose decoder keeps two canvases of 4 bytes a pixel
       beside the frame handed to Pillow and Pillow's copy of it: 16 bytes a pixel.
    3. Then a strip at a time is converted and brought down into the result (FULL_SIDE at
       most); afterwards the result is turned, encoded and thumbnailed (about three copies of
       it). A file kept as it is is held twice (as sent, as rebuilt) while it is checked.
    """
    width, height = declared
    rows = image.size[1] * 8  # Pillow keeps a pointer to each row
    decoded = image.size[0] * image.size[1] * _pixel_bytes(image.mode) + rows
    if kind == "WEBP":
        decoded = width * height * 16 + file_bytes
    elif kind == "JPEG" and multiscan:
        decoded += int(width * height * _coefficient_bytes(image))
    kept = fitted(width, height)
    result = kept[0] * kept[1] * 4
    strips = 4 * STRIP_BYTES + image.size[0] * 4 * 16  # crop, converted, premultiplied, reduced
    held = 2 * file_bytes if keep else 0
    return held + max(decoded + strips + result, 4 * result) + SLACK


def _coefficient_bytes(image: Image.Image) -> float:
    """Coefficient bytes per full-size pixel: 2 a sample, the chroma as subsampled."""
    layers = getattr(image, "layer", None) or [("", 1, 1, 0)] * len(image.getbands())
    h_max = max(h for _, h, _, _ in layers) or 1
    v_max = max(v for _, _, v, _ in layers) or 1
    return sum(2 * h * v / (h_max * v_max) for _, h, v, _ in layers)


# --- kept as it is, rebuilt from its parts ----------------------------------------------------

# What may be shown from a file kept as it is: plain colours, upright.
SAFE_MODES = {"JPEG": {"RGB", "L"}, "PNG": {"RGB", "RGBA", "L", "LA", "P"},
              "WEBP": {"RGB", "RGBA"}}
ORIENTATION = 0x0112


def _keepable(image: Image.Image, kind: str) -> bool:
    """Whether the file can be stored as its own bytes once rebuilt (journal.image_files): a
    still, upright image in plain colours without a colour profile, no larger than FULL_SIDE.
    What else it says (EXIF, XMP, comments, text, unknown chunks) the rebuild leaves out."""
    return (max(image.size) <= FULL_SIDE and getattr(image, "n_frames", 1) == 1
            and image.mode in SAFE_MODES[kind] and not image.info.get("icc_profile")
            and image.getexif().get(ORIENTATION, 1) == 1)


def _rebuilt(data: bytes, kind: str) -> bytes | None:
    try:
        return image_files.REBUILD[kind](data)
    except ValueError:
        return None  # laid out in a way the rebuild does not follow: re-encoded instead


def _kept(data: bytes, kind: str, digest: str) -> Prepared:
    """The rebuilt file, decoded once more to be sure it still shows, and its thumbnail."""
    with Image.open(io.BytesIO(data), formats=[kind]) as image:
        image.load()
        thumb_type, thumb = _thumbnail(_normalised_whole(image), kind)
        return Prepared(digest, FORMATS[kind], data, image.width, image.height, thumb_type,
                        thumb)


# --- re-encoded from its pixels ---------------------------------------------------------------

TURNS = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
         4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
         6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
         8: Image.Transpose.ROTATE_90}


def _reencoded(image: Image.Image, kind: str, declared: tuple[int, int], digest: str
               ) -> Prepared:
    """The first frame's pixels in sRGB, brought down to FULL_SIDE, upright, encoded again in
    the upload's own format with nothing else: no EXIF, GPS, XMP, colour profile or comment."""
    turn = TURNS.get(image.getexif().get(ORIENTATION, 1))
    profile = image.info.get("icc_profile")
    image.load()
    pixels = _detached(image)
    result = _downscaled(pixels, fitted(*declared), _converter(pixels, profile))
    del pixels  # the decoded image: the largest thing held, let go before encoding
    if turn is not None:
        result = result.transpose(turn)
    kind_out, full = _encode(result, kind, JPEG_QUALITY)
    thumb_type, thumb = _thumbnail(result, kind)
    return Prepared(digest, kind_out, full, result.width, result.height, thumb_type, thumb)


def _detached(image: Image.Image) -> Image.Image:
    """The decoded pixels on their own, the file's decoder let go at once (libwebp's keeps
    two canvases of the whole image, and Pillow the frame it handed over)."""
    pixels = image._new(image.im)
    pixels.info = {k: v for k, v in image.info.items() if k == "transparency"}
    vars(image).pop("_decoder", None)
    image.close()
    return pixels


def _converter(image: Image.Image, profile: bytes | None):
    """A function taking a strip of `image` to sRGB as RGB(A) or L(A), alpha premultiplied:
    a palette or a transparent colour becomes an alpha channel, a colour profile (which can
    carry any text) is applied to the pixels and dropped, CMYK becomes RGB."""
    transparent = "transparency" in image.info or "A" in image.getbands()
    if image.mode in ("RGB", "RGBA", "L", "LA", "CMYK"):
        mode = image.mode
        if transparent and mode in ("RGB", "L"):
            mode = "RGBA" if mode == "RGB" else "LA"
    else:
        mode = "RGBA" if transparent else "RGB"
    transform = _transform(profile, "RGB" if mode in ("RGB", "RGBA") else mode)

    def convert(strip: Image.Image) -> Image.Image:
        if strip.mode != mode:
            strip = strip.convert(mode)
        if transform is not None:
            alpha = strip.getchannel("A") if mode == "RGBA" else None
            strip = ImageCms.applyTransform(strip.convert("RGB") if alpha else strip, transform)
            if alpha is not None:
                strip.putalpha(alpha)
        if strip.mode == "CMYK":
            strip = strip.convert("RGB")
        premultiplied = {"RGBA": "RGBa", "LA": "La"}.get(strip.mode)
        return strip.convert(premultiplied) if premultiplied else strip

    return convert


def _transform(profile: bytes | None, mode: str):
    """The colour transform from the file's profile to sRGB, or None (no profile, or one the
    colour engine cannot read: the pixels are taken as they are)."""
    if not profile or mode not in ("RGB", "CMYK"):
        return None
    try:
        return ImageCms.buildTransform(ImageCms.ImageCmsProfile(io.BytesIO(profile)), _srgb(),
                                       mode, "RGB")
    except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
        return None


@functools.cache
def _srgb() -> ImageCms.ImageCmsProfile:
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


def _downscaled(image: Image.Image, size: tuple[int, int], convert) -> Image.Image:
    """`image` converted and brought down to `size`, a horizontal strip at a time, the same
    pixels as converting the whole and calling resize(size, LANCZOS, reducing_gap=2):

    1. an integer box reduce per axis that leaves at least REDUCING_GAP for Lanczos;
    2. for each band of output rows, the source rows it reads (with the filter's reach on
       either side), cropped, converted, reduced and resampled with a box in the strip's own
       coordinates, its alpha made straight again, then pasted.
    """
    width, height = image.size
    out_w, out_h = size
    fx = max(1, int(width / out_w / REDUCING_GAP))
    fy = max(1, int(height / out_h / REDUCING_GAP))
    rows_per_out = height / fy / out_h  # reduced rows per output row
    reach = math.ceil(3 * max(rows_per_out, 1)) + 1  # Lanczos reaches 3 of its own widths
    band = max(1, int(STRIP_BYTES / (width * 4 * fy * max(rows_per_out, 1))))
    result = None
    for top in range(0, out_h, band):
        bottom = min(out_h, top + band)
        first = max(0, math.floor(top * rows_per_out) - reach)
        last = min(math.ceil(height / fy), math.ceil(bottom * rows_per_out) + reach)
        strip = convert(image.crop((0, first * fy, width, min(height, last * fy))))
        if (fx, fy) != (1, 1):
            strip = strip.reduce((fx, fy))
        box = (0, top * rows_per_out - first, width / fx, bottom * rows_per_out - first)
        if (out_w, out_h) != (width, height):
            strip = strip.resize((out_w, bottom - top), Image.Resampling.LANCZOS, box=box)
        strip = _unpremultiplied(strip)
        if result is None:
            result = Image.new(strip.mode, size)
        result.paste(strip, (0, top))
    return result


def _unpremultiplied(image: Image.Image) -> Image.Image:
    straight = {"RGBa": "RGBA", "La": "LA"}.get(image.mode)
    return image.convert(straight) if straight else image


def _normalised_whole(image: Image.Image) -> Image.Image:
    """A whole (small) image converted as _downscaled converts strips, not premultiplied."""
    return _unpremultiplied(_converter(image, image.info.get("icc_profile"))(image))


def _thumbnail(image: Image.Image, kind: str) -> tuple[str, bytes]:
    thumb = _downscaled(image, fitted(*image.size, THUMB_SIDE), _converter(image, None))
    return _encode(thumb, kind, THUMB_QUALITY)


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
        raise TooLarge(f"an entry holds at most {limits.per_entry} photos",
                       {"photo": f"at most {limits.per_entry} photos on an entry"})
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


@dataclass(frozen=True)
class StoredFile:
    """Where one of a person's photos lies at a size: its row in photo_files (to stream it
    with blob I/O), type, length and ETag."""

    rowid: int
    content_type: str
    length: int
    etag: str


def file_of(conn: sqlite3.Connection, user_id: int, photo_id: int, size: str) -> StoredFile:
    """One of the user's photos at a size ("full" or "thumb"), without reading its bytes."""
    row = conn.execute(
        "SELECT f.rowid, f.content_type, length(f.data), p.sha256 FROM photos p"
        " JOIN entries e ON e.id = p.entry_id"
        " JOIN photo_files f ON f.user_id = e.user_id AND f.sha256 = p.sha256 AND f.size = ?"
        " WHERE p.id = ? AND e.user_id = ?", (size, photo_id, user_id)).fetchone()
    if row is None:
        raise NotFound("photo")
    return StoredFile(row[0], row[1], row[2], f'"{row[3][:32]}-{size}"')


def read_file(conn: sqlite3.Connection, stored: StoredFile) -> bytes:
    """A stored file's bytes (an export writes them whole; pages stream them)."""
    return bytes(conn.execute("SELECT data FROM photo_files WHERE rowid = ?",
                              (stored.rowid,)).fetchone()[0])
