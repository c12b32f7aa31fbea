"""Images made in the test: a phone photo with GPS and orientation in its EXIF, PNG and WebP,
a decompression bomb, and things that are not images at all."""

from __future__ import annotations

import io
import random
import struct
import uuid
import zlib

from PIL import Image

GPS_IFD, ORIENTATION = 0x8825, 0x0112


def phone_jpeg(width: int = 640, height: int = 480, rotated: bool = True) -> bytes:
    """A JPEG as a phone writes it: EXIF with a camera, GPS coordinates (Berlin) and, when
    `rotated`, orientation 6 (the pixels are stored sideways: turn 90° clockwise to view)."""
    image = Image.new("RGB", (width, height), (200, 80, 40))
    for x in range(0, width, 8):  # a left edge to tell the turn by
        image.putpixel((x, 0), (0, 0, 255))
    image.paste((0, 200, 0), (0, 0, width // 4, height))
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"
    exif[0x0110] = "Phone 12"
    if rotated:
        exif[ORIENTATION] = 6
    exif[GPS_IFD] = {1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 18.0)}
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif, quality=90, comment=b"secret comment")
    return out.getvalue()


def png(width: int = 300, height: int = 200, alpha: bool = True) -> bytes:
    image = Image.new("RGBA" if alpha else "RGB", (width, height), (10, 120, 200, 128)[
        :4 if alpha else 3])
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def webp(width: int = 300, height: int = 200) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (90, 30, 160)).save(out, "WEBP")
    return out.getvalue()


def noise_png(seed: int, side: int = 300) -> bytes:
    """A PNG that does not compress (side² x 3 bytes of noise), the same for the same seed."""
    image = Image.frombytes("RGB", (side, side), random.Random(seed).randbytes(side * side * 3))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png_declaring(width: int, height: int, depth: int = 8, colour: int = 6,
                  row: bytes | None = None) -> bytes:
    """A PNG whose IHDR says width x height; with `row`, every row is that (filter byte
    included), streamed through zlib so a huge image is a few kilobytes."""
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    if row is None:
        idat = zlib.compress(b"\x00" * 16)  # a header and nothing behind it
    else:
        packer = zlib.compressobj(9)
        idat = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat)
            + _chunk(b"IEND", b""))


def png_bomb(megapixels: int = 50) -> bytes:
    """A one-bit PNG of `megapixels` million pixels: tens of kilobytes on the wire, gigabytes
    of RGB once decoded."""
    side = int((megapixels * 1_000_000) ** 0.5) + 1
    out = io.BytesIO()
    Image.new("1", (side, side)).save(out, "PNG", optimize=True)
    return out.getvalue()


SVG = (b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
       b'<script>alert(1)</script><rect width="10" height="10"/></svg>')


def metadata_of(data: bytes) -> dict:
    """What a stored image still says about itself beyond its pixels."""
    image = Image.open(io.BytesIO(data))
    return {"format": image.format, "size": image.size, "exif": dict(image.getexif()),
            "info": {k: v for k, v in image.info.items() if k not in ("jfif", "jfif_version",
                                                                      "jfif_unit", "jfif_density",
                                                                      "dpi")}}


def stored(conn, photo_id: int, size: str = "full") -> bytes:
    """The bytes kept for a photo at a size (its person's file with the photo's hash)."""
    return bytes(conn.execute(
        "SELECT f.data FROM photos p JOIN entries e ON e.id = p.entry_id JOIN photo_files f"
        " ON f.user_id = e.user_id AND f.sha256 = p.sha256 AND f.size = ? WHERE p.id = ?",
        (size, photo_id)).fetchone()[0])


def upload(client, entry_id: int, *files: bytes, path: str | None = None, csrf=None):
    """POST the files as one multipart form under the field `photo` (as <input multiple>)."""
    boundary = uuid.uuid4().hex
    parts = []
    if csrf:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"'
                     f"\r\n\r\n{csrf}\r\n".encode())
    for i, data in enumerate(files):
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="photo";'
                     f' filename="IMG_{i}.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'.encode()
                     + data + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return client.request("POST", path or f"/api/entries/{entry_id}/photos", body=body,
                          content_type=f"multipart/form-data; boundary={boundary}")
