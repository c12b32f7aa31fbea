"""Photos of an entry (issues #26, #36): stored in the database without EXIF or GPS, upright,
at most 2 560 px with a thumbnail; refused clearly when they are not images, too big, or too
many; shown only to their owner. What decoding costs is in test_photo_memory.py, what a kept
file may hold in test_photo_files.py, storing once and the quota in test_storage_quota.py."""

from __future__ import annotations

import io
import re
import struct
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
from tests.unit.test_daylio_backup_photos import one_entry_with, picture, stored_photos, sums, with_assets
from tests.unit.test_daylio_csv import run


@pytest.fixture
def alice(client_for):
    return client_for("alice")


@pytest.fixture
def entry(alice):
    return alice.post("/api/entries", {"mood": 4, "note": "at the lake"}).json["id"]


def stored(conn, photo_id: int, size: str = "full") -> bytes:
    return images.stored(conn, photo_id, size)


def test_a_phone_photo_is_stored_upright_without_its_location_or_camera(alice, entry, conn):
    original = images.phone_jpeg(640, 480)
    assert images.metadata_of(original)["exif"]  # GPS, camera, orientation: all there
    answer = upload(alice, entry, original)
    assert answer.status == 201
    [photo] = answer.json["photos"]
    assert (photo["width"], photo["height"]) == (480, 640)  # turned as its EXIF said
    for size in ("full", "thumb"):
        kept = images.metadata_of(stored(conn, photo["id"], size))
        assert kept["format"] == "JPEG" and kept["exif"] == {}
        assert "exif" not in kept["info"] and "comment" not in kept["info"], kept["info"]
        assert b"PhoneMaker" not in stored(conn, photo["id"], size)
    served = alice.get(photo["url"])
    assert served.status == 200 and served.headers["Content-Type"] == "image/jpeg"
    assert served.body == stored(conn, photo["id"])
    assert served.headers["Cache-Control"].startswith("private")
    image = Image.open(io.BytesIO(served.body))
    assert image.getpixel((240, 5))[1] > 150  # the green left quarter is now the top
    thumb = Image.open(io.BytesIO(alice.get(photo["thumb_url"]).body))
    assert max(thumb.size) == 400 and thumb.size == (300, 400)


def test_a_large_photo_is_brought_down_to_2560_pixels_and_keeps_its_format(alice, entry,
                                                                            conn):
    answer = upload(alice, entry, images.png(4000, 1000), images.webp(300, 200))
    assert answer.status == 201
    big, small = answer.json["photos"]
    assert (big["width"], big["height"]) == (2560, 640)
    assert images.metadata_of(stored(conn, big["id"]))["format"] == "PNG"
    assert Image.open(io.BytesIO(stored(conn, big["id"]))).mode == "RGBA"  # kept its alpha
    assert (small["width"], small["height"]) == (300, 200)
    assert alice.get(small["url"]).headers["Content-Type"] == "image/webp"


@pytest.mark.parametrize("data,status", [
    (images.SVG, 415), (b"%PDF-1.7 not an image", 415), (images.phone_jpeg()[:600], 415),
    (images.png_bomb(50), 413),
])
def test_what_is_not_a_photo_we_can_take_is_refused_and_nothing_is_stored(alice, entry, conn,
                                                                          data, status):
    answer = upload(alice, entry, images.webp(), data)  # one good photo beside it
    assert answer.status == status, answer.json
    assert "photo" in answer.json["error"]["fields"]
    assert conn.execute("SELECT count(*) FROM photos").fetchone()[0] == 0


def test_a_form_with_no_file_chosen_says_so(alice, entry):
    answer = upload(alice, entry, b"")  # what a file input left empty sends
    assert answer.status == 422
    assert answer.json["error"]["fields"] == {"photo": "choose one or more photos"}


def test_limits_per_photo_and_per_entry_hold(client_for, make_user, services, conn):
    alice = client_for("alice")
    entry = alice.post("/api/entries", {"mood": 3}).json["id"]
    limits = services.config
    heavy = b"\xff\xd8" + bytes(limits.photo_max_bytes)
    assert upload(alice, entry, heavy).status == 413
    pictures = [images.png(20 + i, 20) for i in range(limits.photos_per_entry)]
    assert upload(alice, entry, *pictures[:-1]).status == 201
    assert upload(alice, entry, images.png(99, 9), images.png(98, 9)).status == 413
    assert len(alice.get(f"/api/entries/{entry}").json["photos"]) == limits.photos_per_entry - 1
    assert upload(alice, entry, pictures[-1]).status == 201


def test_the_same_photo_twice_is_one_photo(alice, entry):
    picture = images.phone_jpeg()
    first = upload(alice, entry, picture).json["photos"]
    again = upload(alice, entry, picture, picture).json["photos"]
    assert first == again and len(again) == 1


def test_photos_come_in_their_order_which_can_be_changed(alice, entry):
    ids = [p["id"] for p in upload(alice, entry, images.png(10, 10), images.png(11, 11),
                                   images.png(12, 12)).json["photos"]]
    listed = alice.get("/api/entries").json["entries"][0]["photos"]
    assert [p["id"] for p in listed] == ids
    assert alice.get(f"/api/entries/{entry}").json["photos"] == listed
    turned = alice.request("PUT", f"/api/entries/{entry}/photos/order",
                           json_body={"order": ids[::-1]})
    assert [p["id"] for p in turned.json["photos"]] == ids[::-1]
    for bad in ({"order": ids[:2]}, {"order": ids + ids[:1]}, {"order": [True, 1, 2]},
                {"order": "1,2,3"}, {"order": ids, "more": 1}):
        refused = alice.request("PUT", f"/api/entries/{entry}/photos/order", json_body=bad)
        assert refused.status == 422, bad
    assert alice.request("DELETE", f"/api/photos/{ids[0]}").status == 204
    assert [p["id"] for p in alice.get(f"/api/entries/{entry}").json["photos"]] == [
        ids[2], ids[1]]


def test_a_photo_answers_its_etag_with_304_and_goes_with_its_entry(alice, entry, conn):
    [photo] = upload(alice, entry, images.webp()).json["photos"]
    first = alice.get(photo["url"])
    again = alice.get(photo["url"], headers={"If-None-Match": first.headers["Etag"]})
    assert again.status == 304 and again.body == b""
    assert alice.request("DELETE", f"/api/entries/{entry}").status == 204
    assert alice.get(photo["url"]).status == 404
    assert conn.execute("SELECT count(*) FROM photo_files").fetchone()[0] == 0


def test_another_users_photo_is_a_404_everywhere(alice, entry, client_for):
    [photo] = upload(alice, entry, images.webp()).json["photos"]
    bob = client_for("bob")
    for path in (photo["url"], photo["thumb_url"]):
        assert bob.get(path).status == 404
    assert upload(bob, entry, images.webp()).status == 404
    assert bob.request("DELETE", f"/api/photos/{photo['id']}").status == 404
    assert bob.request("PUT", f"/api/entries/{entry}/photos/order",
                       json_body={"order": [photo["id"]]}).status == 404
    assert alice.get(photo["url"]).status == 200


# --- the edit page ---------------------------------------------------------------------------

def csrf_of(page: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def test_the_edit_page_adds_moves_and_removes_photos_without_script(alice, entry, conn):
    page = alice.get(f"/entries/{entry}/edit").text
    assert 'enctype="multipart/form-data"' in page and 'name="photo"' in page
    token = csrf_of(page)
    added = upload(alice, entry, images.png(10, 10), images.phone_jpeg(),
                   path=f"/entries/{entry}/photos", csrf=token)
    assert added.status == 303
    assert added.headers["Location"] == f"/entries/{entry}/edit?done=photos_added&n=2#photos"
    page = alice.get(added.headers["Location"].split("#")[0]).text  # a browser keeps the #
    assert "Added 2 photos, without their location or other metadata." in page
    first, second = [int(i) for i in re.findall(r'<a href="/photos/(\d+)"><img', page)]
    moved = alice.request("POST", f"/photos/{second}/earlier", form={"csrf_token": token})
    assert moved.status == 303
    page = alice.get(f"/entries/{entry}/edit").text
    assert [int(i) for i in re.findall(r'<a href="/photos/(\d+)"><img', page)] == [second, first]
    assert alice.request("POST", f"/photos/{second}/delete",
                         form={"csrf_token": token}).status == 303
    history = alice.get("/entries").text
    assert f'src="/photos/{first}/thumb"' in history and f"/photos/{second}/" not in history


def test_a_refused_upload_shows_the_edit_page_again_with_the_reason(alice, entry, conn):
    token = csrf_of(alice.get(f"/entries/{entry}/edit").text)
    refused = upload(alice, entry, images.SVG, path=f"/entries/{entry}/photos", csrf=token)
    assert refused.status == 415
    assert "not a JPEG, PNG or WebP image" in refused.text and "<h1>Edit entry</h1>" in refused.text
    assert conn.execute("SELECT count(*) FROM photos").fetchone()[0] == 0


# --- the log form --------------------------------------------------------------------------

def test_photos_chosen_on_the_log_form_arrive_with_the_entry(alice, conn):
    page = alice.get("/").text
    assert re.search(r'<form[^>]*id="entry-form"[^>]*enctype="multipart/form-data"', page)
    form = {"csrf_token": csrf_of(page), "mood": "4", "note": "with pictures",
            "client_id": re.search(r'name="client_id" value="([^"]+)"', page).group(1),
            "date": "2026-12-01", "time": "10:00"}
    body, content_type = form_with_photos(form, [images.phone_jpeg(), images.png()])
    first = alice.request("POST", "/entries", body=body, content_type=content_type)
    assert first.status == 303 and first.headers["Location"] == "/?done=logged"
    again = alice.request("POST", "/entries", body=body, content_type=content_type)
    assert again.status == 303  # the same form twice: one entry, two photos
    [entry] = alice.get("/api/entries").json["entries"]
    assert entry["note"] == "with pictures" and len(entry["photos"]) == 2


def test_a_replayed_log_form_changes_nothing_not_even_its_photos(alice, conn):
    """The same form (its client_id) posted again with another photo and note: the entry
    keeps its one photo and its note, and the replay's files are not even read — one that
    would be refused (an SVG) is not a refusal of what is already saved (#36 6b)."""
    page = alice.get("/").text
    form = {"csrf_token": csrf_of(page), "mood": "4", "note": "the first",
            "client_id": re.search(r'name="client_id" value="([^"]+)"', page).group(1),
            "date": "2026-12-01", "time": "10:00"}
    body, content_type = form_with_photos(form, [images.png()])
    assert alice.request("POST", "/entries", body=body, content_type=content_type).status == 303
    for photo in (images.phone_jpeg(), images.SVG):
        body, content_type = form_with_photos({**form, "note": "the second"}, [photo])
        replay = alice.request("POST", "/entries", body=body, content_type=content_type)
        assert replay.status == 303 and replay.headers["Location"] == "/?done=logged"
    [entry] = alice.get("/api/entries").json["entries"]
    assert entry["note"] == "the first" and len(entry["photos"]) == 1
    assert conn.execute("SELECT count(*) FROM photos").fetchone()[0] == 1


def test_a_photo_refused_on_the_log_form_saves_nothing_and_keeps_what_was_typed(alice, conn):
    page = alice.get("/").text
    form = {"csrf_token": csrf_of(page), "mood": "2", "note": "keep me", "date": "2026-12-01",
            "client_id": re.search(r'name="client_id" value="([^"]+)"', page).group(1)}
    body, content_type = form_with_photos(form, [images.SVG])
    refused = alice.request("POST", "/entries", body=body, content_type=content_type)
    assert refused.status == 415
    assert "Photos (choose them again)" in refused.text and "keep me</textarea>" in refused.text
    assert conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 0


def form_with_photos(fields: dict, files: list[bytes]) -> tuple[bytes, str]:
    boundary = "kmood-test-boundary"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
             .encode() for name, value in fields.items()]
    parts += [f'--{boundary}\r\nContent-Disposition: form-data; name="photo";'
              f' filename="p{i}.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'.encode() + data + b"\r\n"
              for i, data in enumerate(files)]
    return (b"".join(parts) + f"--{boundary}--\r\n".encode(),
            f"multipart/form-data; boundary={boundary}")


def test_a_clean_file_is_kept_byte_for_byte_and_one_with_hidden_text_is_not(alice, entry, conn):
    from PIL import PngImagePlugin

    clean = images.png(64, 64, alpha=False)
    info = PngImagePlugin.PngInfo()
    info.add_text("Location", "52.52 N 13.40 E, home")
    out = io.BytesIO()
    Image.open(io.BytesIO(clean)).save(out, "PNG", pnginfo=info)
    kept, cleaned = upload(alice, entry, clean, out.getvalue()).json["photos"]
    assert stored(conn, kept["id"]) == clean
    assert b"home" not in stored(conn, cleaned["id"]) and b"home" in out.getvalue()
    jpeg = images.phone_jpeg(200, 100, rotated=False)
    [photo] = upload(alice, entry, jpeg).json["photos"][2:]
    assert stored(conn, photo["id"]) != jpeg and b"Phone" not in stored(conn, photo["id"])


def mpo_jpeg() -> bytes:
    """What many Android phones (and cameras in portrait/3D mode) write: a JPEG whose APP2
    carries a Multi-Picture index (a second, smaller picture behind the first). Its MIME type
    is image/jpeg, its extension .jpg; Pillow opens it as format "MPO"."""
    first = Image.new("RGB", (64, 48), (200, 10, 10))
    second = Image.new("RGB", (32, 24), (10, 200, 10))
    out = io.BytesIO()
    first.save(out, "MPO", save_all=True, append_images=[second])
    return out.getvalue()


# --- a phone's MPO JPEG (a JPEG with a depth map behind it) ---------------------------------

def test_a_phone_mpo_jpeg_is_stored_not_a_500(alice, entry, conn):
    answer = upload(alice, entry, mpo_jpeg())
    assert answer.status == 201, (answer.status, answer.body[:200])
    [photo] = answer.json["photos"]
    assert alice.get(photo["url"]).headers["Content-Type"] == "image/jpeg"


def test_an_mpo_photo_in_a_daylio_backup_does_not_sink_the_whole_import(conn, ann):
    data = one_entry_with(picture(1), mpo_jpeg())
    report = run(conn, ann, data)
    assert report["imported"] == 1
    assert len(stored_photos(conn, ann)["2024-06-01"]) == 2


# --- transparency, however a PNG says it ----------------------------------------------------

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


# --- the pixel limit, not Pillow's own -------------------------------------------------------

def test_a_file_declaring_225_megapixels_is_413_too_many_pixels(alice, entry):
    answer = upload(alice, entry, images.png_declaring(15_000, 15_000))  # ~100 bytes on the wire
    assert answer.status == 413, answer.json
    assert answer.json["error"]["fields"] == {"photo": "more than 200 million pixels"}


def test_a_pixel_limit_configured_above_89_megapixels_is_honoured():
    """KMOOD_PHOTO_MAX_PIXELS accepts up to 2**32, but Pillow's MAX_IMAGE_PIXELS (89.5 M,
    escalated to an error) refuses a 90 MP panorama first, as 'not an image'."""
    panorama = images.png_declaring(9500, 9500, depth=1, colour=0, row=b"\x00" * (1 + 9500 // 8 + 1))
    limits = photos.Limits(15 * 1024 * 1024, 6, 100_000_000)
    prepared = photos.prepare(panorama, limits)
    assert (prepared.width, prepared.height) == (2560, 2560)


# --- an entry's worth of photos fits in one request ------------------------------------------

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
    assert answer.status == 201, answer.json


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


# --- a Daylio entry brings at most the per-entry limit ---------------------------------------

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


# --- colour profiles are applied, never stored ----------------------------------------------

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


# --- a JSON export's photos are said to stay behind ------------------------------------------

def test_importing_a_json_export_with_photos_says_the_photos_were_not_brought(
        client_for, conn):
    from zoneinfo import ZoneInfo

    from kmood_lib.portability import importer
    from tests.fakes import FakeClock

    alice = client_for("alice")
    entry = alice.post("/api/entries", {"mood": 4, "note": "with pictures"}).json["id"]
    assert upload(alice, entry, images.png(10, 10), images.webp()).status == 201
    export = alice.get("/api/export?format=json")
    assert export.status == 200
    client_for("bob")  # moving to another account (or server) through the export
    bob = conn.execute("SELECT id FROM users WHERE username = 'bob'").fetchone()[0]
    report = importer.import_file(conn, bob, ZoneInfo("UTC"), export.body, {}, FakeClock())
    assert report["imported"] == 1
    said = " | ".join(report["warnings"] + report.get("ignored", []))
    assert "photo" in said, f"2 photos dropped, the report says only: {report['message']!r}"
