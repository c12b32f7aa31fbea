"""What reading a photo costs (issue #36.1): the memory worked out from its header before
decoding (photo_pixels.decode_cost, what the budget reserves) is never less than what decoding then
takes, for every shape that is costly in its own way; measured in a process of its own."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap

import pytest
from PIL import Image

from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # each case runs in a fresh process to measure its peak

MB = 1024 * 1024


def picture(mode: str, size: tuple[int, int]) -> Image.Image:
    """Bands of colour: decoding costs what any image of its size and mode costs, and it is
    quick to make and small to send (noise would take the encoder seconds)."""
    image = Image.new("RGB", size, (200, 120, 40))
    for i in range(0, size[0], max(1, size[0] // 7)):
        image.paste((i % 256, 90, 200), (i, 0, i + max(1, size[0] // 14), size[1]))
    if mode == "RGBA":
        image.putalpha(180)
    return image.convert(mode) if mode not in ("RGB", "RGBA") else image


def png(mode: str, size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    picture(mode, size).save(out, "PNG", compress_level=1)
    return out.getvalue()


def jpeg(size: tuple[int, int], **options) -> bytes:
    out = io.BytesIO()
    picture("RGB", size).save(out, "JPEG", quality=80, **options)
    return out.getvalue()


def webp(size: tuple[int, int], frames: int = 1) -> bytes:
    out = io.BytesIO()
    first = picture("RGB", size)
    rest = [Image.new("RGB", size, (i, 0, 0)) for i in range(1, frames)]
    first.save(out, "WEBP", lossless=True, save_all=frames > 1, append_images=rest)
    return out.getvalue()


SHAPES = {
    "rgba png, 12 MP": lambda: png("RGBA", (4000, 3000)),
    "palette png, 24 MP": lambda: png("P", (6000, 4000)),
    "one pixel wide, 3 million rows": lambda: png("RGB", (1, 3_000_000)),
    "progressive jpeg, 24 MP": lambda: jpeg((6000, 4000), progressive=True),
    "phone jpeg, 48 MP": lambda: jpeg((8000, 6000)),
    "lossless webp, 4 MP": lambda: webp((2000, 2000)),
    "animated webp": lambda: webp((1000, 1000), frames=3),
}

MEASURE = textwrap.dedent("""
    import io, json, sys
    sys.path.insert(0, sys.argv[1])
    from PIL import Image
    from kmood_lib.journal import image_files, photo_pixels, photos

    def peak():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM"))

    data = sys.stdin.buffer.read()
    Image.MAX_IMAGE_PIXELS = None
    image = Image.open(io.BytesIO(data))
    kind = "JPEG" if image.format == "MPO" else image.format
    declared, keep = image.size, photo_pixels.keepable(image, kind)
    if kind == "JPEG" and not keep:
        image.draft(None, photo_pixels.fitted(*declared))
    multiscan = kind == "JPEG" and image_files.jpeg_buffers_coefficients(io.BytesIO(data))
    estimate = photo_pixels.decode_cost(image, kind, len(data), declared, keep, multiscan)
    image.close()
    before = peak()
    prepared = photos.prepare(data, photos.DEFAULT_LIMITS)
    print(json.dumps({"estimate": estimate, "grew": peak() - before,
                      "kept": [prepared.width, prepared.height]}))
""")


@pytest.mark.parametrize("shape", SHAPES)
def test_what_the_budget_reserves_covers_what_decoding_takes(shape):
    data = SHAPES[shape]()
    done = subprocess.run([sys.executable, "-c", MEASURE, str(ROOT)], input=data,
                          capture_output=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr.decode()
    found = json.loads(done.stdout)
    print(shape, {k: v // MB if isinstance(v, int) else v for k, v in found.items()})
    assert max(found["kept"]) <= 2560
    assert found["grew"] <= found["estimate"], (
        f"{shape}: decoding took {found['grew'] // MB} MB, the budget reserved"
        f" {found['estimate'] // MB} MB")
