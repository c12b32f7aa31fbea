"""Review of the photo commits (9c55d1b, 9bb07d6, a7486ac, issue #26): each test here shows one
problem a user or a hostile client meets. They fail until the problem is fixed."""

from __future__ import annotations

import io
import re
import struct
import subprocess
import sys
import textwrap
import zlib
from datetime import datetime

import pytest
from PIL import Image

from kmood_lib.journal import photos
from tests import images
from tests.images import upload
from tests.unit.test_daylio_backup import (
    ann,  # noqa: F401 - a fixture
    day_entry,
)
from tests.unit.test_daylio_backup_photos import picture, stored_photos, sums, with_assets
from tests.unit.test_daylio_csv import run
from tests.unit.test_photos import alice, csrf_of, entry, form_with_photos, stored  # noqa: F401 - fixtures


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


def mpo_jpeg() -> bytes:
    """What many Android phones (and cameras in portrait/3D mode) write: a JPEG whose APP2
    carries a Multi-Picture index (a second, smaller picture behind the first). Its MIME type
    is image/jpeg, its extension .jpg; Pillow opens it as format "MPO"."""
    first = Image.new("RGB", (64, 48), (200, 10, 10))
    second = Image.new("RGB", (32, 24), (10, 200, 10))
    out = io.BytesIO()
    first.save(out, "MPO", save_all=True, append_images=[second])
    return out.getvalue()


# --- 1. a phone's MPO JPEG: KeyError -> 500, and a whole Daylio import lost ------------------

def test_a_phone_mpo_jpeg_is_stored_not_a_500(alice, entry, conn):
    answer = upload(alice, entry, mpo_jpeg())
    assert answer.status == 201, (answer.status, answer.body[:200])
    [photo] = answer.json["photos"]
    assert alice.get(photo["url"]).headers["Content-Type"] == "image/jpeg"


def test_an_mpo_photo_in_a_daylio_backup_does_not_sink_the_whole_import(conn, ann):
    entry = day_entry(300, datetime(2024, 6, 1, 9, 0), 2, 1)
    entry["assets"] = [1, 2]
    data = with_assets([entry], [{"id": 1, "checksum": sums(1), "type": 1},
                                 {"id": 2, "checksum": sums(2), "type": 1}],
                       {f"assets/photos/2024/6/{sums(1)}": picture(1),
                        f"assets/photos/2024/6/{sums(2)}": mpo_jpeg()})
    report = run(conn, ann, data)  # today: KeyError: 'MPO' out of photos._encode
    assert report["imported"] == 1
    assert len(stored_photos(conn, ann)["2024-06-01"]) == 2


# --- 2. transparency of palette / tRNS PNGs is thrown away ---------------------------------

def transparent_png(kind: str) -> bytes:
    """20 x 10: the left half fully transparent (through tRNS), the right half opaque red."""
    if kind == "palette":  # what pngquant, optimisers and most stickers/emoji PNGs are
        image = Image.new("P", (20, 10), 0)
        image.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
        image.paste(1, (10, 0, 20, 10))
        options = {"transparency": 0}
    elif kind == "gray":
        image = Image.new("L", (20, 10), 0)
        image.paste(200, (10, 0, 20, 10))
        options = {"transparency": 0}
    else:
        image = Image.new("RGB", (20, 10), (0, 0, 0))
        image.paste((255, 0, 0), (10, 0, 20, 10))
        options = {"transparency": (0, 0, 0)}
    out = io.BytesIO()
    image.save(out, "PNG", **options)
    return out.getvalue()


@pytest.mark.parametrize("kind", ["palette", "gray", "rgb"])
def test_a_png_with_transparency_keeps_it(alice, entry, conn, kind):
    original = transparent_png(kind)
    assert Image.open(io.BytesIO(original)).convert("RGBA").getpixel((0, 0))[3] == 0
    [photo] = upload(alice, entry, original).json["photos"]
    for size in ("full", "thumb"):
        kept = Image.open(io.BytesIO(stored(conn, photo["id"], size))).convert("RGBA")
        assert kept.getpixel((0, 0))[3] == 0, f"{size}: the transparent half became opaque"


# --- 3. Pillow's own bomb threshold answers 415 "not an image" ----------------------------

def test_a_file_declaring_225_megapixels_is_413_too_many_pixels(alice, entry):
    answer = upload(alice, entry, png_declaring(15_000, 15_000))  # ~100 bytes on the wire
    assert answer.status == 413, answer.json  # today: 415 "not a JPEG, PNG or WebP image"
    assert answer.json["error"]["fields"] == {"photo": "more than 200 million pixels"}


def test_a_pixel_limit_configured_above_89_megapixels_is_honoured():
    """KMOOD_PHOTO_MAX_PIXELS accepts up to 2**32, but Pillow's MAX_IMAGE_PIXELS (89.5 M,
    escalated to an error) refuses a 90 MP panorama first, as 'not an image'."""
    panorama = png_declaring(9500, 9500, depth=1, colour=0, row=b"\x00" * (1 + 9500 // 8 + 1))
    limits = photos.Limits(15 * 1024 * 1024, 6, 100_000_000)
    prepared = photos.prepare(panorama, limits)  # today: UnsupportedMedia
    assert (prepared.width, prepared.height) == (2560, 2560)


# --- 4. a 170 KB PNG under the pixel limit costs ~700 MB ----------------------------------

def test_a_small_png_within_the_pixel_limit_does_not_cost_hundreds_of_megabytes(tmp_path):
    """6 300 x 6 300 RGBA is under the default 40 MP limit and compresses to ~170 KB; decoding
    it is 159 MB, but prepare() keeps several full-size copies alive at once (the decoded
    image, exif_transpose's copy, _fit's copy, the resampling buffers): ~700 MB peak for one
    upload (x waitress's threads, x a Daylio import's photos)."""
    script = textwrap.dedent("""
        import resource, struct, sys, zlib
        sys.path.insert(0, sys.argv[1])
        from kmood_lib.journal import photos
        from tests.unit.test_photos_review import png_declaring
        data = png_declaring(6300, 6300, 8, 6, b"\\x00" + b"\\x80" * (6300 * 4))
        assert len(data) < 200_000
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        photos.prepare(data, photos.DEFAULT_LIMITS)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print((after - before) // 1024)
    """)
    root = str(__import__("pathlib").Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", script, root], capture_output=True, text=True,
                          timeout=60, cwd=root)
    assert done.returncode == 0, done.stderr
    grown_mb = int(done.stdout.strip())
    decoded_mb = 6300 * 6300 * 4 // (1024 * 1024)  # 151 MiB
    assert grown_mb <= 2 * decoded_mb, f"prepare() grew the process by {grown_mb} MB"


# --- 5. photos each within the limits do not fit in one request ---------------------------

def padded(index: int, size: int) -> bytes:
    """A valid PNG of `size` bytes (data after IEND is ignored by every decoder): a phone photo
    of that size, as far as the limits are concerned."""
    data = images.png(20 + index, 20)
    return data + bytes(size - len(data))


def test_photos_each_within_their_limits_fit_in_one_upload(alice, entry, services):
    config = services.config
    size = config.photo_max_bytes - 64 * 1024  # each under KMOOD_PHOTO_MAX_BYTES
    count = config.max_upload_bytes // size + 1  # 4 with the defaults (15 MB, 50 MB)
    assert count <= config.photos_per_entry  # and fewer than KMOOD_PHOTOS_PER_ENTRY (6)
    answer = upload(alice, entry, *[padded(i, size) for i in range(count)])
    assert answer.status == 201, answer.json  # today: 413 "body larger than 52428800 bytes"


def test_a_log_form_carrying_photos_past_the_upload_limit_but_within_their_own_is_saved(
        alice, services):
    """Reviewed: the log form refused four 15 MB photos at the 50 MB upload limit with a bare
    413, losing what was typed; a form carrying photos now has room for an entry's worth."""
    config = services.config
    size = config.photo_max_bytes - 64 * 1024
    count = config.max_upload_bytes // size + 1
    page = alice.get("/").text
    form = {"csrf_token": csrf_of(page), "mood": "2", "note": "keep me", "date": "2026-12-01",
            "client_id": re.search(r'name="client_id" value="([^"]+)"', page).group(1)}
    body, content_type = form_with_photos(form, [padded(i, size) for i in range(count)])
    saved = alice.request("POST", "/entries", body=body, content_type=content_type)
    assert saved.status == 303, (saved.status, saved.text[:200])
    [entry] = alice.get("/api/entries").json["entries"]
    assert entry["note"] == "keep me" and len(entry["photos"]) == count


# --- 6. a Daylio entry brings any number of photos ----------------------------------------

def test_a_daylio_entry_cannot_bring_more_photos_than_the_per_entry_limit(conn, ann):
    limit = photos.DEFAULT_LIMITS.per_entry  # what import_file is given by default (6)
    entry = day_entry(300, datetime(2024, 6, 1, 9, 0), 2, 1)
    entry["assets"] = list(range(1, limit + 5))
    data = with_assets([entry], [{"id": i, "checksum": sums(i), "type": 1}
                                 for i in entry["assets"]],
                       {f"assets/photos/2024/6/{sums(i)}": picture(i) for i in entry["assets"]})
    report = run(conn, ann, data)
    assert report["imported"] == 1
    on_entry = len(stored_photos(conn, ann)["2024-06-01"])
    assert on_entry <= limit, f"{on_entry} photos on one entry; the limit is {limit}"


# --- 7. the colour profile is carried verbatim, whatever it is ------------------------------

def jpeg_with_profile(mode: str, profile: bytes) -> bytes:
    out = io.BytesIO()
    Image.new(mode, (40, 30)).save(out, "JPEG", icc_profile=profile)
    return out.getvalue()


def fake_profile(space: bytes, payload: bytes = b"") -> bytes:
    """An ICC header (128 bytes: size, 'acsp' signature, colour space at 16) and a tail."""
    header = bytearray(128)
    header[16:20] = space
    header[20:24] = b"Lab " if space == b"CMYK" else b"XYZ "
    header[36:40] = b"acsp"
    body = bytes(header) + struct.pack(">I", 0) + payload
    return struct.pack(">I", len(body)) + body[4:]


def test_a_cmyk_jpeg_is_not_stored_as_rgb_labelled_with_its_cmyk_profile(alice, entry, conn):
    [photo] = upload(alice, entry, jpeg_with_profile("CMYK", fake_profile(b"CMYK"))
                     ).json["photos"]
    kept = Image.open(io.BytesIO(stored(conn, photo["id"])))
    profile = kept.info.get("icc_profile")
    assert kept.mode == "RGB"
    assert profile is None or profile[16:20] == b"RGB ", (
        f"an RGB JPEG labelled with a {profile[16:20]!r} profile")


def test_what_rides_in_the_colour_profile_is_not_stored(alice, entry, conn):
    """photos.py's docstring: 'everything else in the file (EXIF, GPS, XMP, ICC profiles,
    comments) is left behind'. The profile is kept byte for byte, unchecked: any tool (or
    person) can put text there, and it is served back to whoever gets the photo."""
    secret = b"GPS 52.5200N 13.4050E home"
    [photo] = upload(alice, entry, jpeg_with_profile("RGB", fake_profile(b"RGB ", secret))
                     ).json["photos"]
    for size in ("full", "thumb"):
        assert secret not in stored(conn, photo["id"], size), size


# --- 8. a k-mood JSON export's photos vanish on import without a word ----------------------

def test_importing_a_json_export_with_photos_says_the_photos_were_not_brought(
        client_for, conn):
    from zoneinfo import ZoneInfo

    from kmood_lib.portability import importer
    from tests.fakes import NOW_MS

    alice = client_for("alice")
    entry = alice.post("/api/entries", {"mood": 4, "note": "with pictures"}).json["id"]
    assert upload(alice, entry, images.png(10, 10), images.webp()).status == 201
    export = alice.get("/api/export?format=json")
    assert export.status == 200
    client_for("bob")  # moving to another account (or server) through the export
    bob = conn.execute("SELECT id FROM users WHERE username = 'bob'").fetchone()[0]
    report = importer.import_file(conn, bob, ZoneInfo("UTC"), export.body, {}, NOW_MS)
    assert report["imported"] == 1
    said = " | ".join(report["warnings"] + report.get("ignored", []))
    assert "photo" in said, f"2 photos dropped, the report says only: {report['message']!r}"
