"""Memory given back to the system once it is freed: glibc's malloc, by default, serves large
blocks from the heap of the thread that asked, raises its mmap threshold after each large free,
and keeps what was freed in each thread's arena. A server thread that decoded a photo then holds
its megabytes for good, and the next thread decodes in memory of its own: eight threads, eight
photos' worth. With a fixed mmap threshold, every block above it is mapped on its own and
unmapped the moment it is freed (the threshold also turns off glibc's dynamic adjustment)."""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os

log = logging.getLogger(__name__)

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD_BYTES = 128 * 1024  # glibc's own starting value, now kept
TRIM_THRESHOLD_BYTES = 1024 * 1024
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def give_back_freed_memory() -> bool:
    """Set glibc's thresholds (a no-op, saying so, on another C library); True when set."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        log.info("not glibc: freed memory is returned as the C library decides")
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
                and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES))


def resident_bytes() -> int | None:
    """This process's resident memory now (Linux's /proc), or None where there is none."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * PAGE_BYTES
    except (OSError, ValueError, IndexError):
        return None
