"""Photo import benchmark (issue #26): a Daylio backup of 1 000 entries and 300 phone photos
(1 200 x 900 JPEGs with GPS in their EXIF, ~100-200 KB each) uploaded to a running server,
beside the same backup without its photos in the same run. Prints both times, the cost per
photo, and the server's peak resident memory (VmHWM) over each — target: at most 150 MB."""

from __future__ import annotations

import io
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: bench/queue.py shadows stdlib queue

from PIL import Image  # noqa: E402

from tests.helpers import (  # noqa: E402
    base_env,
    free_port,
    healthy,
    http,
    login_cookie,
    multipart,
    run,
    spawn,
    stop,
    wait_until,
)
from tests.unit.test_daylio_backup import MOODS, TAGS, backup, day_entry  # noqa: E402

ENTRIES, PHOTOS = 1000, 300
RSS_TARGET_MB = 150


def photo(seed: int) -> bytes:
    """A phone-like JPEG: smooth noise blown up (so it compresses like a photo), with EXIF."""
    rng = random.Random(seed)
    small = Image.frombytes("RGB", (150, 113), bytes(rng.randrange(256)
                                                      for _ in range(150 * 113 * 3)))
    image = small.resize((1200, 900), Image.Resampling.BILINEAR)
    exif = Image.Exif()
    exif[0x0110] = "Phone"
    exif[0x0112] = 6
    exif[0x8825] = {1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 18.0)}
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85, exif=exif)
    return out.getvalue()


def the_backup(with_photos: bool) -> bytes:
    entries, assets, files = [], [], {}
    start = datetime(2022, 1, 1, 9, 0)
    for i in range(ENTRIES):
        entry = day_entry(10_000 + i, start + timedelta(days=i), 1, 1 + i % 5, tags=[1 + i % 2],
                          note=f"day {i}")
        if with_photos and i % 10 < 3:  # 300 of the 1 000 entries: one photo each
            checksum = f"{i:032x}"
            entry["assets"] = [i]
            assets.append({"id": i, "checksum": checksum, "type": 1})
            files[f"/assets/photos/{2022 + i // 365}/1/{checksum}"] = photo(i)
        entries.append(entry)
    document = {"version": 15, "customMoods": MOODS, "tags": TAGS, "tag_groups": [],
                "dayEntries": entries, "assets": assets, "metadata": {"created_at": 1}}
    return backup(document, extra=files)


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_import(data: bytes, tmp: Path, name: str) -> tuple[float, float, dict]:
    """A fresh server and user; the upload's wall time, the server's peak RSS, the report."""
    port = free_port()
    env = base_env(tmp / f"{name}.db", KMOOD_PORT=str(port), KMOOD_LOG_LEVEL="WARNING",
                   KMOOD_SCRYPT_N="1024", KMOOD_MAX_UPLOAD_BYTES=str(256 * 1024 * 1024))
    assert run(["kmood.py", "create-user", "bench", "--password-stdin"], env,
               input="bench-password\n").returncode == 0
    server = spawn(["kmood.py"], env, tmp / f"{name}.log")
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: healthy(url), 30, what="kmood server")
        cookie = login_cookie(url, "bench", "bench-password")
        _, _, me = http("GET", url + "/api/me", headers={"Cookie": cookie})
        body, content_type = multipart({}, {"file": data})
        started = time.perf_counter()
        status, _, report = http("POST", url + "/api/import/daylio", body, headers={
            "Cookie": cookie, "X-CSRF-Token": me["csrf_token"], "Content-Type": content_type},
            timeout=600)
        elapsed = time.perf_counter() - started
        assert status == 200, report
        return elapsed, peak_mb(server.pid), report
    finally:
        stop(server)


def main() -> list[str]:
    tmp = Path(tempfile.mkdtemp(prefix="kmood-import-photos-"))
    plain, with_photos = the_backup(False), the_backup(True)
    base_s, base_mb, _ = one_import(plain, tmp, "plain")
    took_s, took_mb, report = one_import(with_photos, tmp, "photos")
    verdict = "ok" if took_mb <= RSS_TARGET_MB else f"OVER the {RSS_TARGET_MB} MB target"
    return [
        f"backup: {ENTRIES} entries, {report['photos']} photos, {len(with_photos) / 2**20:.1f} MiB",
        f"without photos: {base_s:6.2f} s, server peak RSS {base_mb:6.1f} MB",
        f"with photos:    {took_s:6.2f} s, server peak RSS {took_mb:6.1f} MB  ({verdict})",
        f"per photo: {(took_s - base_s) / PHOTOS * 1000:.0f} ms;"
        f" time {took_s / base_s:.1f}x the same backup without photos",
        f"imported {report['imported']} entries; warnings: {len(report['warnings'])}",
    ]


if __name__ == "__main__":
    print("Photo import benchmark: a Daylio backup uploaded to a running server")
    for line in main():
        print(line)
