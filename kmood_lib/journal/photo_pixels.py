"""A photo's pixels within a memory budget (issue #36): what reading an image will cost, worked
out from its header before anything is decoded; the pixels brought down to FULL_SIDE a strip
at a time, upright and in sRGB, and encoded again with nothing but the pixels; a THUMB_SIDE
thumbnail. journal.photos decides which of this a photo needs and reserves its memory first.
"""

from __future__ import annotations

import functools
import io
import math
from dataclasses import dataclass

from PIL import Image, ImageCms

FORMATS = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}
FULL_SIDE, THUMB_SIDE = 2560, 400
JPEG_QUALITY, THUMB_QUALITY = 88, 80
STRIP_BYTES = 4 * 1024 * 1024  # the decoded rows brought down at a time
REDUCING_GAP = 2.0  # as Pillow's thumbnail(): a box reduce first, then Lanczos over >= 2x
SLACK = 8 * 1024 * 1024  # Pillow's and the codecs' own buffers, Python's objects


@dataclass(frozen=True)
class Encoded:
    """A photo's full-size file and its thumbnail, as they will be stored."""

    content_type: str
    data: bytes
    width: int
    height: int
    thumb_type: str
    thumb: bytes


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


# --- kept as it is ---------------------------------------------------------------------------

# What may be shown from a file kept as it is: plain colours, upright.
SAFE_MODES = {"JPEG": {"RGB", "L"}, "PNG": {"RGB", "RGBA", "L", "LA", "P"},
              "WEBP": {"RGB", "RGBA"}}
ORIENTATION = 0x0112


def keepable(image: Image.Image, kind: str) -> bool:
    """Whether the file can be stored as its own bytes once rebuilt (journal.image_files): a
    still, upright image in plain colours without a colour profile, no larger than FULL_SIDE.
    What else it says (EXIF, XMP, comments, text, unknown chunks) the rebuild leaves out."""
    return (max(image.size) <= FULL_SIDE and getattr(image, "n_frames", 1) == 1
            and image.mode in SAFE_MODES[kind] and not image.info.get("icc_profile")
            and image.getexif().get(ORIENTATION, 1) == 1)


def as_it_is(data: bytes, kind: str) -> Encoded:
    """A (rebuilt) file kept as it is, decoded once more to be sure it shows, and its
    thumbnail."""
    with Image.open(io.BytesIO(data), formats=[kind]) as image:
        image.load()
        thumb_type, thumb = _thumbnail(_normalised_whole(image), kind)
        return Encoded(FORMATS[kind], data, image.width, image.height, thumb_type, thumb)


# --- re-encoded from its pixels ---------------------------------------------------------------

TURNS = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
         4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
         6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
         8: Image.Transpose.ROTATE_90}


def reencoded(image: Image.Image, kind: str, declared: tuple[int, int]) -> Encoded:
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
    return Encoded(kind_out, full, result.width, result.height, thumb_type, thumb)


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


