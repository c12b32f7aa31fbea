"""The soak's size-limited disk, so that it can be filled up and freed again: an ext4 file
system on a loop file (real fsyncs, reaching the machine's disk), else a tmpfs, else none —
the database then lives in the temporary directory and the disk-full fault is skipped, with
the reason printed."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

CHUNK = 1 << 20


class Disk:
    def __init__(self, tmp: Path, size_mb: int):
        self.tmp, self.size_mb = tmp, size_mb
        self.path = tmp / "disk"
        self.kind: str | None = None
        self.why_not = ""
        self.image = tmp / "disk.img"
        self.filler = self.path / "filler"
        self.filled_mb = 0.0

    def __enter__(self) -> Disk:
        self.path.mkdir()
        tried = []
        if os.geteuid() != 0:
            self.why_not = "not root: mounting a size-limited file system needs root"
            return self
        try:
            with open(self.image, "wb") as image:
                image.truncate(self.size_mb << 20)  # sparse: costs only what is written
            _sh("mkfs.ext4", "-q", "-F", "-m", "0", str(self.image))
            _sh("mount", "-o", "loop", str(self.image), str(self.path))
            self.kind = "ext4 on a loop file"
            return self
        except (OSError, subprocess.CalledProcessError) as exc:
            tried.append(f"loop file: {_reason(exc)}")
            self.image.unlink(missing_ok=True)
        try:
            _sh("mount", "-t", "tmpfs", "-o", f"size={self.size_mb}m", "tmpfs", str(self.path))
            self.kind = "tmpfs (its fsyncs cost nothing)"
        except (OSError, subprocess.CalledProcessError) as exc:
            tried.append(f"tmpfs: {_reason(exc)}")
            self.why_not = "; ".join(tried)
        return self

    def describe(self) -> str:
        if self.kind is None:
            return f"the temporary directory; the disk-full fault is skipped ({self.why_not})"
        return f"{self.kind}, {self.size_mb} MiB"

    def fill(self) -> None:
        """Take every free byte: fallocate most of it at once, then write until ENOSPC."""
        if self.kind is None:
            return
        free = os.statvfs(self.path)
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            try:
                os.posix_fallocate(fd, 0, max(0, free.f_bavail * free.f_frsize - CHUNK))
            except OSError:
                pass
            os.lseek(fd, 0, os.SEEK_END)
            size = CHUNK
            while size:
                try:
                    os.write(fd, b"\0" * size)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    size //= 2
            os.fsync(fd)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
        finally:
            os.close(fd)
        self.filled_mb = self.filler.stat().st_size / (1 << 20)

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)

    def used_mb(self) -> float:
        stat = os.statvfs(self.path)
        return (stat.f_blocks - stat.f_bfree) * stat.f_frsize / (1 << 20)

    def __exit__(self, *exc) -> None:
        self.free()
        if self.kind is not None:
            subprocess.run(["umount", "-l", str(self.path)], check=False)
        self.image.unlink(missing_ok=True)


def _sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=60)


def _reason(exc: Exception) -> str:
    if isinstance(exc, subprocess.CalledProcessError):
        return (exc.stderr or b"").decode(errors="replace").strip() or str(exc)
    return str(exc)
