"""An image file rebuilt from an allow-list of its parts: the pixels and the few structural parts
needed to show them, nothing else. A photo that needs no re-encoding is stored this way, so what
a decoder does not look at (text in a JPEG APP segment, a private PNG chunk, an unknown WebP
chunk, bytes after the end) is never kept; rebuilding a rebuilt file gives the same bytes.

Each function takes the whole file and returns the rebuilt one, or raises ValueError when the
file is not laid out as its format says (the caller re-encodes it instead).
"""

from __future__ import annotations

import struct

# --- JPEG -----------------------------------------------------------------------------------

# Segments kept as they are: quantisation and Huffman tables, arithmetic conditioning, restart
# interval, the frame headers of every coding process (SOF0-3, 5-7, 9-11, 13-15).
JPEG_TABLES = {0xDB, 0xC4, 0xCC, 0xDD}
JPEG_FRAMES = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
SOI, EOI, SOS = 0xD8, 0xD9, 0xDA


def rebuild_jpeg(data: bytes) -> bytes:
    """SOI, a canonical JFIF APP0 and Adobe APP14 when the file had them (their numbers only:
    density, colour transform), the tables, frame and scans, EOI — and nothing after it."""
    if data[:2] != b"\xff\xd8":
        raise ValueError("no JPEG start marker")
    out, at, end = [b"\xff\xd8"], 2, len(data)
    jfif = adobe = None
    while True:
        at = _next_marker(data, at)
        marker = data[at + 1]
        at += 2
        if marker == EOI:
            break
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:  # stand-alone markers outside a scan
            continue
        length = _u16(data, at)
        segment = data[at + 2:at + length]
        if length < 2 or at + length > end:
            raise ValueError("a JPEG segment runs past the end")
        if marker == 0xE0 and segment[:5] == b"JFIF\x00" and len(segment) >= 12:
            jfif = jfif or segment[7:12]  # units, X density, Y density
        elif marker == 0xEE and segment[:5] == b"Adobe" and len(segment) >= 12:
            # the colour transform: 0 RGB/CMYK, 1 YCbCr, 2 YCCK; libjpeg reads others as 1
            adobe = adobe if adobe is not None else (segment[11] if segment[11] <= 2 else 1)
        elif marker in JPEG_TABLES or marker in JPEG_FRAMES:
            out.append(data[at - 2:at + length])
        elif marker == SOS:
            scan_end = _scan_end(data, at + length)
            out.append(data[at - 2:scan_end])
            at = scan_end
            continue
        at += length
    head = []
    if jfif is not None:
        head.append(b"\xff\xe0\x00\x10JFIF\x00\x01\x01" + jfif + b"\x00\x00")
    if adobe is not None:
        head.append(b"\xff\xee\x00\x0eAdobe\x00\x64\x00\x00\x00\x00" + bytes([adobe]))
    return b"".join([out[0], *head, *out[1:], b"\xff\xd9"])


def jpeg_buffers_coefficients(upload) -> bool:
    """Whether libjpeg will hold every coefficient of the whole image while decoding: a
    progressive or lossless frame, or a first scan that does not carry every component (the
    segments before the first scan are read, and skipped over, from the file object)."""
    if upload.read(2) != b"\xff\xd8":
        return False
    components = None
    while True:
        head = upload.read(4)
        if len(head) < 4 or head[0] != 0xFF:
            return False  # not laid out as expected: the decoder will say what it thinks
        marker, length = head[1], (head[2] << 8) | head[3]
        if marker in JPEG_FRAMES:
            frame = upload.read(length - 2)
            if marker not in (0xC0, 0xC1) or len(frame) < 6:
                return True  # progressive, lossless or hierarchical
            components = frame[5]
        elif marker == SOS:
            scan = upload.read(1)
            return components is None or not scan or scan[0] < components
        else:
            upload.seek(length - 2, 1)


def _u16(data: bytes, at: int) -> int:
    if at + 2 > len(data):
        raise ValueError("a JPEG file ends inside a segment")
    return (data[at] << 8) | data[at + 1]


def _next_marker(data: bytes, at: int) -> int:
    """Where the next marker starts (fill bytes 0xFF before it are skipped)."""
    while at + 1 < len(data) and data[at] == 0xFF and data[at + 1] == 0xFF:
        at += 1
    if at + 1 >= len(data) or data[at] != 0xFF:
        raise ValueError("a JPEG file without its end marker")
    return at


def _scan_end(data: bytes, at: int) -> int:
    """The end of a scan's entropy-coded data: the first marker that is neither a stuffed
    zero nor a restart marker."""
    while True:
        at = data.find(b"\xff", at)
        if at < 0 or at + 1 >= len(data):
            raise ValueError("a JPEG scan without an end")
        following = data[at + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7:
            at += 2
        elif following == 0xFF:
            at += 1
        else:
            return at


# --- PNG ------------------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Header, palette, transparency, the colour space in numbers (not a profile: that can hold
# any text), pixel density, the image data, the end.
PNG_CHUNKS = {b"IHDR", b"PLTE", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"pHYs", b"IDAT", b"IEND"}


def rebuild_png(data: bytes) -> bytes:
    """The signature and the allowed chunks (each with its CRC) up to IEND; nothing after."""
    if data[:8] != PNG_SIGNATURE:
        raise ValueError("no PNG signature")
    out, at = [PNG_SIGNATURE], 8
    while True:
        if at + 8 > len(data):
            raise ValueError("a PNG file without IEND")
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunk_end = at + 12 + length
        if chunk_end > len(data):
            raise ValueError("a PNG chunk runs past the end")
        if kind in PNG_CHUNKS:
            out.append(data[at:chunk_end])
        at = chunk_end
        if kind == b"IEND":
            return b"".join(out)


# --- WebP -----------------------------------------------------------------------------------

VP8X_ALPHA = 0x10


def rebuild_webp(data: bytes) -> bytes:
    """A still WebP as its bitstream alone (`VP8 ` or `VP8L`), or, for lossy with an alpha
    channel, a VP8X header saying only "alpha", the `ALPH` chunk and the bitstream."""
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        raise ValueError("no RIFF WebP header")
    chunks, at, end = {}, 12, min(len(data), 8 + int.from_bytes(data[4:8], "little"))
    while at + 8 <= end:
        kind, size = data[at:at + 4], int.from_bytes(data[at + 4:at + 8], "little")
        whole = at + 8 + size + (size & 1)
        if at + 8 + size > end:
            raise ValueError("a WebP chunk runs past the end")
        if kind in (b"ANIM", b"ANMF"):
            raise ValueError("an animated WebP")
        chunks.setdefault(kind, data[at:at + 8 + size] + (b"\x00" if size & 1 else b""))
        at = whole
    bitstream = chunks.get(b"VP8 ") or chunks.get(b"VP8L")
    if bitstream is None:
        raise ValueError("a WebP file without its image")
    parts = [bitstream]
    if b"ALPH" in chunks and b"VP8 " in chunks:
        vp8x = chunks.get(b"VP8X")
        if vp8x is None or len(vp8x) < 18:
            raise ValueError("a WebP alpha channel without its VP8X header")
        canvas = vp8x[12:18]  # width - 1 and height - 1, 24 bits each
        parts = [b"VP8X" + (10).to_bytes(4, "little") + bytes([VP8X_ALPHA, 0, 0, 0]) + canvas,
                 chunks[b"ALPH"], bitstream]
    body = b"WEBP" + b"".join(parts)
    return b"RIFF" + len(body).to_bytes(4, "little") + body


REBUILD = {"JPEG": rebuild_jpeg, "PNG": rebuild_png, "WEBP": rebuild_webp}
