"""The server's memory whatever photos arrive (issue #36.1): a 1.4 KB lossless WebP of 6000 x
6000 pixels took it to 595 MB and 8 x 6 of them to 4.7 GB. Now every photo's decoding is
reserved from KMOOD_PHOTO_MEMORY_BYTES before it starts: peak RSS stays under 200 MB at any
concurrency and comes back to within 50 MB of where it was; 48 and 50 MP phone JPEGs are kept."""

from __future__ import annotations

import io
import threading
import uuid

import pytest
from PIL import Image

from tests import images
from tests.e2e.test_memory import rss_mb
from tests.helpers import http

PEAK_BOUND_MB = 200  # SPEC §9
SETTLE_BOUND_MB = 50


def image_bytes(image: Image.Image, kind: str, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, kind, **options)
    return out.getvalue()


def lossless_webp_bomb() -> bytes:
    """6000 x 6000 pixels of one colour: about 1.4 KB on the wire."""
    return image_bytes(Image.new("RGB", (6000, 6000), (90, 30, 160)), "WEBP", lossless=True)


def phone_jpeg(width: int, height: int) -> bytes:
    """A baseline JPEG as a phone's camera writes one, at its full resolution."""
    image = Image.new("RGB", (width, height), (200, 120, 40))
    image.paste((30, 90, 200), (0, 0, width // 3, height))
    return image_bytes(image, "JPEG", quality=90)


@pytest.fixture(scope="module")
def photo_server(tmp_path_factory):
    from tests.e2e.conftest import Stack

    stack = Stack(tmp_path_factory.mktemp("photo-memory"))
    stack.create_user("alice")
    stack.start(worker=False)
    stack.auth = stack.log_in("alice")
    yield stack
    assert stack.stop()["server"] == 0


def new_entry(stack) -> int:
    status, _, entry = http("POST", stack.url + "/api/entries", {"mood": 4}, stack.auth)
    assert status == 201
    return entry["id"]


def post_photos(stack, entry_id: int, files: list[bytes]):
    boundary = uuid.uuid4().hex
    body = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p{i}"\r\n'
        f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n"
        for i, data in enumerate(files)) + f"--{boundary}--\r\n".encode()
    return http("POST", f"{stack.url}/api/entries/{entry_id}/photos", body,
                {**stack.auth, "Content-Type": f"multipart/form-data; boundary={boundary}"},
                timeout=120)


def in_parallel(calls) -> list:
    answers = [None] * len(calls)

    def run(i, call):
        answers[i] = call()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    return answers


def memory(stack) -> tuple[float, float]:
    return rss_mb(stack.server.pid), rss_mb(stack.server.pid, "VmHWM")


def test_a_tiny_webp_of_36_megapixels_is_refused_before_it_is_decoded(photo_server):
    entry = new_entry(photo_server)
    before, _ = memory(photo_server)
    bomb = lossless_webp_bomb()
    assert len(bomb) < 2000
    status, _, answer = post_photos(photo_server, entry, [bomb])
    after, peak = memory(photo_server)
    print(f"one {len(bomb)}-byte WebP: {status}; RSS {before:.0f} -> {after:.0f} MB,"
          f" peak {peak:.0f} MB")
    assert status == 413, answer
    assert "KMOOD_PHOTO_MEMORY_BYTES" in answer["error"]["message"]
    assert "too large to read here" in answer["error"]["fields"]["photo"]
    assert peak <= PEAK_BOUND_MB and after <= before + SETTLE_BOUND_MB


def test_eight_requests_of_six_such_webps_at_once_leave_the_server_small(photo_server):
    entry = new_entry(photo_server)
    before, _ = memory(photo_server)
    bomb = lossless_webp_bomb()
    answers = in_parallel([lambda: post_photos(photo_server, entry, [bomb] * 6)] * 8)
    after, peak = memory(photo_server)
    print(f"8 x 6 WebPs: {sorted(a[0] for a in answers)}; RSS {before:.0f} -> {after:.0f} MB,"
          f" peak {peak:.0f} MB")
    assert {a[0] for a in answers} == {413}
    assert peak <= PEAK_BOUND_MB and after <= before + SETTLE_BOUND_MB


@pytest.mark.parametrize("width,height", [(8000, 6000), (8160, 6120)])
def test_a_48_or_50_megapixel_phone_photo_is_kept(photo_server, width, height):
    entry = new_entry(photo_server)
    status, _, answer = post_photos(photo_server, entry, [phone_jpeg(width, height)])
    _, peak = memory(photo_server)
    assert status == 201, answer
    [photo] = answer["photos"]
    assert (photo["width"], photo["height"]) == (2560, 1920)
    assert peak <= PEAK_BOUND_MB


def test_eight_phone_photos_at_once_take_turns_or_are_asked_to_come_back(photo_server):
    entries = [new_entry(photo_server) for _ in range(8)]
    before, _ = memory(photo_server)
    photos = [phone_jpeg(8000, 6000 - i) for i in range(8)]  # eight different photos
    answers = in_parallel([lambda e=e, p=p: post_photos(photo_server, e, [p])
                           for e, p in zip(entries, photos, strict=True)])
    after, peak = memory(photo_server)
    statuses = sorted(a[0] for a in answers)
    print(f"8 x 48 MP at once: {statuses}; RSS {before:.0f} -> {after:.0f} MB,"
          f" peak {peak:.0f} MB")
    assert set(statuses) <= {201, 503} and 201 in statuses
    for status, headers, answer in answers:
        if status == 503:
            assert int(headers["Retry-After"]) >= 1
            assert "send photo 1 again" in answer["error"]["message"]
    assert peak <= PEAK_BOUND_MB and after <= before + SETTLE_BOUND_MB


@pytest.mark.parametrize("width,height", [(8000, 5000), (1, 39_999_999)])
def test_small_pngs_that_decode_huge_are_refused_cheaply(photo_server, width, height):
    """A 40 MP RGBA PNG (155 KB) took the server to 434 MB, one pixel wide and 40 million rows
    3.5 s and 500 MB: refused now from the header alone, whatever follows it."""
    entry = new_entry(photo_server)
    status, _, answer = post_photos(photo_server, entry,
                                    [images.png_declaring(width, height)])
    _, peak = memory(photo_server)
    assert status == 413, answer
    assert "too large to read here" in answer["error"]["fields"]["photo"]
    assert peak <= PEAK_BOUND_MB


def test_metrics_show_the_photo_memory_budget_and_the_process_memory(photo_server):
    entry = new_entry(photo_server)
    post_photos(photo_server, entry, [lossless_webp_bomb()])
    status, _, text = http("GET", photo_server.url + "/metrics", headers=photo_server.auth)
    assert status == 200
    values = dict(line.rsplit(" ", 1) for line in text.splitlines()
                  if line and not line.startswith("#"))
    assert int(values['kmood_photo_memory_refused_total{reason="too_large"}']) >= 1
    assert int(values["kmood_photo_memory_max_bytes"]) == 100 * 1024 * 1024
    assert int(values["kmood_photo_memory_reserved_bytes"]) == 0  # nothing held after
    assert 0 < int(values["kmood_photo_memory_reserved_peak_bytes"]) <= 100 * 1024 * 1024
    resident = int(values["process_resident_memory_bytes"])
    assert abs(resident / 1024 / 1024 - rss_mb(photo_server.server.pid)) < 20
