"""Only its pixels (issue #36.4): a photo that looked clean to Pillow was stored byte for byte,
so what Pillow does not parse survived — a PNG tIME chunk, a private chunk holding a location,
an unknown WebP chunk, JPEG APP0/APP14 segments holding text, bytes after the end — and an
animated WebP of 3 000 frames was stored whole. Now a file is rebuilt from an allow-list of its
parts (journal.image_files) or re-encoded, and an animation keeps its first frame, as a still."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image

from kmood_lib.journal import image_files
from tests import images
from tests.images import upload

SECRET = b"lat=52.52 lon=13.40 <script>alert(1)</script>"


@pytest.fixture
def alice(client_for):
    return client_for("alice")


@pytest.fixture
def entry(alice):
    return alice.post("/api/entries", {"mood": 4}).json["id"]


def stored_after_upload(alice, entry, conn, data: bytes) -> bytes:
    answer = upload(alice, entry, data)
    assert answer.status == 201, answer.json
    return images.stored(conn, answer.json["photos"][-1]["id"])


def pixels(data: bytes) -> bytes:
    return Image.open(io.BytesIO(data)).convert("RGBA").tobytes()


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(
        ">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def with_png_chunks(data: bytes, *chunks: bytes) -> bytes:
    """The chunks put right after IHDR (signature 8 bytes + IHDR 25)."""
    return data[:33] + b"".join(chunks) + data[33:]


def test_a_png_keeps_its_pixels_and_loses_time_and_private_chunks(alice, entry, conn):
    clean = images.png(64, 48, alpha=False)
    sent = with_png_chunks(clean, png_chunk(b"tIME", b"\x07\xea\x0c\x05\x12\x00\x00"),
                           png_chunk(b"gpSd", SECRET)) + b"trailing " + SECRET
    assert Image.open(io.BytesIO(sent)).size == (64, 48)  # Pillow reads it as clean
    kept = stored_after_upload(alice, entry, conn, sent)
    assert SECRET not in kept and b"tIME" not in kept and b"gpSd" not in kept
    assert kept == clean  # not re-encoded: the same IDAT, rebuilt around it
    assert pixels(kept) == pixels(sent)


def test_a_webp_loses_an_unknown_riff_chunk(alice, entry, conn):
    clean = images.webp(64, 48)
    extra = b"XTRA" + struct.pack("<I", len(SECRET)) + SECRET + (b"\x00" if len(SECRET) % 2 else b"")
    body = clean[12:] + extra
    sent = b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body
    kept = stored_after_upload(alice, entry, conn, sent)
    assert SECRET not in kept and b"XTRA" not in kept
    assert kept == clean and pixels(kept) == pixels(sent)


def jpeg_with(segments: list[bytes], after_end: bytes = b"") -> tuple[bytes, bytes]:
    """(a clean JPEG, the same with `segments` after its SOI and `after_end` after EOI)."""
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 80, 40)).save(out, "JPEG", quality=90)
    clean = out.getvalue()
    return clean, clean[:2] + b"".join(segments) + clean[2:] + after_end


def segment(marker: int, body: bytes) -> bytes:
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body


def test_a_jpeg_loses_text_in_app0_app14_and_comment_segments_and_after_its_end(
        alice, entry, conn):
    clean, sent = jpeg_with([segment(0xE0, b"JFXX\x00" + SECRET),
                             segment(0xEE, b"Adobe\x00" + SECRET),
                             segment(0xFE, SECRET)], after_end=SECRET)
    kept = stored_after_upload(alice, entry, conn, sent)
    assert SECRET not in kept and b"JFXX" not in kept
    assert pixels(kept) == pixels(sent)
    scan = clean[clean.index(b"\xff\xda"):]
    assert kept.endswith(scan)  # the tables and the scan untouched, not re-encoded
    assert kept.count(b"\xff\xee") == 1 and kept.count(b"\xff\xe0") == 1  # canonical APP14, APP0


def test_an_adobe_segment_keeps_only_its_colour_transform():
    out = io.BytesIO()
    Image.new("RGB", (16, 16), (10, 200, 30)).save(out, "JPEG")
    body = b"Adobe\x00\x64\x00\x00\x00\x00\x01" + SECRET  # transform 1 (YCbCr), then text
    sent = out.getvalue()[:2] + segment(0xEE, body) + out.getvalue()[2:]
    rebuilt = image_files.rebuild_jpeg(sent)
    assert SECRET not in rebuilt
    assert b"\xff\xee\x00\x0eAdobe\x00\x64\x00\x00\x00\x00\x01" in rebuilt
    assert Image.open(io.BytesIO(rebuilt)).info["adobe_transform"] == 1


@pytest.mark.parametrize("make", [images.phone_jpeg, lambda: images.png(40, 30),
                                  lambda: images.webp(40, 30)])
def test_rebuilding_a_rebuilt_file_changes_nothing(make):
    data = make()
    kind = Image.open(io.BytesIO(data)).format
    once = image_files.REBUILD[kind](data)
    assert image_files.REBUILD[kind](once) == once


@pytest.mark.parametrize("broken", [b"\xff\xd8\xff\xe0\x00", b"\xff\xd8", b"\xff\xd8\xff\xda\x00\x08"])
def test_a_jpeg_that_is_not_laid_out_as_its_format_says_is_not_rebuilt(broken):
    with pytest.raises(ValueError):
        image_files.rebuild_jpeg(broken)


def test_an_animated_webp_of_3000_frames_is_kept_as_its_first_frame(alice, entry, conn):
    first = Image.new("RGB", (32, 24), (250, 0, 0))
    frames = [Image.new("RGB", (32, 24), (0, i % 256, 0)) for i in range(1, 3000)]
    out = io.BytesIO()
    first.save(out, "WEBP", save_all=True, append_images=frames, lossless=True)
    sent = out.getvalue()
    assert Image.open(io.BytesIO(sent)).n_frames == 3000
    kept = stored_after_upload(alice, entry, conn, sent)
    still = Image.open(io.BytesIO(kept))
    assert getattr(still, "n_frames", 1) == 1 and len(kept) < len(sent) / 100
    assert still.convert("RGB").getpixel((5, 5))[0] > 200  # the first frame's red


def test_an_animated_png_is_kept_as_its_first_frame(alice, entry, conn):
    first = Image.new("RGB", (32, 24), (0, 0, 250))
    out = io.BytesIO()
    first.save(out, "PNG", save_all=True,
               append_images=[Image.new("RGB", (32, 24), (0, 250, 0))] * 3)
    sent = out.getvalue()
    assert b"acTL" in sent
    kept = stored_after_upload(alice, entry, conn, sent)
    assert b"acTL" not in kept and b"fdAT" not in kept
    assert Image.open(io.BytesIO(kept)).convert("RGB").getpixel((5, 5))[2] > 200
